package service

import (
	"context"
	"fmt"
	"testing"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/names"
	"github.com/allot-dev/allot/service/internal/space"
)

// TestModularOrderedNames: under modular-ordered, whose subroutine has a
// lock process per resource after the managers, 120 names locked one
// after another from one session on three nodes are each granted at
// once, and each name's subroutine lock is made at the name's home
// only, beside its manager. Names past the first few dozen of a view
// have ids whose subroutine locks lie far beyond the managers: the
// transport must place them too, not drop their messages (the Lock then
// waited for a view change to start over, seconds).
func TestModularOrderedNames(t *testing.T) {
	nodes := inProcess(t, 3, Config{Cluster: Cluster{Lock: "modular-ordered"}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ses, err := nodes[0].OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 10000})
	if err != nil {
		t.Fatal(err)
	}
	v := nodes[0].views.current().v
	for i := range 120 {
		name := fmt.Sprintf("ordered/%d", i)
		lctx, lcancel := context.WithTimeout(ctx, 5*time.Second)
		r, err := nodes[0].Lock(lctx, &pb.LockRequest{Session: ses.Session, Resources: []string{name}})
		lcancel()
		if err != nil {
			t.Fatalf("Lock %s (the %d-th name): %v", name, i, err)
		}
		if _, err := nodes[0].Unlock(ctx, &pb.UnlockRequest{Session: ses.Session, Grant: r.Grant}); err != nil {
			t.Fatal(err)
		}
		if i%40 != 39 {
			continue
		}
		home := names.Home(name, v.Members)
		h := nodes[home]
		h.names.mu.Lock()
		k, _ := h.names.byEpoch[v.Epoch].ids.Given(name)
		h.names.mu.Unlock()
		sub := 2*lockRange + proc.ID(k) // the subroutine's lock of the name
		if owner := lockOwner(v, sub); owner != home {
			t.Fatalf("%s (id %d): its subroutine lock %d placed on node %d, not at its home %d", name, k, sub, owner, home)
		}
		// The lock may still be on its way to be made (the release's
		// messages): wait for it a little.
		for range 100 {
			h.views.mu.Lock()
			in := h.views.instances[space.Space{Key: space.Lock, View: v}]
			h.views.mu.Unlock()
			in.mu.Lock()
			made := in.made[sub]
			in.mu.Unlock()
			if made {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		for j, n := range nodes {
			n.views.mu.Lock()
			in := n.views.instances[space.Space{Key: space.Lock, View: v}]
			n.views.mu.Unlock()
			if in == nil {
				continue
			}
			in.mu.Lock()
			made := in.made[sub]
			in.mu.Unlock()
			if made != (j == home) {
				t.Fatalf("%s (id %d, home %d): its subroutine lock %d made on node %d: %v", name, k, home, sub, j, made)
			}
		}
	}
}
