package control

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/allot-dev/allot/proc"
)

var snapQuotas = []Quota{{Name: "a", Budget: 1000, Chunk: 4}, {Name: "b", Budget: 50}}

// history draws entries of a control log, each made from the State it
// will be applied to, so that views open, ledgers fill and close, and
// members come and go: valid entries mostly, and some a State ignores (a
// late ready, a repeated rejoin, a change it refuses).
type history struct {
	rng    *rand.Rand
	counts map[int32][]uint64
	addrs  int
}

func (h *history) next(s *State, index uint64) raftpb.Entry {
	id := func() int32 { return int32(h.rng.IntN(int(s.members.next) + 1)) }
	grow := func(n int32) []uint64 {
		c := h.counts[n]
		if c == nil {
			c = make([]uint64, len(snapQuotas))
		}
		for i := range c {
			c[i] += uint64(h.rng.IntN(4))
		}
		h.counts[n] = c
		return append([]uint64(nil), c...)
	}
	v := s.View()
	member := func() (int32, uint64) {
		if len(v.Members) == 0 {
			return id(), 1
		}
		i := h.rng.IntN(len(v.Members))
		return int32(v.Members[i]), v.Gens[i]
	}
	var m proc.Message
	switch k := h.rng.IntN(20); {
	case k < 4:
		n := id()
		run := s.runs[proc.ID(n)]
		m = RejoinEntry{Node: n, Run: run[0] + uint64(h.rng.IntN(2)), Seq: run[1] + 1, Counts: grow(n)}
	case k < 7:
		var e ViewEntry
		for n := range s.members.next {
			if g := s.gen[n]; g > 0 && h.rng.IntN(4) > 0 {
				e.Members = append(e.Members, int32(n))
				e.Gens = append(e.Gens, g)
			}
		}
		if len(e.Members) == 0 {
			return raftpb.Entry{Index: index}
		}
		e.Wait = int64(h.rng.IntN(100))
		m = e
	case k < 12:
		n, g := member()
		m = ReadyEntry{Epoch: v.Epoch, Node: n, Gen: g, Counts: grow(n)}
	case k < 15:
		n, g := member()
		m = ReportEntry{Epoch: v.Epoch, Node: n, Gen: g, Counts: grow(n)}
	case k < 16:
		n := id()
		run := s.runs[proc.ID(n)]
		m = LeaveEntry{Node: n, Run: run[0], Seq: run[1], Counts: grow(n)}
	case k < 17:
		sem := SemaphoreEntry{Name: fmt.Sprintf("s%d", h.rng.IntN(5)), Units: int32(h.rng.IntN(3))}
		switch h.rng.IntN(3) {
		case 0:
			m = sem
		case 1:
			m = RefreshEntry{Epoch: v.Epoch - uint64(h.rng.IntN(2))}
		default:
			n, g := member()
			m = HoldingEntry{Ready: ReadyEntry{Epoch: v.Epoch, Node: n, Gen: g, Counts: grow(n)}, Sems: []SemaphoreEntry{sem}}
		}
	case k < 19:
		cc := raftpb.ConfChange{Type: raftpb.ConfChangeRemoveNode, NodeID: raftID(proc.ID(id()))}
		if h.rng.IntN(2) == 0 {
			h.addrs++
			cc = raftpb.ConfChange{Type: raftpb.ConfChangeAddNode, NodeID: raftID(s.members.next),
				Context: encodeEntry(MemberEntry{Node: int32(s.members.next), Addr: fmt.Sprintf("n%d", h.addrs)})}
		}
		data, err := cc.Marshal()
		if err != nil {
			panic(err)
		}
		return raftpb.Entry{Index: index, Type: raftpb.EntryConfChange, Data: data}
	default:
		return raftpb.Entry{Index: index} // Raft's own empty entry
	}
	return raftpb.Entry{Index: index, Data: encodeEntry(m)}
}

