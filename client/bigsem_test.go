package client_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
)

// TestMillionUnits: a semaphore of a million units on three nodes (far
// past nodes × slots, 24 here) serves 1,000 holders at once, each on a
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
	got := make([]held, holders)
	errs := make(chan error, holders)
	var wg sync.WaitGroup
	for i := range holders {
		wg.Go(func() {
			sem := ss[i%sessions].Semaphore("workers", units)
			g, err := sem.AcquireUnit(ctx)
			if err != nil {
				errs <- fmt.Errorf("holder %d: %w", i, err)
				return
			}
			got[i] = held{sem, fmt.Sprintf("%d@%d", g.Unit(), g.Token("workers").Epoch)}
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
	for i, h := range got {
		wg.Go(func() {
			if err := h.sem.Release(ctx); err != nil {
				errs <- fmt.Errorf("holder %d: %w", i, err)
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
