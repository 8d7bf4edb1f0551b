package client_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service"
)

// TestProtocols: the calls mean the same and fail the same on the native
// protocol and on the gRPC Calls stream (tokens that grow, a TryLock of
// a held name, a second Unlock, a semaphore's units), and each goes on
// the protocol asked for.
func TestProtocols(t *testing.T) {
	addrs, _ := cluster(t, 3, 0)
	for _, proto := range []client.Protocol{client.ProtocolNative, client.ProtocolGRPC} {
		t.Run(string(proto), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := client.DialWith(ctx, addrs, client.WithProtocol(proto))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var last client.Token
			for range 3 { // a session on each node
				a, err := c.Session(ctx)
				if err != nil {
					t.Fatal(err)
				}
				b, err := c.Session(ctx)
				if err != nil {
					t.Fatal(err)
				}
				g, err := a.Lock(ctx, "p/"+string(proto), "q")
				if err != nil {
					t.Fatal(err)
				}
				if tok := g.Token("q"); !last.Less(tok) {
					t.Errorf("token %v after %v: want it larger", tok, last)
				} else {
					last = tok
				}
				if _, err := b.TryLock(ctx, "q"); !errors.Is(err, client.ErrLocked) {
					t.Errorf("TryLock of a held name: %v, want ErrLocked", err)
				}
				if err := g.Unlock(ctx); err != nil {
					t.Fatal(err)
				}
				if err := g.Unlock(ctx); !errors.Is(err, client.ErrNotHeld) {
					t.Errorf("a second Unlock: %v, want ErrNotHeld", err)
				}
				sem := a.Semaphore("s", 1)
				if err := sem.Acquire(ctx); err != nil {
					t.Fatal(err)
				}
				if err := b.Semaphore("s", 1).TryAcquire(ctx); !errors.Is(err, client.ErrLocked) {
					t.Errorf("TryAcquire of a semaphore's one unit, held: %v, want ErrLocked", err)
				}
				if err := b.Semaphore("s", 2).TryAcquire(ctx); !errors.Is(err, client.ErrMismatch) {
					t.Errorf("TryAcquire of other units: %v, want ErrMismatch", err)
				}
				if err := sem.Release(ctx); err != nil {
					t.Fatal(err)
				}
				a.Close(ctx)
				b.Close(ctx)
			}
			if got := c.Protocols(); !slices.Equal(got, []string{string(proto), string(proto), string(proto)}) {
				t.Errorf("calls went on %v, want %s at each node", got, proto)
			}
		})
	}
}

// TestNativeFallback: a node whose port is not split (an older version's
// is not) is called on gRPC by a client that asks for the native
// protocol, and its calls are served.
func TestNativeFallback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nd, err := service.New(service.Config{Cluster: service.Cluster{Nodes: []string{ln.Addr().String()}, Slots: 4}})
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	if err := nd.Register(s); err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln) // no Serve: gRPC alone on the port
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		nd.Shutdown(ctx)
		s.Stop()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := nd.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := client.DialWith(ctx, []string{ln.Addr().String()}, client.WithProtocol(client.ProtocolNative))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ss, err := c.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for range 3 {
		g, err := ss.Lock(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("three Locks and Unlocks took %v after the fallback, want it found at once", d)
	}
	if got := c.Protocols(); !slices.Equal(got, []string{"grpc"}) {
		t.Errorf("calls went on %v, want grpc", got)
	}
}

// TestWithProtocol: an unknown protocol is refused at Dial.
func TestWithProtocol(t *testing.T) {
	if _, err := client.DialWith(context.Background(), []string{"127.0.0.1:1"}, client.WithProtocol("http")); err == nil {
		t.Error("WithProtocol(\"http\"): no error")
	}
}