// applyEntry applies e to s as a Node does.
func applyEntry(t *testing.T, s *State, e raftpb.Entry) {
	t.Helper()
	if e.Type == raftpb.EntryConfChange {
		var cc raftpb.ConfChange
		if err := cc.Unmarshal(e.Data); err != nil {
			t.Fatal(err)
		}
		s.applyConf(cc)
		s.applied = e.Index
		return
	}
	if err := s.Apply(e.Index, e.Data); err != nil {
		t.Fatal(err)
	}
}

// snapshotOf is a snapshot of s as a Node takes it: its configuration is
// the members'.
func snapshotOf(t *testing.T, s *State) raftpb.Snapshot {
	t.Helper()
	data, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	var cs raftpb.ConfState
	for _, m := range s.Members() {
		cs.Voters = append(cs.Voters, raftID(m.ID))
	}
	return raftpb.Snapshot{Data: data, Metadata: raftpb.SnapshotMetadata{Index: s.Applied(), Term: 1, ConfState: cs}}
}

// sameState reports whether a and b are the same State, every field; an
// empty ledger is one, whether it was never filled or emptied.
func sameState(a, b *State) bool {
	x, y := *a, *b
	for _, s := range []*State{&x, &y} {
		if len(s.ledger) == 0 {
			s.ledger = nil
		}
	}
	return reflect.DeepEqual(x, y)
}

// TestSnapshotRoundTrip: over random histories, a State decoded from its
// snapshot is the State (every field), encodes to the same bytes, and,
// fed the rest of the log, stays the State that applied the whole log.
func TestSnapshotRoundTrip(t *testing.T) {
	seed := freshSeed(t)
	for r := range 200 {
		rng := rand.New(rand.NewPCG(seed, uint64(r)))
		h := &history{rng: rng, counts: map[int32][]uint64{}}
		boot := BootstrapAt([]string{"n0", "n1", "n2"})
		whole, err := DecodeState(snapQuotas, boot.Snapshot)
		if err != nil {
			t.Fatal(err)
		}
		var restored *State
		length := 50 + rng.IntN(400)
		at := 2 + uint64(rng.IntN(length))
		for i := uint64(2); i < uint64(length)+2; i++ {
			e := h.next(whole, i)
			applyEntry(t, whole, e)
			if restored != nil {
				applyEntry(t, restored, e)
			}
			if i != at {
				continue
			}
			snap := snapshotOf(t, whole)
			if again := snapshotOf(t, whole); !bytes.Equal(snap.Data, again.Data) {
				t.Fatalf("seed %d run %d: two encodings of one State differ", seed, r)
			}
			restored, err = DecodeState(snapQuotas, snap)
			if err != nil {
				t.Fatalf("seed %d run %d: %v", seed, r, err)
			}
			if !sameState(restored, whole) {
				t.Fatalf("seed %d run %d: restored at %d:\n%+v\nwant\n%+v", seed, r, i, restored, whole)
			}
			if b := snapshotOf(t, restored); !bytes.Equal(b.Data, snap.Data) {
				t.Fatalf("seed %d run %d: the restored State encodes to other bytes", seed, r)
			}
		}
		if !sameState(restored, whole) {
			t.Fatalf("seed %d run %d: after the tail:\n%+v\nwant\n%+v", seed, r, restored, whole)
		}
	}
}

// TestSnapshotHistoriesReachOpenViews: the histories of
// TestSnapshotRoundTrip reach what the round trip must carry (open views
// with quotas left, a ledger, semaphores, members added and removed),
// or the round trip proves little.
func TestSnapshotHistoriesReachOpenViews(t *testing.T) {
	var open, ledger, sems, added, removed int
	for r := range 50 {
		h := &history{rng: rand.New(rand.NewPCG(1, uint64(r))), counts: map[int32][]uint64{}}
		s, err := DecodeState(snapQuotas, BootstrapAt([]string{"n0", "n1", "n2"}).Snapshot)
		if err != nil {
			t.Fatal(err)
		}
		for i := uint64(2); i < 300; i++ {
			applyEntry(t, s, h.next(s, i))
			if o, _ := s.Open(); o {
				open++
			}
			if len(s.ledger) > 1 {
				ledger++
			}
		}
		sems += s.Semaphores()
		if s.members.next > 3 {
			added++
		}
		if len(s.members.addrs) < int(s.members.next) {
			removed++
		}
	}
	if open == 0 || ledger == 0 || sems == 0 || added == 0 || removed == 0 {
		t.Fatalf("open %d, ledger %d, semaphores %d, added %d, removed %d", open, ledger, sems, added, removed)
	}
}

