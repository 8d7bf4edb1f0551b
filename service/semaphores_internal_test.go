package service

import (
	"context"
	"sync"
	"testing"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// TestFirstUsesReadOnce: many first Acquires of one name at once on a
// node of three read its units from the control log once for all of
// them, so the log gets one entry for the name, not one per Acquire that
// polled before the first was committed (6 for these 200 when each read
// for itself; a thousand at once in a client test polled the control
// host every 2ms each until every node's lease ran out); all of them are
// granted.
func TestFirstUsesReadOnce(t *testing.T) {
	nd := inProcess(t, 3, Config{})[0]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	commit := func() uint64 {
		d, err := nd.ctl.store.Disk()
		if err != nil {
			t.Fatal(err)
		}
		return d.HardState.Commit
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
	before := commit()
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
	// The name's entry, and perhaps one more of the cluster's own (none
	// expected: no view change, no quota taken).
	if got := commit() - before; got > 2 {
		t.Errorf("%d first Acquires of one name at once committed %d control log entries, want 1", acquires, got)
	}
}
