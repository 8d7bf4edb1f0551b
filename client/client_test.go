package client_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/client"
)

func TestLockSemaphoreQuota(t *testing.T) {
	addrs, _ := cluster(t, 3, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.Session(ctx, client.WithTTL(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.Lock(ctx, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	ta := g.Token("a")
	if ta.Counter == 0 {
		t.Fatalf("no token for a: %v", ta)
	}
	// A second grant on the same session is another owner: it waits.
	if _, err := s.TryLock(ctx, "b", "c"); !errors.Is(err, client.ErrLocked) {
		t.Fatalf("TryLock of a held resource on the same session: %v, want ErrLocked", err)
	}
	if err := g.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	g2, err := s.Lock(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if !ta.Less(g2.Token("a")) {
		t.Fatalf("token of a went from %v to %v", ta, g2.Token("a"))
	}
	g2.Unlock(ctx)

	sem := s.Semaphore("pool", 2)
	for range 2 {
		if err := sem.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := sem.TryAcquire(ctx); !errors.Is(err, client.ErrLocked) {
		t.Fatalf("third unit of 2: %v, want ErrLocked", err)
	}
	for range 2 {
		if err := sem.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// The quota q has budget 20 and waste 4: permits until it is
	// exhausted, at least 16 of them and at most 20.
	permits := 0
	for ; permits <= 20; permits++ {
		err := s.Quota("q").Take(ctx, 1)
		if errors.Is(err, client.ErrExhausted) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if permits < 16 || permits > 20 {
		t.Errorf("%d permits of a quota of 20 with waste 4", permits)
	}
	if err := s.Quota("nope").Take(ctx, 1); !errors.Is(err, client.ErrInvalid) {
		t.Errorf("Take of an unknown quota: %v, want ErrInvalid", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	default:
		t.Fatal("Done open after Close")
	}
}

func TestBadInput(t *testing.T) {
	addrs, _ := cluster(t, 1, 0)
	ctx := context.Background()
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Session(ctx, client.WithTTL(0)); !errors.Is(err, client.ErrBadTTL) {
		t.Errorf("TTL 0: %v", err)
	}
	s, err := c.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if _, err := s.Lock(ctx); !errors.Is(err, client.ErrNoResources) {
		t.Errorf("no resources: %v", err)
	}
	if err := s.Semaphore("x", 0).Acquire(ctx); !errors.Is(err, client.ErrBadUnits) {
		t.Errorf("units 0: %v", err)
	}
	if err := s.Semaphore("x", math.MaxInt32+1).Acquire(ctx); !errors.Is(err, client.ErrBadUnits) {
		t.Errorf("units past int32: %v", err)
	}
	// Past the slots (8 here): served, no longer refused.
	sem := s.Semaphore("x", 1000)
	if err := sem.Acquire(ctx); err != nil {
		t.Errorf("a semaphore of 1000 units on one node of 8 slots: %v", err)
	} else if err := sem.Release(ctx); err != nil {
		t.Error(err)
	}
	// "@" ends a semaphore's name in the instance's name on the wire:
	// another node would read another instance. The client refuses it
	// before it is sent (the node would too: service's TestBadInput).
	if err := s.Semaphore("a@b", 1).Acquire(ctx); !errors.Is(err, client.ErrBadName) {
		t.Errorf("a name holding @: %v", err)
	}
	if err := s.Quota("q").Take(ctx, 0); !errors.Is(err, client.ErrBadCount) {
		t.Errorf("take 0: %v", err)
	}
}

// TestUnlockTwice: a second Unlock of a grant is ErrNotHeld, not
// ErrSessionExpired, and the session goes on.
func TestUnlockTwice(t *testing.T) {
	ctx, _, s := oneNode(t)
	g, err := s.Lock(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	err = g.Unlock(ctx)
	if !errors.Is(err, client.ErrNotHeld) || errors.Is(err, client.ErrSessionExpired) {
		t.Fatalf("second Unlock: %v, want ErrNotHeld only", err)
	}
	select {
	case <-s.Done():
		t.Fatal("the session is Done after a second Unlock")
	default:
	}
	g, err = s.Lock(ctx, "a")
	if err != nil {
		t.Fatalf("Lock after a second Unlock: %v", err)
	}
	g.Unlock(ctx)
}

// TestBadNames: the client refuses the names and counts the node refuses
// (service.TestBadInput), before anything is sent, and the node refuses
// each of them too (checked with the raw API).
func TestBadNames(t *testing.T) {
	ctx, addrs, s := oneNode(t)
	cc, err := grpc.NewClient(addrs[0], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	api := pb.NewAllotClient(cc)
	sid := s.ID()
	long := strings.Repeat("é", client.MaxNameBytes/2+1)
	many := make([]string, client.MaxLockNames+1)
	for i := range many {
		many[i] = fmt.Sprint("r", i)
	}
	for _, names := range [][]string{{""}, {"a", long}, {"a\x00"}, many} {
		_, err := s.TryLock(ctx, names...)
		if !errors.Is(err, client.ErrBadName) && !errors.Is(err, client.ErrTooManyNames) {
			t.Errorf("TryLock of %.20q: %v, want ErrBadName or ErrTooManyNames", names, err)
		}
		_, err = api.Lock(ctx, &pb.LockRequest{Session: sid, Resources: names, TryLock: true})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("the node's Lock of %.20q: %v, want INVALID_ARGUMENT", names, err)
		}
	}
	for _, name := range []string{"", "a/b", "a@1", "x\x00", long} {
		if err := s.Semaphore(name, 2).TryAcquire(ctx); !errors.Is(err, client.ErrBadName) {
			t.Errorf("semaphore %.20q: %v, want ErrBadName", name, err)
		}
		_, err := api.Acquire(ctx, &pb.AcquireRequest{Session: sid, Name: name, Units: 2, TryAcquire: true})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("the node's Acquire of %.20q: %v, want INVALID_ARGUMENT", name, err)
		}
	}
	if err := s.Semaphore("s", math.MaxInt32+1).TryAcquire(ctx); !errors.Is(err, client.ErrBadUnits) {
		t.Errorf("units 2^31: %v, want ErrBadUnits", err)
	}
	if err := s.Quota("q").Take(ctx, 21); !errors.Is(err, client.ErrInvalid) {
		t.Errorf("Take beyond the budget: %v, want ErrInvalid", err)
	}
	if err := s.Quota(long).Take(ctx, 1); !errors.Is(err, client.ErrBadName) {
		t.Errorf("Take of a long name: %v, want ErrBadName", err)
	}
}

// TestSemaphoreMismatch: a semaphore's units are those of its first use,
// on any node: an Acquire with other units is ErrMismatch on the same
// node and on another one, and one with the same units goes on.
func TestSemaphoreMismatch(t *testing.T) {
	addrs, _ := cluster(t, 2, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ss []*client.Session
	for _, a := range addrs {
		c, err := client.Dial(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := c.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(ctx)
		ss = append(ss, s)
	}
	if err := ss[0].Semaphore("workers", 2).Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	for i, s := range ss {
		err := s.Semaphore("workers", 3).TryAcquire(ctx)
		var mis *client.MismatchError
		if !errors.Is(err, client.ErrMismatch) || !strings.Contains(err.Error(), "has 2 units") || !errors.As(err, &mis) || mis.Units != 2 {
			t.Errorf("node %d: workers of 3 units after 2: %v, want a *MismatchError saying 2", i, err)
		}
	}
	if err := ss[1].Semaphore("workers", 2).Acquire(ctx); err != nil {
		t.Errorf("node 1: workers of 2 units: %v", err)
	}
	// First use on both nodes at once, with 2 and 3 units: the log
	// orders them, and exactly one is refused. Acquire, not TryAcquire:
	// a TryAcquire gives up after 20 ms, which a loaded machine can take
	// to grant a free unit (ErrLocked, seen under four CPU hogs).
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, s := range ss {
		wg.Go(func() { errs[i] = s.Semaphore("race", 2+i).Acquire(ctx) })
	}
	wg.Wait()
	if errors.Is(errs[0], client.ErrMismatch) == errors.Is(errs[1], client.ErrMismatch) {
		t.Errorf("race of 2 and 3 units: %v and %v, want one ErrMismatch", errs[0], errs[1])
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, client.ErrMismatch) {
			t.Error(err)
		}
	}
}

// TestTakeExhausted: a Take the quota cannot fill returns an
// *ExhaustedError saying how many permits it took (consumed), matched by
// errors.Is(err, ErrExhausted).
func TestTakeExhausted(t *testing.T) {
	ctx, _, s := oneNode(t)
	if err := s.Quota("q").Take(ctx, 14); err != nil { // q: budget 20, waste 4
		t.Fatal(err)
	}
	err := s.Quota("q").Take(ctx, 7)
	var ex *client.ExhaustedError
	if !errors.Is(err, client.ErrExhausted) || !errors.As(err, &ex) || ex.Asked != 7 || ex.Taken < 2 || ex.Taken > 6 {
		t.Fatalf("Take(7) after 14 of 20: %v (%+v), want an ExhaustedError of 2 to 6 of 7 taken", err, ex)
	}
	if err := s.Quota("q").Take(ctx, 1); err != nil && (!errors.As(err, &ex) || ex.Taken != 0 || ex.Asked != 1) {
		t.Fatalf("Take(1) then: %v (%+v), want nil or an ExhaustedError of 0 of 1 taken", err, ex)
	}
}

// oneNode is a one-node cluster and a session on it, for tests of the
// API's answers; ctx ends with the test, 10s at most.
func oneNode(t *testing.T) (context.Context, []string, *client.Session) {
	t.Helper()
	addrs, _ := cluster(t, 1, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := c.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(ctx) })
	return ctx, addrs, s
}
