package service_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// TestHolders: Holders lists a lock's holders with the Lock's answer
// (session, grant, token, every name of the grant), a semaphore's apart
// from a lock of the same name, one session's alone when asked, nobody
// once given back; a bad name is INVALID_ARGUMENT, BAD_INPUT.
func TestHolders(t *testing.T) {
	api, _ := apiNode(t, nil)
	ctx := context.Background()
	s1, s2 := openSession(t, api), openSession(t, api)
	before := time.Now().Add(-time.Second)
	lk, err := api.Lock(ctx, &pb.LockRequest{Session: s1, Resources: []string{"x", "a", "x"}})
	if err != nil {
		t.Fatal(err)
	}
	sem, err := api.Acquire(ctx, &pb.AcquireRequest{Session: s2, Name: "x", Units: 2})
	if err != nil {
		t.Fatal(err)
	}
	holders := func(name string, semaphore bool, sid uint64) []*pb.Holder {
		t.Helper()
		r, err := api.Holders(ctx, &pb.HoldersRequest{Name: name, Semaphore: semaphore, Session: sid})
		if err != nil {
			t.Fatalf("Holders(%q, semaphore %v, session %d): %v", name, semaphore, sid, err)
		}
		return r.Holders
	}
	h := holders("x", false, 0)
	if len(h) != 1 || h[0].Session != s1 || h[0].Grant != lk.Grant || strings.Join(h[0].Resources, ",") != "a,x" ||
		h[0].Token.GetResource() != "x" || h[0].Token.GetCounter() != lk.Tokens[0].Counter || h[0].Token.GetEpoch() != lk.Tokens[0].Epoch ||
		time.UnixMilli(h[0].SinceUnixMs).Before(before) {
		t.Fatalf("holders of lock x: %v; want session %d's grant %d of a,x with token %v", h, s1, lk.Grant, lk.Tokens[0])
	}
	h = holders("x", true, 0)
	if len(h) != 1 || h[0].Session != s2 || h[0].Grant != sem.Grant || h[0].Unit != sem.Unit || h[0].Token.GetResource() != sem.Token.GetResource() {
		t.Fatalf("holders of semaphore x: %v; want session %d's grant %d, unit %d", h, s2, sem.Grant, sem.Unit)
	}
	if h := holders("x", true, s1); len(h) != 0 {
		t.Fatalf("session %d's holders of semaphore x: %v; want none", s1, h)
	}
	if h := holders("a", false, s1); len(h) != 1 || h[0].Grant != lk.Grant {
		t.Fatalf("session %d's holders of lock a: %v; want grant %d", s1, h, lk.Grant)
	}
	if _, err := api.Unlock(ctx, &pb.UnlockRequest{Session: s1, Grant: lk.Grant}); err != nil {
		t.Fatal(err)
	}
	if h := holders("x", false, 0); len(h) != 0 {
		t.Fatalf("holders of lock x once unlocked: %v; want none", h)
	}
	for _, bad := range []*pb.HoldersRequest{{Name: ""}, {Name: "a/b", Semaphore: true}, {Name: strings.Repeat("n", 257)}} {
		_, err := api.Holders(ctx, bad)
		if status.Code(err) != codes.InvalidArgument || reason(err) != pb.ReasonBadInput {
			t.Errorf("Holders(%q, semaphore %v): %v; want INVALID_ARGUMENT, BAD_INPUT", bad.Name, bad.Semaphore, err)
		}
	}
}
