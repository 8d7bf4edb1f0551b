package control

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// The data of a snapshot a node takes of its State (Compaction, in the
// package doc): every map a slice sorted by its key, so that two nodes
// that applied the same entries take the same bytes.
type (
	// StateEntry is a snapshot's data: the State as applied up to the
	// snapshot's index.
	StateEntry struct {
		Members MembersEntry // the configuration: ids, addresses, next id
		Nodes   []NodeRecord // every node the log has a rejoin of, by id
		View    ViewEntry    // the newest view (Members nil: none yet)
		Epoch   uint64       // its epoch
		Ready   []CountsRecord
		Open    bool
		Lefts   []LeftRecord // what the open view may issue, per quota
		Ledger  []LedgerRecord
		Closed  []uint64
		Sems    []SemaphoreEntry // by name
	}
	// NodeRecord is a node's generation and its last run, and whether
	// that run left (a leave of run (0, 0) of a node that never rejoined
	// is applied, too: Gen 0).
	NodeRecord struct {
		Node     int32
		Gen      uint64
		Run, Seq uint64
		Left     bool
	}
	// CountsRecord is a member's counts when it was ready in the newest
	// view.
	CountsRecord struct {
		Node   int32
		Counts []uint64
	}
	// LeftRecord is a QuotaLeft.
	LeftRecord struct {
		Name          string
		Left, Reserve uint64
	}
	// LedgerRecord is a view of the quota ledger.
	LedgerRecord struct {
		Epoch   uint64
		Members []LedgerMember // by id
		Known   []uint64
		Left    []uint64
	}
	// LedgerMember is a member of a ledger view: its counts when the view
	// opened, as of its last report in it, and whether it ended it.
	LedgerMember struct {
		Node     int32
		Start    []uint64
		Reported []uint64
		Ended    bool
	}
)

func (StateEntry) Kind() string { return "state" }

// snapshots is the codec of snapshot data: a StateEntry, or the
// bootstrap snapshot's MembersEntry.
var snapshots = mustCodec(algo.Algorithm{Name: "control-snapshot", Messages: []proc.Message{StateEntry{}, MembersEntry{}}})

// ErrSnapshot marks snapshot data a node cannot restore: not what a node
// encodes, or inconsistent with its configuration.
var ErrSnapshot = errors.New("control: malformed snapshot")

// Encode is the snapshot data of s: deterministic bytes, the same for
// every State that applied the same entries. It fails only if the state
// is beyond the codec's bound on a value (codec.MaxSize).
func (s *State) Encode() ([]byte, error) {
	e := StateEntry{
		Members: MembersEntry{Next: int32(s.members.next)},
		View:    ViewEntry{Gens: s.view.Gens, Wait: int64(s.view.Wait)},
		Epoch:   s.view.Epoch,
		Open:    s.open,
		Closed:  s.closed,
	}
	for _, m := range s.members.list() {
		e.Members.Nodes = append(e.Members.Nodes, int32(m.ID))
		e.Members.Addrs = append(e.Members.Addrs, m.Addr)
	}
	nodes := maps.Clone(s.left)
	for id := range s.gen { // any order: into a map, read back sorted
		nodes[id] = s.left[id]
	}
	for _, id := range slices.Sorted(maps.Keys(nodes)) {
		r := s.runs[id]
		e.Nodes = append(e.Nodes, NodeRecord{Node: int32(id), Gen: s.gen[id], Run: r[0], Seq: r[1], Left: s.left[id]})
	}
	e.View.Members = ids32(s.view.Members)
	for _, id := range slices.Sorted(maps.Keys(s.ready)) {
		e.Ready = append(e.Ready, CountsRecord{Node: int32(id), Counts: s.starts[id]})
	}
	for _, l := range s.lefts {
		e.Lefts = append(e.Lefts, LeftRecord(l))
	}
	for _, lv := range s.ledger {
		r := LedgerRecord{Epoch: lv.epoch, Known: lv.known, Left: lv.left}
		for _, m := range lv.members {
			r.Members = append(r.Members, LedgerMember{Node: int32(m), Start: lv.start[m], Reported: lv.reported[m], Ended: lv.ended[m]})
		}
		e.Ledger = append(e.Ledger, r)
	}
	for _, name := range slices.Sorted(maps.Keys(s.sems)) {
		e.Sems = append(e.Sems, SemaphoreEntry{Name: name, Units: s.sems[name]})
	}
	b, err := snapshots.AppendMessage(nil, e)
	if err != nil {
		return nil, fmt.Errorf("control: encoding a snapshot at %d: %w", s.applied, err)
	}
	return b, nil
}

