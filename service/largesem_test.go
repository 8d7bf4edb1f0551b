package service_test

import (
	"context"
	"testing"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/service"
)

// TestRefreshCollectsLargeSemaphores: large semaphores (1000 units, past
// 3 nodes × 16 slots) that nobody holds any more count as idle, so a node
// asks for a refresh at 2 idle ones as it does for semaphores on the
// slots, and a held one keeps its units across it.
func TestRefreshCollectsLargeSemaphores(t *testing.T) {
	nodes := opsCluster(t, 3, func(c *service.Config) {
		c.RefreshIdle, c.RefreshEvery = 2, 200*time.Millisecond
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b := pb.NewAllotClient(dialRaw(t, nodes[1].addr))
	sb := openSession(t, b)
	held, err := b.Acquire(ctx, &pb.AcquireRequest{Session: sb, Name: "held", Units: 1000})
	if err != nil {
		t.Fatal(err)
	}
	epoch := metric(t, nodes[1].n, "allot_view_epoch")
	for _, name := range []string{"idle", "idle2", "idle3"} {
		r, err := b.Acquire(ctx, &pb.AcquireRequest{Session: sb, Name: name, Units: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Release(ctx, &pb.ReleaseRequest{Session: sb, Grant: r.Grant}); err != nil {
			t.Fatal(err)
		}
	}
	for metric(t, nodes[1].n, "allot_view_epoch") == epoch {
		if ctx.Err() != nil {
			t.Fatalf("no refresh of epoch %s with 3 idle large semaphores", epoch)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := nodes[1].n.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = b.Acquire(ctx, &pb.AcquireRequest{Session: sb, Name: "held", Units: 999})
	if reason(err) != pb.ReasonUnitsMismatch {
		t.Errorf("held (1000 units, held across the refresh) with 999 units: %v, want UNITS_MISMATCH", err)
	}
	if _, err := b.Release(ctx, &pb.ReleaseRequest{Session: sb, Grant: held.Grant}); err != nil {
		t.Errorf("the large semaphore held across the refresh: %v", err)
	}
}
