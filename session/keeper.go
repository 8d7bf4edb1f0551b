package session

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/allot-dev/allot/proc"
)

// Run is a primary's run: its node and its generation in the views.
type Run struct {
	Node int
	Gen  uint64
}

// Grant is a held grant as a record carries it: enough to ask for it
// again in a new view, with its token.
type Grant struct {
	ID      uint64
	Key     string   // the instance key ("lock", "sem/NAME/UNITS")
	Names   []string // a lock's names (a name has another id in every view)
	Epoch   uint64
	Counter uint64
	Unit    int32 // a semaphore's unit in view Epoch: the one its token names
	// Call is the client's number of the request the grant answers (0:
	// none): an adopter answers that request asked again with this grant.
	Call uint64
}

// Record is a session as its primary recorded it at its backup.
type Record struct {
	ID    uint64
	TTL   time.Duration
	Seq   uint64 // orders the records of one session: the newest replaces the rest
	Ended bool   // closed or run out at the primary: forget it
	// Left: the time the session had left when the record was made
	// (RecordEnd, Left), counted by the backup from when it gets it (the
	// nodes' clocks differ); zero from a primary that sends none.
	Left   time.Duration
	Grants []Grant
}

// Keeper is what a node keeps as the backup of other nodes' sessions:
// for each primary run, its sessions' newest records as of the newest
// view it recorded them in, and until when each is to be kept if
// adopted.
type Keeper struct {
	of map[Run]*kept
	// gone: runs whose sessions were taken over or dropped; a record of
	// theirs still on its way is refused, not kept again.
	gone map[Run]bool
	// left: runs that moved their backup away from this node, and the
	// view that moved it; a record made in an older view, still on its
	// way, is refused.
	left map[Run]uint64
	// gen: this node's generation in the view it adopted last (0: none
	// yet); stopped: it stopped serving since (Stop). Records are kept
	// only for the generation the node serves as (Admit).
	gen     uint64
	stopped bool
}

// Admit is what a backup does with records made for one of its
// generations (Keeper.Admit).
type Admit uint8

const (
	// AdmitKeep: made for the generation the node serves as, or naming
	// none (a primary of an earlier version): Keep them.
	AdmitKeep Admit = iota
	// AdmitLater: made for a later generation, which the node has not
	// taken on yet (the primary adopted the view that names it first):
	// held until Serve reaches it.
	AdmitLater
	// AdmitDrop: made for an earlier generation, or the node stopped
	// serving since it took this one on: neither kept nor answered. A
	// restarted process at the same address, or a node that rejoined, is
	// not the backup the records were made for: kept, they would be
	// adopted in a later view that names it the successor of a lost
	// primary run, stale. The primary's view moves its backup and records
	// again.
	AdmitDrop
)

// Admit says what to do with records made for this node's generation to
// (0: the primary names none).
func (k *Keeper) Admit(to uint64) Admit {
	switch {
	case to == 0:
		return AdmitKeep
	case to > k.gen:
		return AdmitLater
	case to < k.gen || k.stopped:
		return AdmitDrop
	}
	return AdmitKeep
}

// Serve makes gen the generation the node keeps records for (the one it
// has in a view it adopted; never an older one), and ends a Stop.
func (k *Keeper) Serve(gen uint64) {
	k.gen, k.stopped = max(k.gen, gen), false
}

// Stop forgets every record, and drops those that come until the node
// serves again (Serve): it stopped serving, and what its generation kept
// is no promise of the next one's — the views meanwhile move its
// primaries' backups elsewhere (their later records, their ends, are
// there), while a view that still lists a primary's lost run may name
// this node its successor.
func (k *Keeper) Stop() {
	gen := k.gen
	*k = *NewKeeper()
	k.gen, k.stopped = gen, true
}

// kept is one primary run's sessions.
type kept struct {
	epoch    uint64
	sessions map[uint64]Record
	// until: when each session is to end if adopted, by this node's
	// clock: its newest record's Left from when it came (none from a
	// primary that sends no Left: a fresh TTL then).
	until map[uint64]Time
}

// NewKeeper is a keeper that keeps nothing yet.
func NewKeeper() *Keeper {
	return &Keeper{of: map[Run]*kept{}, gone: map[Run]bool{}, left: map[Run]uint64{}}
}

// Keep takes, at now, the records recs that run made in view epoch;
// forget first drops whatever was kept of run before (the first records
// of a run at this backup: a node that was its backup once, left the
// view and came back, keeps records since grown stale). A record older
// than one kept (by Seq) is ignored: records may come again after a
// broken stream. False if it refused them all: the keeper took run over
// (or dropped it) already, or run moved its backup away in a view newer
// than epoch; the primary must not count them as recorded (an end
// refused may belong to a session adopted meanwhile).
func (k *Keeper) Keep(now Time, run Run, epoch uint64, forget bool, recs []Record) bool {
	if k.gone[run] || epoch < k.left[run] {
		return false
	}
	kp := k.of[run]
	if forget {
		delete(k.of, run)
		kp = nil
	}
	if len(recs) == 0 {
		return true
	}
	if kp == nil {
		kp = &kept{sessions: map[uint64]Record{}, until: map[uint64]Time{}}
		k.of[run] = kp
	}
	kp.epoch = max(kp.epoch, epoch)
	for _, r := range recs {
		if old, ok := kp.sessions[r.ID]; ok && old.Seq >= r.Seq {
			continue // a record sent before one kept already
		}
		delete(kp.until, r.ID)
		if r.Ended {
			delete(kp.sessions, r.ID)
			continue
		}
		kp.sessions[r.ID] = r
		if r.Left > 0 {
			kp.until[r.ID] = now.Add(r.Left)
		}
	}
	if len(kp.sessions) == 0 {
		delete(k.of, run)
	}
	return true
}

