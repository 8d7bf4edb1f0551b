package grpc

import (
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/allot-dev/allot/proc"
)

// pair starts nodes a (process 0) and b (process 1) with ackDelay; b, the
// accepting side, listens on wrap of its listener when wrap is given.
func pair(t *testing.T, ackDelay time.Duration, wrap func(net.Listener) net.Listener) (a, b *Transport) {
	t.Helper()
	names := []string{"a", "b"}
	peers := map[string]string{}
	var lis []net.Listener
	for _, n := range names {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		peers[n] = ln.Addr().String()
		if n == "b" && wrap != nil {
			ln = wrap(ln)
		}
		lis = append(lis, ln)
	}
	place := func(_ string, p proc.ID) (string, bool) {
		if p < 0 || p > 1 {
			return "", false
		}
		return names[p], true
	}
	var ts []*Transport
	for i, n := range names {
		tr, err := New(Config{Node: n, Listener: lis[i], Peers: peers, Place: place, Codec: bytesCodec{}, AckDelay: ackDelay})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		ts = append(ts, tr)
	}
	return ts[0], ts[1]
}

// unacked is how many of a's messages to node are not acknowledged yet.
func unacked(a *Transport, node string) int {
	p := a.peers[node]
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.unacked)
}

// waitFor polls cond for up to 10s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("10s and still not %s", what)
		}
	}
}

// TestAckRidesWithData: an ack with nothing to ride with waits (here for
// good), and goes with the next data the other way; with a short delay it
// goes alone.
func TestAckRidesWithData(t *testing.T) {
	a, b := pair(t, time.Hour, nil)
	got := make(chan string, 10)
	if err := a.Register(0, func(_ proc.ID, m proc.Message) { got <- "a:" + m.Kind() }); err != nil {
		t.Fatal(err)
	}
	if err := b.Register(1, func(_ proc.ID, m proc.Message) { got <- "b:" + m.Kind() }); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := a.Send(0, 1, kindMsg(fmt.Sprint("m", i))); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		<-got
	}
	// b has delivered all three; its ack would cross in well under the
	// time the stream takes to carry a message back, were it sent alone.
	if err := b.Send(1, 0, kindMsg("probe")); err != nil {
		t.Fatal(err)
	}
	if m := <-got; m != "a:probe" {
		t.Fatalf("got %s", m)
	}
	// The probe carried b's ack of a's three: b's own probe is what a
	// has not acknowledged yet (its ack waits, an hour).
	waitFor(t, "a's messages acknowledged", func() bool { return unacked(a, "b") == 0 })
	time.Sleep(20 * time.Millisecond)
	if n := unacked(b, "a"); n != 1 {
		t.Errorf("b's probe: %d unacknowledged, want 1 (a's ack waits for data)", n)
	}

	c, d := pair(t, time.Millisecond, nil)
	if err := d.Register(1, func(proc.ID, proc.Message) {}); err != nil {
		t.Fatal(err)
	}
	if err := c.Send(0, 1, kindMsg("alone")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a lone message acknowledged", func() bool { return unacked(c, "b") == 0 })
}

// TestNoPingPerMessage: 200 round trips between two nodes cost no HTTP/2
// PING (gRPC's estimate of the bandwidth-delay product, off with fixed
// windows, would ping for nearly every message; keep-alive pings are 10s
// apart).
func TestNoPingPerMessage(t *testing.T) {
	var pc *pingCounter
	a, b := pair(t, 0, func(ln net.Listener) net.Listener { pc = &pingCounter{Listener: ln}; return pc })
	back := make(chan struct{}, 1)
	if err := a.Register(0, func(proc.ID, proc.Message) { back <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	if err := b.Register(1, func(_ proc.ID, m proc.Message) {
		if err := b.Send(1, 0, m); err != nil {
			t.Error(err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if err := a.Send(0, 1, kindMsg(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		<-back
	}
	if n := pc.count(); n > 0 {
		t.Errorf("%d PINGs written for 200 round trips, want 0", n)
	}
}

// pingCounter is a listener whose connections count the HTTP/2 PING
// frames the accepting side writes (its own pings and its answers).
type pingCounter struct {
	net.Listener
	mu    sync.Mutex
	pings int
}

func (l *pingCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &pingConn{Conn: c, l: l}, nil
}

func (l *pingCounter) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pings
}

// pingConn follows the frames of what it writes: a 9-byte header (24-bit
// length, type, flags, stream id), then the payload.
type pingConn struct {
	net.Conn
	l    *pingCounter
	head []byte // the header read so far
	skip int    // payload bytes still to pass over
}

func (c *pingConn) Write(b []byte) (int, error) {
	for rest := b; len(rest) > 0; {
		if c.skip > 0 {
			k := min(c.skip, len(rest))
			c.skip, rest = c.skip-k, rest[k:]
			continue
		}
		k := min(9-len(c.head), len(rest))
		c.head, rest = append(c.head, rest[:k]...), rest[k:]
		if len(c.head) == 9 {
			if c.head[3] == 0x6 { // PING
				c.l.mu.Lock()
				c.l.pings++
				c.l.mu.Unlock()
			}
			c.skip, c.head = int(c.head[0])<<16|int(c.head[1])<<8|int(c.head[2]), c.head[:0]
		}
	}
	return c.Conn.Write(b)
}
