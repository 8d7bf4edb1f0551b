package chaos

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// echo serves a line-echo on loopback until the test ends.
func echo(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// roundTrip writes a line and reads it back within d: false if nothing
// came back (held), an error if the connection broke.
func roundTrip(c net.Conn, r *bufio.Reader, d time.Duration) (bool, error) {
	if _, err := c.Write([]byte("x\n")); err != nil {
		return false, err
	}
	c.SetReadDeadline(time.Now().Add(d))
	_, err := r.ReadString('\n')
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false, nil
	}
	return err == nil, err
}

// TestProxyHold shows a held direction forwarding nothing while the
// connection stays open, the held bytes flowing on after Release, and a
// reset on one side leaving the other open and silent.
func TestProxyHold(t *testing.T) {
	for _, dir := range []Dir{Forward, Backward} {
		p, err := NewProxy(echo(t))
		if err != nil {
			t.Fatal(err)
		}
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(c)
		if ok, err := roundTrip(c, r, 2*time.Second); !ok {
			t.Fatalf("dir %d: no echo before the hold: %v", dir, err)
		}
		p.Hold(dir)
		if ok, err := roundTrip(c, r, 200*time.Millisecond); ok || err != nil {
			t.Fatalf("dir %d held: echo %v, error %v; want silence", dir, ok, err)
		}
		p.Release()
		// The held line arrives, then the next one.
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatalf("dir %d: the held line after Release: %v", dir, err)
		}
		if ok, err := roundTrip(c, r, 2*time.Second); !ok {
			t.Fatalf("dir %d: no echo after Release: %v", dir, err)
		}
		c.Close()
		p.Close()
	}

	// A reset seen by one side only: the dialler's connection is closed,
	// the target's stays open and hears nothing.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	p, err := NewProxy(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The target accepts before the proxy has its pair in hand: a byte
	// through the pair's Backward pipe shows the pair is there for the
	// reset to find.
	s.Write([]byte("ready\n"))
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
		t.Fatalf("the pair through the proxy: %v", err)
	}
	p.Hold(Forward)
	c.Write([]byte("lost\n"))
	p.ResetOneSide(false)
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("the dialler's side was not reset")
	}
	s.Write([]byte("to nobody\n"))
	s.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	_, err = s.Read(make([]byte, 1))
	if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		t.Fatalf("the target's side: %v; want open and silent", err)
	}
}

// TestTakesDataDir reads allot serve's --help: a service with --data-dir
// gets a data dir per node, one without runs as it is.
func TestTakesDataDir(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		help string
		want bool
	}{
		{"usage: allot serve\n  -data-dir string\n    \tkeep the node's state here\n  -node int\n", true},
		{"usage: allot serve\n  -node int\n", false},
	} {
		bin := filepath.Join(dir, fmt.Sprintf("allot-%v", tc.want))
		script := "#!/bin/sh\ncat <<'EOF'\n" + tc.help + "EOF\n"
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		if got := takesDataDir(bin); got != tc.want {
			t.Errorf("help %q: takesDataDir %v, want %v", tc.help, got, tc.want)
		}
	}
}