// Keeps reports whether the keeper keeps session id, for which primary,
// and until when it would keep it if it adopted it (zero: a fresh TTL
// from the adoption).
// Should two runs keep it (one adopted it from the other, whose records
// this node has not dropped yet), the one recorded in the newer view
// answers, then the later generation, then the lower node: one answer
// every time, never the map's order.
func (k *Keeper) Keeps(id uint64) (primary int, until Time, ok bool) {
	var best *kept
	var at Run
	for run, kp := range k.of { // any order: the best by a total order
		if _, has := kp.sessions[id]; !has {
			continue
		}
		if best == nil || cmp.Or(cmp.Compare(kp.epoch, best.epoch), cmp.Compare(run.Gen, at.Gen), cmp.Compare(at.Node, run.Node)) > 0 {
			best, at = kp, run
		}
	}
	if best == nil {
		return -1, 0, false
	}
	return at.Node, best.until[id], true
}

// View is a view of the cluster as the records' rules read it: its
// epoch, its members by id in order, and each one's generation (a
// control.View's, passed on by the driver: the client, which takes the
// lease rule from this package, does not link the control plane).
type View struct {
	Epoch   uint64
	Members []proc.ID
	Gens    []uint64
}

// Has reports whether node id serves in v as generation gen.
func (v View) Has(id proc.ID, gen uint64) bool {
	i, ok := slices.BinarySearch(v.Members, id)
	return ok && v.Gens[i] == gen
}

// Successor is the first member of v after node p in the ring of v's
// members by id (-1 if v has no member but p): p's backup while p is a
// member, and the node that adopts p's sessions once v leaves p out.
func Successor(p int, v View) int {
	for _, m := range v.Members {
		if int(m) > p {
			return int(m)
		}
	}
	if len(v.Members) > 0 && int(v.Members[0]) != p {
		return int(v.Members[0])
	}
	return -1
}

// Adoption is a session this node adopts: its newest record, and its
// lease (Adopt: the deadline the record gave it).
type Adoption struct {
	Run    Run
	Record Record
	Lease  Lease
}

// TakeOver is what a view change does to the records a node keeps: the
// sessions it adopts, by run (Adopted: how many of each run), and the
// runs whose records it drops because it was not their last backup
// (Dropped: how many sessions each had). Runs come in order.
type TakeOver struct {
	Adopt   []Adoption
	Adopted []Count
	Dropped []Count
}

// Count is a number of sessions of a run.
type Count struct {
	Run      Run
	Sessions int
}

// TakeOver is what node self does, at now, with the records it keeps
// when it adopts view v, which replaced prev. A run v has whose backup in
// v is another node: its records are dropped (they grow stale: sessions
// end, grants go back, recorded elsewhere), and a record of it made in
// an older view than v is refused from then on. A run v leaves out, in a
// view newer than its last records: it serves no more (a run once out
// never comes back: it rejoins as a new generation); its sessions are
// adopted if self was its backup in prev (the run was there, and
// recorded here last), each with the deadline its record gave it, and
// dropped otherwise (another member was its last backup, or this node
// moved on from a snapshot past prev and cannot know); either way a
// record of it still on its way is refused.
func (k *Keeper) TakeOver(now Time, self int, v, prev View) TakeOver {
	var out TakeOver
	runs := slices.SortedFunc(maps.Keys(k.of), func(a, b Run) int {
		return cmp.Or(cmp.Compare(a.Node, b.Node), cmp.Compare(a.Gen, b.Gen))
	})
	for _, run := range runs {
		kp := k.of[run]
		if v.Epoch <= kp.epoch {
			continue // records of a newer view than v
		}
		if v.Has(proc.ID(run.Node), run.Gen) {
			if Successor(run.Node, v) != self {
				delete(k.of, run)
				k.left[run] = v.Epoch
			}
			continue
		}
		delete(k.of, run)
		k.gone[run] = true
		n := Count{run, len(kp.sessions)}
		if !prev.Has(proc.ID(run.Node), run.Gen) || Successor(run.Node, prev) != self {
			out.Dropped = append(out.Dropped, n)
			continue
		}
		out.Adopted = append(out.Adopted, n)
		for _, id := range slices.Sorted(maps.Keys(kp.sessions)) {
			r := kp.sessions[id]
			out.Adopt = append(out.Adopt, Adoption{Run: run, Record: r, Lease: Adopt(now, r.TTL, kp.until[id])})
		}
	}
	return out
}
