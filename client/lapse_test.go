package client_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/allot-dev/allot/chaos"
	"github.com/allot-dev/allot/client"
)

// TestLeaseLapseKeepsSession cuts a follower off from both other nodes
// silently (its clients still reach it), so that its lease runs out and a
// view without it adopts its sessions. The node answers its sessions'
// keep-alives until then, each with the lease it has left, shorter each
// time: a client that counted on no more than that lease, and looked for
// the session's backup only once the node refused, lost the session the
// moment the lease ran out (seen in the chaos test: "expired while kept
// alive"). The session's TTL is far from over, and its backup keeps it:
// Done stays open, and the session locks again at its adopter.
func TestLeaseLapseKeepsSession(t *testing.T) {
	if testing.Short() {
		t.Skip("a cut of several leases")
	}
	const n = 3
	c, links := proxiedCluster(t, n)
	ld := -1
	for deadline := time.Now().Add(10 * time.Second); ld < 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no leader within 10s")
		}
		c.mu.Lock()
		ms, _ := c.nodes[0].Members()
		c.mu.Unlock()
		for _, m := range ms {
			if m.Leader {
				ld = m.ID
			}
		}
	}
	a := (ld + 1) % n // a follower
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	order := append(slices.Clone(c.addrs[a:]), c.addrs[:a]...)
	cl, err := client.Dial(ctx, order...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// A TTL of several leases: the node's lease, not the TTL, bounds
	// what each keep-alive's answer promises.
	s, err := cl.Session(ctx, client.WithTTL(6*testSuspect))
	if err != nil {
		t.Fatal(err)
	}
	if s.Node() != c.addrs[a] {
		t.Fatalf("session opened at %s, want node %d (%s)", s.Node(), a, c.addrs[a])
	}
	g, err := s.Lock(ctx, "lapse")
	if err != nil {
		t.Fatal(err)
	}
	for k := range n {
		if k != a {
			for _, p := range []*chaos.Proxy{links[a][k], links[k][a]} {
				p.Hold(chaos.Forward)
				p.Hold(chaos.Backward)
			}
		}
	}
	cutAt := time.Now()
	// The node's lease runs out within a lease; the view without it
	// forms within about 2.5 leases, and the backup adopts the session.
	watch := time.NewTimer(4 * testSuspect)
	select {
	case <-s.Done():
		t.Fatalf("Done closed %v after node %d was cut off, with the session's TTL (%v) far from over and its backup alive", time.Since(cutAt).Round(time.Millisecond), a, 6*testSuspect)
	case <-watch.C:
	}
	if s.Node() == c.addrs[a] {
		t.Fatalf("the session still at node %d, cut off %v ago", a, time.Since(cutAt).Round(time.Millisecond))
	}
	lctx, lcancel := context.WithTimeout(ctx, 4*testSuspect)
	h, err := s.Lock(lctx, "lapse-2")
	lcancel()
	if errors.Is(err, client.ErrSessionExpired) || err != nil {
		t.Fatalf("lock at the adopter, %v after the cut: %v", time.Since(cutAt).Round(time.Millisecond), err)
	}
	t.Logf("locked at the adopter %v after the cut", time.Since(cutAt).Round(time.Millisecond))
	uctx, ucancel := context.WithTimeout(ctx, 4*testSuspect)
	defer ucancel()
	for _, gr := range []*client.Grant{g, h} {
		if err := gr.Unlock(uctx); err != nil {
			t.Errorf("unlock at the adopter: %v", err)
		}
	}
	t.Logf("unlocked %v after the cut", time.Since(cutAt).Round(time.Millisecond))
	for _, ps := range links {
		for _, p := range ps {
			if p != nil {
				p.Release()
			}
		}
	}
	s.Close(uctx)
	for i := range n {
		c.crash(i)
	}
}
