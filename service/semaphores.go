package service

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/allot-dev/allot/algo"
	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/service/internal/space"
)

// MostSemaphores is the largest Config.MaxSemaphores: a node's ready
// records the units of every semaphore its sessions hold in one control
// log entry (control.HoldingEntry), which must stay well within a codec
// value (codec.MaxSize) at the longest names.
const MostSemaphores = codec.MaxSize / 2 / (MaxNameBytes + 16)

// A semaphore of R units is served one of two ways, by R alone, so that
// every node of the cluster serves a name the same way in every view:
//
//   - R < slots: the cluster's semaphore algorithm (R-RESOURCES by
//     default) on the view's fixed user slots, slots per member (the
//     paper's n > R holds in every view, even of one member). A node
//     serves at most slots of its holders at once; more of its sessions
//     wait for a slot.
//   - R ≥ slots, a large semaphore: central-pool over users made one per
//     open request, as the lock's are (locks.go: placement, reuse), its
//     owner process on the view's first member. Its owner keeps the units
//     never handed out as a count, so memory and start-up grow with the
//     holders, not with R; three messages a grant whatever R. A node
//     serves at most Config.MaxSessions requests of one such semaphore at
//     once (RESOURCE_EXHAUSTED, limit "holders").
//
// The boundary is a node's slots, not the cluster's (nodes × slots, as
// it was), because a node's held grants must find slots in every view:
// a view change asks them again in the new view (regrant) before the node
// reports ready, and nothing serves until every member is ready. A node
// that adopted a lost node's sessions holds their grants beside its own,
// and keeps holding them in the views after (an adopted session stays
// where it was adopted): with fixed slots, up to R grants on one node,
// more than its slots when R ≥ slots, and the view never served while
// their holders held (TestHoldersAdoptedPastTheLimits: no Lock
// granted for as long as the test waited). Below slots a node's grants
// of a semaphore, at most R, always fit.
//
// R-RESOURCES cannot serve a large R anyway: a unit is an object of the
// algorithm, so each process keeps a flag per unit and neighbour and each
// message carries a row of R flags (and R thresholds for the trace), and
// it needs more users than units. docs/service.md has the measured costs.
//
// large reports whether semaphore k is a large one.
func (n *Node) large(k space.Key) bool {
	return k.Kind == algo.Pool && k.Units >= n.c.Slots
}

// lazy reports whether key k's instance makes its processes as they are
// first needed: the lock, and a large semaphore.
func (n *Node) lazy(k space.Key) bool { return k.Kind == algo.Exclusive || n.large(k) }

// semRecord is a semaphore's units as the control log had them when its
// newest view was epoch: good for a grant in that view or an earlier one
// (a refresh after it forgets what nobody holds).
type semRecord struct {
	units int32
	epoch uint64
}

// checkUnits makes sure semaphore key has its units in the cluster, for a
// grant in view st. Two clients giving one name different units would
// otherwise use two semaphores without knowing it. The control log records
// a name's units on its first use (control.SemaphoreEntry: the first entry
// of a name wins) and forgets them at a refresh unless a node's sessions
// hold it (their ready records them again before the refresh view
// serves); an Acquire with other units is FAILED_PRECONDITION with reason
// UNITS_MISMATCH. A node keeps the units it has read until its view moves
// past the log's view it read them in, so only its first Acquire of a name
// in a view reads the log, and only its first since the last refresh
// waits for it: one Raft round trip, never on a grant's path.
//
// It is also where a node holds its semaphores in use to
// Config.MaxSemaphores: a name with no instance in st is refused past it,
// and the refresher is woken to collect the idle ones.
func (n *Node) checkUnits(ctx context.Context, s *session, key space.Key, st *epochState) error {
	name, units := key.Name, int32(key.Units)
	if r, ok := n.semUnits.Load(name); ok && r.(semRecord).epoch >= st.v.Epoch {
		if err := mismatch(name, r.(semRecord).units, units); err != nil {
			return err
		}
		return n.roomFor(key, st)
	}
	if err := n.roomFor(key, st); err != nil {
		return err
	}
	for {
		// One Acquire of the name reads the log (and proposes), the
		// others wait for what it read: a thousand first Acquires of a
		// large semaphore at once would otherwise propose a thousand
		// entries and poll the control host a thousand times each 2ms,
		// starving it until the node's lease ran out.
		r := &unitsRead{done: make(chan struct{})}
		if o, busy := n.semReads.LoadOrStore(name, r); busy {
			o := o.(*unitsRead)
			select {
			case <-o.done:
			case <-ctx.Done():
				return status.FromContextError(ctx.Err()).Err()
			case <-s.done:
				return errExpired
			}
			if !o.ok {
				continue // its reader gave up: read again
			}
			return mismatch(name, o.units, units)
		}
		err := n.readUnits(ctx, s, r, name, units)
		n.semReads.Delete(name)
		close(r.done)
		if err != nil {
			return err
		}
		return mismatch(name, r.units, units)
	}
}

// unitsRead is one read of a semaphore's units from the control log: ok
// and units are set before done is closed (ok false: the reader gave up).
type unitsRead struct {
	done  chan struct{}
	ok    bool
	units int32
}

// readUnits reads semaphore name's units from the control log into r,
// proposing units as the name's first use until the log has an entry for
// it.
func (n *Node) readUnits(ctx context.Context, s *session, r *unitsRead, name string, units int32) error {
	var (
		again    time.Time // when to propose again: a proposal may be lost
		proposed uint64    // the log's view when it was proposed
	)
	for {
		if n.draining.Load() {
			return errDraining
		}
		u, ok, at, open := n.ctl.semaphore(name)
		if ok {
			n.semUnits.Store(name, semRecord{u, at})
			r.ok, r.units = true, u
			return nil
		}
		// Proposed only while the log's view is open (an entry applied
		// before would be dropped: control.SemaphoreEntry), and at once
		// again in a newer view, whose change may have dropped it.
		if now := time.Now(); open && (now.After(again) || at != proposed) {
			n.ctl.recordSemaphore(name, units)
			again, proposed = now.Add(n.cfg.Suspect/2), at
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

// roomFor refuses semaphore key in view st if it has no instance there and
// the node has its most semaphores in use.
func (n *Node) roomFor(key space.Key, st *epochState) error {
	if n.views.built(space.Space{Key: key, View: st.v}) || n.views.semaphores(st.v) < n.cfg.MaxSemaphores {
		return nil
	}
	n.wantRefresh()
	return n.limitReached("semaphores", "this node has its most semaphores in use, %d (--max-semaphores): release some, or try again once the idle ones are collected", n.cfg.MaxSemaphores)
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

// heldSemaphores is the semaphores of held grants, by name: what a node's
// ready records again (control.HoldingEntry).
func heldSemaphores(held []*grant) []control.SemaphoreEntry {
	units := map[string]int32{}
	for _, g := range held {
		if g.key.Kind == algo.Pool {
			units[g.key.Name] = int32(g.key.Units)
		}
	}
	var sems []control.SemaphoreEntry
	for _, name := range slices.Sorted(maps.Keys(units)) {
		sems = append(sems, control.SemaphoreEntry{Name: name, Units: units[name]})
	}
	return sems
}
