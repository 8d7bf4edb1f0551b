package service_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/service"
)

// TestRefresh: on a 3-node cluster that refreshes at 2 idle instances, a
// semaphore held across the refresh keeps its grant, its token and its
// units (other units are refused on another node), while a semaphore
// nobody held is forgotten (other units are its units from then on); a
// lock held across it is still held; a quota's permits taken across it
// stay within its budget, and all but its waste are taken.
func TestRefresh(t *testing.T) {
	const budget, waste = 20, 4
	nodes := opsCluster(t, 3, func(c *service.Config) {
		c.RefreshIdle, c.RefreshEvery = 2, 200*time.Millisecond
		c.Cluster.Quotas = map[string]service.QuotaSpec{"q": {Budget: budget, Waste: waste}}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, b := pb.NewAllotClient(dialRaw(t, nodes[0].addr)), pb.NewAllotClient(dialRaw(t, nodes[1].addr))
	sa, sb := openSession(t, a), openSession(t, b)
	held, err := a.Acquire(ctx, &pb.AcquireRequest{Session: sa, Name: "held", Units: 2})
	if err != nil {
		t.Fatal(err)
	}
	lock, err := a.Lock(ctx, &pb.LockRequest{Session: sa, Resources: []string{"l"}})
	if err != nil {
		t.Fatal(err)
	}
	// take takes a permit: how many it took, and whether to go on. A
	// Take that a view change cuts short (UNAVAILABLE: one more refresh
	// may come while the test takes, as the cluster refreshes at 2 idle
	// objects) has consumed what its ErrorInfo says it took: counted, and
	// the test takes again, as a client does.
	take := func(api pb.AllotClient, sid uint64) (int, bool) {
		t.Helper()
		_, err := api.Take(ctx, &pb.TakeRequest{Session: sid, Name: "q", N: 1})
		switch status.Code(err) {
		case codes.OK:
			return 1, true
		case codes.ResourceExhausted:
			return 0, false
		case codes.Unavailable:
			n, _ := strconv.Atoi(info(err)["taken"])
			t.Logf("a take cut short by a view change (%d taken): %v", n, err)
			return n, true
		}
		t.Fatalf("take: %v", err)
		return 0, false
	}
	taken := 0
	for range budget / 2 {
		k, _ := take(a, sa)
		taken += k
	}
	epoch := metric(t, nodes[1].n, "allot_view_epoch")
	for _, name := range []string{"idle", "idle2", "idle3"} {
		r, err := b.Acquire(ctx, &pb.AcquireRequest{Session: sb, Name: name, Units: 2})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Release(ctx, &pb.ReleaseRequest{Session: sb, Grant: r.Grant}); err != nil {
			t.Fatal(err)
		}
	}
	for metric(t, nodes[1].n, "allot_view_epoch") == epoch {
		if ctx.Err() != nil {
			t.Fatalf("no refresh of epoch %s with 3 idle semaphores", epoch)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := nodes[1].n.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	asked := 0
	for _, on := range nodes {
		if metric(t, on.n, "allot_refreshes_asked_total") != "0" {
			asked++
		}
	}
	if asked == 0 {
		t.Error("the view changed, but no node counts a refresh asked")
	}
	t.Logf("epoch %s -> %s", epoch, metric(t, nodes[1].n, "allot_view_epoch"))

	_, err = b.Acquire(ctx, &pb.AcquireRequest{Session: sb, Name: "held", Units: 3})
	if status.Code(err) != codes.FailedPrecondition || reason(err) != pb.ReasonUnitsMismatch {
		t.Errorf("held (2 units, held across the refresh) with 3 units: %v, want FAILED_PRECONDITION, UNITS_MISMATCH", err)
	}
	r, err := b.Acquire(ctx, &pb.AcquireRequest{Session: sb, Name: "idle", Units: 3})
	if err != nil {
		t.Errorf("idle (2 units, nobody held it at the refresh) with 3 units: %v, want a grant", err)
	} else if _, err := b.Release(ctx, &pb.ReleaseRequest{Session: sb, Grant: r.Grant}); err != nil {
		t.Error(err)
	}
	// The grants held across the refresh are still held: another
	// session's TryLock fails, and their holder gives them back.
	if _, err := b.Lock(ctx, &pb.LockRequest{Session: sb, Resources: []string{"l"}, TryLock: true}); reason(err) != pb.ReasonTaken {
		t.Errorf("TryLock of a lock held across the refresh: %v, want it taken", err)
	}
	for {
		k, more := take(b, sb)
		taken += k
		if !more {
			break
		}
	}
	if taken > budget || taken < budget-waste {
		t.Errorf("%d permits taken across the refresh, want %d to %d", taken, budget-waste, budget)
	}
	if _, err := a.Release(ctx, &pb.ReleaseRequest{Session: sa, Grant: held.Grant}); err != nil {
		t.Errorf("the semaphore held across the refresh: %v", err)
	}
	if _, err := a.Unlock(ctx, &pb.UnlockRequest{Session: sa, Grant: lock.Grant}); err != nil {
		t.Errorf("the lock held across the refresh: %v", err)
	}
}

// info is the metadata of err's google.rpc.ErrorInfo (nil: none).
func info(err error) map[string]string {
	for _, d := range status.Convert(err).Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok && i.Domain == pb.ErrorDomain {
			return i.Metadata
		}
	}
	return nil
}
