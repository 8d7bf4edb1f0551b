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

// TestMaxHolders: a large semaphore (8 units or more on this node of 8
// slots) has no slots: more than 8 of its requests are served at once, up
// to --max-sessions, and one more is RESOURCE_EXHAUSTED with reason
// NODE_LIMIT naming the limit, counted; once one is given back, the next
// is granted on the idle user.
func TestMaxHolders(t *testing.T) {
	api, nd := apiNode(t, func(c *service.Config) { c.MaxSessions = 10 })
	ctx := context.Background()
	s := openSession(t, api)
	acquire := func() (uint64, error) {
		r, err := api.Acquire(ctx, &pb.AcquireRequest{Session: s, Name: "big", Units: 1000})
		if err != nil {
			return 0, err
		}
		return r.Grant, nil
	}
	var held []uint64
	for range 10 {
		g, err := acquire()
		if err != nil {
			t.Fatalf("unit %d of 1000 on a node of 8 slots: %v", len(held)+1, err)
		}
		held = append(held, g)
	}
	_, err := acquire()
	if status.Code(err) != codes.ResourceExhausted || reason(err) != pb.ReasonLimit || !strings.Contains(err.Error(), `most requests of semaphore "big" open at once, 10 (--max-sessions)`) {
		t.Fatalf("an 11th request at --max-sessions 10: %v, want RESOURCE_EXHAUSTED, NODE_LIMIT, naming --max-sessions", err)
	}
	if got := limitRejects(t, nd, "holders"); got != "1" {
		t.Errorf("allot_limit_rejects_total{limit=holders} %s, want 1", got)
	}
	if _, err := api.Release(ctx, &pb.ReleaseRequest{Session: s, Grant: held[0]}); err != nil {
		t.Fatal(err)
	}
	if _, err := acquire(); err != nil {
		t.Fatalf("after a Release: %v", err)
	}
}
