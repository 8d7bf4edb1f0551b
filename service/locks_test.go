package service_test

import (
	"context"
	"strings"
	"testing"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/service"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestMaxLocks: with --max-locks 2, a third lock request open at once at
// the node is RESOURCE_EXHAUSTED with reason NODE_LIMIT naming the limit,
// counted; once one is given back, a lock of a new name is granted (the
// idle user is reused, so the node never has more than two).
func TestMaxLocks(t *testing.T) {
	api, nd := apiNode(t, func(c *service.Config) { c.MaxLocks = 2 })
	ctx := context.Background()
	s := openSession(t, api)
	lock := func(name string) (uint64, error) {
		r, err := api.Lock(ctx, &pb.LockRequest{Session: s, Resources: []string{name}})
		if err != nil {
			return 0, err
		}
		return r.Grant, nil
	}
	a, err := lock("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock("b"); err != nil {
		t.Fatal(err)
	}
	_, err = lock("c")
	if status.Code(err) != codes.ResourceExhausted || reason(err) != pb.ReasonLimit || !strings.Contains(err.Error(), "most lock requests open at once, 2 (--max-locks)") {
		t.Fatalf("a third lock of 2: %v, want RESOURCE_EXHAUSTED, NODE_LIMIT, naming --max-locks", err)
	}
	if got := limitRejects(t, nd, "locks"); got != "1" {
		t.Errorf("allot_limit_rejects_total{limit=locks} %s, want 1", got)
	}
	if _, err := api.Unlock(ctx, &pb.UnlockRequest{Session: s, Grant: a}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"c", "d", "e"} { // one user, reused
		// An Unlock answers before the release has run on its user: a
		// Lock at the limit waits for that user to be idle again.
		g, err := lock(name)
		if err != nil {
			t.Fatalf("%s after an Unlock: %v", name, err)
		}
		if _, err := api.Unlock(ctx, &pb.UnlockRequest{Session: s, Grant: g}); err != nil {
			t.Fatal(err)
		}
	}
}