// DecodeState is the State a snapshot holds, for a cluster of these
// quotas: the state its data was encoded from (State.Encode), applied up
// to the snapshot's index; or, for the bootstrap snapshot (its data a
// MembersEntry, or none), the state before any entry with its members. The
// configuration it holds must be the snapshot's (ErrSnapshot if not).
func DecodeState(quotas []Quota, snap raftpb.Snapshot) (*State, error) {
	s := NewState(quotas)
	s.applied = snap.Metadata.Index
	bad := func(f string, a ...any) (*State, error) {
		return nil, fmt.Errorf("%w at %d: %s", ErrSnapshot, snap.Metadata.Index, fmt.Sprintf(f, a...))
	}
	voters := map[proc.ID]bool{}
	for _, v := range snap.Metadata.ConfState.Voters {
		voters[procID(v)] = true
		s.members.addrs[procID(v)] = ""
		s.members.next = max(s.members.next, procID(v)+1)
	}
	if len(snap.Data) == 0 {
		return s, nil // a bootstrap snapshot without addresses
	}
	x, err := snapshots.DecodeMessage(snap.Data)
	if err != nil {
		return bad("%v", err)
	}
	var e StateEntry
	switch x := x.(type) {
	case MembersEntry:
		e.Members = x // the bootstrap snapshot: the members only
	case StateEntry:
		e = x
		if len(x.Members.Nodes) != len(voters) {
			return bad("%d members, %d voters", len(x.Members.Nodes), len(voters))
		}
	}
	m := e.Members
	if len(m.Nodes) != len(m.Addrs) || !increasing(m.Nodes) {
		return bad("malformed members")
	}
	for i, id := range m.Nodes {
		if !voters[proc.ID(id)] {
			return bad("member %d is not a voter", id)
		}
		s.members.addrs[proc.ID(id)] = m.Addrs[i]
	}
	s.members.next = max(s.members.next, proc.ID(m.Next))
	if _, ok := x.(StateEntry); !ok {
		return s, nil
	}
	if err := s.restore(e); err != nil {
		return bad("%v", err)
	}
	return s, nil
}

// restore sets s to what e says (the members apart), checking it could be
// a State's: its lists sorted, its views' members and counts consistent.
func (s *State) restore(e StateEntry) error {
	for i, r := range e.Nodes {
		id := proc.ID(r.Node)
		if r.Gen == 0 && (!r.Left || r.Run != 0 || r.Seq != 0) || i > 0 && e.Nodes[i-1].Node >= r.Node {
			return fmt.Errorf("node %d: out of order, or neither a rejoin nor a leave", id)
		}
		if r.Gen > 0 {
			s.gen[id], s.runs[id] = r.Gen, [2]uint64{r.Run, r.Seq}
		}
		if r.Left {
			s.left[id] = true
		}
	}
	v := e.View
	if len(v.Members) != len(v.Gens) || !increasing(v.Members) || (e.Epoch == 0) != (len(v.Members) == 0) || e.Epoch > s.applied {
		return errors.New("malformed view")
	}
	if e.Epoch > 0 {
		s.view = View{Epoch: e.Epoch, Members: ids(v.Members), Gens: slices.Clone(v.Gens), Wait: proc.Time(v.Wait)}
	}
	for _, r := range e.Ready {
		id := proc.ID(r.Node)
		if _, in := slices.BinarySearch(s.view.Members, id); !in || s.ready[id] {
			return fmt.Errorf("ready %d: not a member, or repeated", id)
		}
		s.ready[id], s.starts[id] = true, s.counts(r.Counts)
	}
	s.open = e.Open
	if s.open != (len(s.ready) == len(s.view.Members) && s.view.Epoch > 0) {
		return errors.New("open, not every member ready (or the reverse)")
	}
	if s.open {
		// Fitted to the quotas, as counts are (a node given another
		// quota list: a quota the snapshot has not has nothing left).
		s.lefts = make([]QuotaLeft, len(s.quotas))
		for i, q := range s.quotas {
			s.lefts[i] = QuotaLeft{Name: q.Name}
			if i < len(e.Lefts) {
				s.lefts[i] = QuotaLeft(e.Lefts[i])
			}
		}
	} else if len(e.Lefts) > 0 {
		return errors.New("quotas left of a view not open")
	}
	var last uint64
	for _, r := range e.Ledger {
		if r.Epoch <= last || r.Epoch > s.applied {
			return fmt.Errorf("ledger view %d out of order", r.Epoch)
		}
		last = r.Epoch
		lv := &ledgerView{
			epoch: r.Epoch, start: map[proc.ID][]uint64{}, reported: map[proc.ID][]uint64{}, ended: map[proc.ID]bool{},
			known: s.counts(r.Known), left: s.counts(r.Left),
		}
		for _, m := range r.Members {
			id := proc.ID(m.Node)
			if n := len(lv.members); n > 0 && lv.members[n-1] >= id {
				return fmt.Errorf("ledger view %d: members out of order", r.Epoch)
			}
			lv.members = append(lv.members, id)
			lv.start[id], lv.reported[id] = s.counts(m.Start), s.counts(m.Reported)
			if m.Ended {
				lv.ended[id] = true
			}
		}
		if r.Epoch == s.view.Epoch {
			// The newest view's ledger entry shares its members, as
			// openView made it.
			if !slices.Equal(lv.members, s.view.Members) {
				return fmt.Errorf("ledger view %d: not the view's members", r.Epoch)
			}
			lv.members = s.view.Members
		}
		s.ledger = append(s.ledger, lv)
	}
	s.closed = s.counts(e.Closed)
	for i, sem := range e.Sems {
		if sem.Units <= 0 || i > 0 && e.Sems[i-1].Name >= sem.Name {
			return fmt.Errorf("semaphore %q: no units, or out of order", sem.Name)
		}
		s.sems[sem.Name] = sem.Units
	}
	return nil
}

// increasing reports whether ids are sorted, without repeats.
func increasing(ids []int32) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= ids[i] {
			return false
		}
	}
	return true
}

func ids32(ids []proc.ID) []int32 {
	var out []int32
	for _, id := range ids {
		out = append(out, int32(id))
	}
	return out
}

func ids(ids []int32) []proc.ID {
	var out []proc.ID
	for _, id := range ids {
		out = append(out, proc.ID(id))
	}
	return out
}
