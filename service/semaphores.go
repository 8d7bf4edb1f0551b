package service

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/proc"
)

// checkUnits makes sure semaphore name has units units in the cluster.
// Two clients giving one name different units would otherwise use two
// semaphores without knowing it. The control log records a name's units
// on its first use anywhere (control.SemaphoreEntry: the first entry of a
// name wins); an Acquire with other units is FAILED_PRECONDITION with
// reason UNITS_MISMATCH. A node keeps the units it has read, so only its
// first Acquire of a name waits for the log: one Raft round trip per name
// and node, never on a grant's path.
func (n *Node) checkUnits(ctx context.Context, s *session, name string, units int32) error {
	if u, ok := n.semUnits.Load(name); ok {
		return mismatch(name, u.(int32), units)
	}
	var again time.Time // when to propose (again: a proposal may be lost)
	for {
		if n.draining.Load() {
			return errDraining
		}
		n.ctl.mu.Lock()
		u, ok := n.ctl.node.State().Semaphore(name)
		known := n.ctl.node.State().Semaphores()
		n.ctl.mu.Unlock()
		if ok {
			n.semUnits.Store(name, u)
			return mismatch(name, u, units)
		}
		if known >= n.cfg.MaxSemaphores {
			return n.limitReached("semaphores", "the cluster has its most semaphore names, %d (--max-semaphores): use one of them", n.cfg.MaxSemaphores)
		}
		if now := time.Now(); now.After(again) {
			n.ctl.input(func(proc.Time) error { return n.ctl.node.RecordSemaphore(name, units) })
			again = now.Add(n.cfg.Suspect / 2)
		}
		select {
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		case <-s.done:
			return errExpired
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// mismatch is the error of an Acquire of units of a semaphore of has
// units (nil if they agree).
func mismatch(name string, has, units int32) error {
	if has == units {
		return nil
	}
	return statusError(codes.FailedPrecondition, pb.ReasonUnitsMismatch,
		fmt.Sprintf("semaphore %q has %d units in this cluster (its first use said so), not %d", name, has, units),
		"units", strconv.Itoa(int(has)))
}
