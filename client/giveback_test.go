package client_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
)

// TestGivenBackAgainOnTheNextNode: a node answers an Unlock before the
// session's backup has the give-back. Node 0's traffic to node 1, its
// sessions' backup, is held back from just before the Unlock, and node 0
// crashes right after the answer: node 1 adopts the session with the
// grant it never heard given back, and holds it again. The client, moving
// the session to node 1, gives the grant back there again, so a waiter on
// node 2 gets the lock once the view has changed, not when the session
// ends (it does not end: its client keeps it alive on node 1). Without
// the second give-back the waiter waits for good.
func TestGivenBackAgainOnTheNextNode(t *testing.T) {
	var g *proxy
	c := newCrashableVia(t, 3, func(i int, addrs []string) []string {
		if i != 0 {
			return nil
		}
		g = newProxy(t, addrs[1])
		via := slices.Clone(addrs)
		via[1] = g.ln.Addr().String()
		return via
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := client.Dial(ctx, c.addrs...) // the session starts on node 0 and can move
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	s, err := cl.Session(ctx, client.WithTTL(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	other := session(t, ctx, c.addrs[2])

	held, err := s.Lock(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	g.hold()
	uctx, ucancel := context.WithTimeout(ctx, 2*time.Second)
	err = held.Unlock(uctx)
	ucancel()
	if err != nil {
		t.Fatalf("Unlock while the backup's link is held: %v, want an answer before the backup has it", err)
	}
	crashed := time.Now()
	c.crash(0)

	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	got, err := other.Lock(wctx, "x")
	if err != nil {
		t.Fatalf("the waiter on node 2, %v after node 0's crash: %v (the grant given back on node 0 is held by the session its backup adopted)", time.Since(crashed).Round(time.Millisecond), err)
	}
	t.Logf("the waiter was granted %v after the crash", time.Since(crashed).Round(time.Millisecond))
	if !held.Token("x").Less(got.Token("x")) {
		t.Errorf("the waiter's token %v is not above the first holder's %v", got.Token("x"), held.Token("x"))
	}
	select {
	case <-s.Done():
		t.Error("the moving session was lost")
	default:
	}
	g.pass()
	verifyLogs(t, c.records(t))
}
