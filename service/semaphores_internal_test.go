package service

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/allot-dev/allot/algo"
	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
)

// TestFirstUsesReadOnce: many first Acquires of one name at once on a
// node of three read its units from the control log once for all of
// them, so the node's log gets one entry for the name, not one per
// Acquire that polled before the first was applied (15 and 200 of these
// 200 in two runs when each read for itself; a thousand at once in a
// client test polled the control host every 2ms each until every node's
// lease ran out); all of them are granted.
func TestFirstUsesReadOnce(t *testing.T) {
	nd := inProcess(t, 3, Config{})[0]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The log's entries are read back with a codec of the one entry
	// type counted (the others do not decode with it).
	dec, err := codec.New(algo.Algorithm{Name: "semaphore entries", Messages: []proc.Message{control.SemaphoreEntry{}}})
	if err != nil {
		t.Fatal(err)
	}
	// proposals counts the name's entries in the node's log.
	proposals := func() int {
		d, err := nd.ctl.store.Disk()
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for _, e := range d.Entries {
			if m, err := dec.DecodeMessage(e.Data); err == nil && m.(control.SemaphoreEntry).Name == "first" {
				k++
			}
		}
		return k
	}
	const acquires = 200
	sessions := make([]uint64, acquires)
	for i := range sessions {
		r, err := nd.OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 20000})
		if err != nil {
			t.Fatal(err)
		}
		sessions[i] = r.Session
	}
	errs := make(chan error, acquires)
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(func() {
			_, err := nd.Acquire(ctx, &pb.AcquireRequest{Session: s, Name: "first", Units: 1000})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := proposals(); got != 1 {
		t.Errorf("%d first Acquires of one name at once put %d entries for it in the control log, want 1", acquires, got)
	}
}