// TestSnapshotRefused: data a node did not encode, or a State at odds
// with the snapshot's configuration, is refused with ErrSnapshot.
func TestSnapshotRefused(t *testing.T) {
	s, err := DecodeState(snapQuotas, BootstrapAt([]string{"n0", "n1", "n2"}).Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	h := &history{rng: rand.New(rand.NewPCG(7, 7)), counts: map[int32][]uint64{}}
	for i := uint64(2); i < 200; i++ {
		applyEntry(t, s, h.next(s, i))
	}
	good := snapshotOf(t, s)
	if _, err := DecodeState(snapQuotas, good); err != nil {
		t.Fatal(err)
	}
	e := StateEntry{Open: true}
	cases := map[string]func(*raftpb.Snapshot){
		"truncated":      func(p *raftpb.Snapshot) { p.Data = p.Data[:len(p.Data)/2] },
		"garbage":        func(p *raftpb.Snapshot) { p.Data = []byte("not a snapshot") },
		"a view entry":   func(p *raftpb.Snapshot) { p.Data = encodeEntry(ViewEntry{Members: []int32{0}, Gens: []uint64{1}}) },
		"extra voter":    func(p *raftpb.Snapshot) { p.Metadata.ConfState.Voters = append(p.Metadata.ConfState.Voters, 60) },
		"missing voter":  func(p *raftpb.Snapshot) { p.Metadata.ConfState.Voters = p.Metadata.ConfState.Voters[1:] },
		"open, no view":  func(p *raftpb.Snapshot) { p.Data = mustEncode(t, withMembers(e, p)) },
		"view past it":   func(p *raftpb.Snapshot) { p.Metadata.Index = s.View().Epoch - 1 },
		"unsorted nodes": func(p *raftpb.Snapshot) { p.Data = mustEncode(t, reversedNodes(t, p)) },
	}
	for name, spoil := range cases {
		p := good
		p.Metadata.ConfState.Voters = append([]uint64(nil), good.Metadata.ConfState.Voters...)
		spoil(&p)
		if _, err := DecodeState(snapQuotas, p); !errors.Is(err, ErrSnapshot) {
			t.Errorf("%s: %v, want ErrSnapshot", name, err)
		}
	}
}

func mustEncode(t *testing.T, e StateEntry) []byte {
	t.Helper()
	b, err := snapshots.AppendMessage(nil, e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withMembers is e with p's members, so that only the rest of e is wrong.
func withMembers(e StateEntry, p *raftpb.Snapshot) StateEntry {
	for _, v := range p.Metadata.ConfState.Voters {
		e.Members.Nodes = append(e.Members.Nodes, int32(procID(v)))
		e.Members.Addrs = append(e.Members.Addrs, "")
	}
	return e
}

// reversedNodes is p's State with its node records in reverse.
func reversedNodes(t *testing.T, p *raftpb.Snapshot) StateEntry {
	t.Helper()
	x, err := snapshots.DecodeMessage(p.Data)
	if err != nil {
		t.Fatal(err)
	}
	e := x.(StateEntry)
	if len(e.Nodes) < 2 {
		t.Fatal("too few nodes to reverse")
	}
	for i, j := 0, len(e.Nodes)-1; i < j; i, j = i+1, j-1 {
		e.Nodes[i], e.Nodes[j] = e.Nodes[j], e.Nodes[i]
	}
	return e
}
