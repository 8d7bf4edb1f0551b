package client_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
)

// TestMillionUnits: a semaphore of a million units on three nodes (far
// past a node's slots, 8 here) serves 1,000 holders at once, each on a
// unit of its own, through sessions on every node, then all of them give
// their units back; the nodes' event logs show no unit held twice and
// every request answered.
func TestMillionUnits(t *testing.T) {
	const (
		units    = 1_000_000
		holders  = 1000
		sessions = 30 // ten on each node
	)
	start := time.Now()
	addrs, stop := cluster(t, 3, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var ss []*client.Session
	for i := range sessions {
		c, err := client.Dial(ctx, addrs[i%len(addrs)])
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
	type held struct {
		sem  *client.Semaphore
		unit string // number and epoch: a unit of its view
	}
	// Fifty callers take the thousand units, twenty each, and keep them.
	// Not a thousand calls at once: the nodes and their clients share one
	// process here, and a thousand runnable goroutines (with the machine
	// loaded by other builds) kept a node's control loop from running for
	// its whole lease once in eight runs; the node then stopped serving,
	// as it must. Separate client processes do not queue ahead of the
	// nodes' goroutines.
	const callers = 50
	got := make([]held, holders)
	errs := make(chan error, holders)
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := c; i < holders; i += callers {
				sem := ss[i%sessions].Semaphore("workers", units)
				g, err := sem.AcquireUnit(ctx)
				if err != nil {
					errs <- fmt.Errorf("holder %d: %w", i, err)
					return
				}
				got[i] = held{sem, fmt.Sprintf("%d@%d", g.Unit(), g.Token("workers").Epoch)}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	acquired := time.Since(start)
	seen := map[string]int{}
	for i, h := range got {
		if j, ok := seen[h.unit]; ok {
			t.Fatalf("holders %d and %d both hold unit %s", j, i, h.unit)
		}
		seen[h.unit] = i
	}
	// All 1,000 are held now: give them back.
	errs = make(chan error, holders)
	for c := range callers {
		wg.Go(func() {
			for i := c; i < holders; i += callers {
				if err := got[i].sem.Release(ctx); err != nil {
					errs <- fmt.Errorf("holder %d: %w", i, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d holders of %d units on 3 nodes: held after %v, all given back after %v", holders, units, acquired.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	for _, s := range ss {
		s.Close(ctx)
	}
	v := verifyLogs(t, stop())
	if v.Answered < holders {
		t.Errorf("the logs show %d grants, want %d", v.Answered, holders)
	}
}

// TestSemaphoresAcrossACrash crashes node 0, the view's first member,
// where a large semaphore's owner lives, while sessions on the other two
// hold units of two semaphores:
//
//   - big, of 12 units (large: at least a node's 4 slots): its holders'
//     grants carry over to the next view, whose owner starts afresh on
//     another node, and it still gives at most 12 units at once — the
//     12th is granted, a 13th waits until a holder gives one back;
//   - small, of 3 units (fewer than the slots: the cluster's semaphore
//     algorithm on them): the unit held across the crash stays held, the
//     other two are granted in the next view, and a fourth waits until a
//     holder gives one back.
func TestSemaphoresAcrossACrash(t *testing.T) {
	c := newCrashable(t, 3)
	const big, small = 12, 3
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s1 := session(t, ctx, c.addrs[1])
	s2 := session(t, ctx, c.addrs[2])
	acquire := func(s *client.Session, name string, units int) *client.Semaphore {
		t.Helper()
		sem := s.Semaphore(name, units)
		if err := sem.Acquire(ctx); err != nil {
			t.Fatalf("%s of %d: %v", name, units, err)
		}
		return sem
	}
	var held1, held2 []*client.Semaphore
	for range 5 {
		held1 = append(held1, acquire(s1, "big", big))
		held2 = append(held2, acquire(s2, "big", big))
	}
	kept := acquire(s1, "small", small)
	c.crash(0)

	// big: the next view's owner knows nothing of the ten held; they are
	// asked again there before it serves, so two more fill it.
	for range 2 {
		held1 = append(held1, acquire(s1, "big", big))
	}
	over, stop := context.WithTimeout(ctx, 500*time.Millisecond)
	err := s2.Semaphore("big", big).Acquire(over)
	stop()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a 13th unit of a semaphore of 12 after its owner's node crashed: %v, want it to wait", err)
	}
	waited := make(chan error, 1)
	last := s2.Semaphore("big", big)
	go func() { waited <- last.Acquire(ctx) }()
	if err := held1[0].Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatalf("the waiting Acquire after a Release: %v", err)
	}
	for _, sem := range append(append(held1[1:], held2...), last) {
		if err := sem.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// small: two more units, one on each node left, then a fourth waits.
	held := []*client.Semaphore{kept, acquire(s1, "small", small), acquire(s2, "small", small)}
	over, stop = context.WithTimeout(ctx, 500*time.Millisecond)
	err = s2.Semaphore("small", small).Acquire(over)
	stop()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a 4th unit of a semaphore of 3 after a crash: %v, want it to wait", err)
	}
	for _, sem := range held {
		if err := sem.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	c.crash(1)
	c.crash(2)
	t.Logf("%v", verifyLogs(t, c.records(t)))
}
