package client

import (
	"net"
	"testing"
	"time"
)

// TestNativeDialSilent: a node that takes the connection and answers
// nothing (frozen, starved) is told from one that does not speak the
// protocol (it closes the connection) and from one not reached: only
// the second is taken for an older node, called on gRPC for a minute.
func TestNativeDialSilent(t *testing.T) {
	serve := func(t *testing.T, each func(net.Conn)) string {
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
				t.Cleanup(func() { c.Close() })
				go each(c)
			}
		}()
		return ln.Addr().String()
	}
	silent := serve(t, func(net.Conn) {})
	older := serve(t, func(c net.Conn) {
		// As gRPC's server does with a greeting not its own.
		c.Read(make([]byte, 64))
		c.Close()
	})
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := closed.Addr().String()
	closed.Close()
	const wait = 200 * time.Millisecond
	for _, tc := range []struct {
		name, addr   string
		silent, dial bool
	}{
		{"silent", silent, true, false},
		{"older", older, false, false},
		{"not reached", gone, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := (&nativeDialer{addr: tc.addr, wait: wait}).dial()
			if err == nil {
				t.Fatal("dial: no error")
			}
			if d := time.Since(start); d > 10*wait {
				t.Errorf("dial took %v, want about its wait (%v) at most", d, wait)
			}
			if isSilent(err) != tc.silent || isDialError(err) != tc.dial || isRefusal(err) {
				t.Errorf("dial: %v: silent %v, not reached %v, refused %v; want %v, %v, false", err, isSilent(err), isDialError(err), isRefusal(err), tc.silent, tc.dial)
			}
		})
	}
}
