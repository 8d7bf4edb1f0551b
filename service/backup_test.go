package service

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/backuppb"
)

func keeping(k *keeper, id uint64) bool {
	_, _, ok := k.keeps(id)
	return ok
}

func view(epoch uint64, members map[int]uint64) control.View {
	v := control.View{Epoch: epoch}
	for m := range members {
		v.Members = append(v.Members, proc.ID(m))
	}
	slices.Sort(v.Members)
	for _, m := range v.Members {
		v.Gens = append(v.Gens, members[int(m)])
	}
	return v
}

// TestTakeOver: a node adopts the sessions it keeps for a primary run only
// in a view newer than the run's records that leaves the run out, and
// only as the run's backup in the view before; the grants come with their
// tokens.
func TestTakeOver(t *testing.T) {
	n := &Node{self: 2, log: slog.New(slog.DiscardHandler), keeper: newKeeper(), sessions: sessionTable{byID: map[uint64]*session{}}, expiry: newExpiry(), metrics: newMetrics()}
	keep := func(primary int, gen, epoch, id uint64) {
		n.keeper.keep(&backuppb.KeepRequest{Primary: int32(primary), Gen: gen, Epoch: epoch, Sessions: []*backuppb.Session{{
			Id: id, TtlMs: 1000, Seq: 1, Grants: []*backuppb.Grant{{Id: id + 100, Key: "lock", Names: []string{"a/b"}, Epoch: epoch, Counter: 9}},
		}}}, nil)
	}
	keep(1, 3, 5, 71) // node 1, run 3, recorded in view 5
	keep(0, 2, 5, 72) // node 0, run 2: node 2 is not its successor once node 1 is back

	// A view no newer than the records, without the run: they may
	// predate the run's first view.
	v5 := view(5, map[int]uint64{0: 2, 2: 1})
	if got := n.takeOver(v5, view(4, map[int]uint64{0: 2, 1: 3, 2: 1})); len(got) != 0 {
		t.Fatalf("adopted %d sessions in the records' own view", len(got))
	}
	// A newer view with the run: nothing to adopt.
	v6 := view(6, map[int]uint64{0: 2, 1: 3, 2: 1})
	if got := n.takeOver(v6, v5); len(got) != 0 {
		t.Fatalf("adopted %d sessions of runs still in the view", len(got))
	}
	// Node 1 back as a new run, node 0's run gone: node 2 adopts node 1's
	// (it was its backup in view 6) and drops node 0's (node 1 was).
	got := n.takeOver(view(7, map[int]uint64{0: 4, 1: 4, 2: 1}), v6)
	if len(got) != 1 || got[0].id != 71 {
		t.Fatalf("adopted %v, want session 71 alone", got)
	}
	g := got[0].grants.Get(171)
	if g == nil || !g.held() || g.epoch != 5 || g.counter != 9 || g.key.String() != "lock" || !slices.Equal(g.names, []string{"a/b"}) {
		t.Fatalf("the adopted grant: %+v, want held, token 5.9, lock of name a/b", g)
	}
	if n.sessions.get(71) == nil || n.sessions.get(72) != nil {
		t.Fatal("the session table does not hold session 71 alone")
	}
	if keeping(n.keeper, 71) || keeping(n.keeper, 72) {
		t.Fatal("sessions still kept after the view that left their runs out")
	}
	// Taken over once: a late record of the run is refused.
	keep(1, 3, 5, 73)
	if keeping(n.keeper, 73) {
		t.Fatal("a late record of an adopted run was kept")
	}
}

// TestKeeperLeft: a node that is no longer a primary's backup (the view
// has the primary's run, and another node after it) drops what it kept of
// that run, and refuses its records of older views still on their way:
// kept, they would grow stale (sessions ended and grants given back are
// recorded at the new backup only), and a later view that loses the
// primary and its new backup at once would have this node adopt them.
func TestKeeperLeft(t *testing.T) {
	n := &Node{self: 3, log: slog.New(slog.DiscardHandler), keeper: newKeeper(), sessions: sessionTable{byID: map[uint64]*session{}}, expiry: newExpiry(), metrics: newMetrics()}
	keep := func(epoch, id uint64) {
		n.keeper.keep(&backuppb.KeepRequest{Primary: 1, Gen: 3, Epoch: epoch, Sessions: []*backuppb.Session{{Id: id, TtlMs: 1000, Seq: 1}}}, nil)
	}
	keep(5, 71) // node 3 is node 1's backup in view 5 (members 1 and 3)
	v5 := view(5, map[int]uint64{1: 3, 3: 1})
	if got := n.takeOver(v5, view(4, map[int]uint64{1: 3})); len(got) != 0 || !keeping(n.keeper, 71) {
		t.Fatalf("node 1's backup in view 5: adopted %d, keeping session 71: %v", len(got), keeping(n.keeper, 71))
	}
	// View 6 puts node 2 between: it is node 1's backup now.
	if got := n.takeOver(view(6, map[int]uint64{1: 3, 2: 1, 3: 1}), v5); len(got) != 0 || keeping(n.keeper, 71) {
		t.Fatalf("no longer node 1's backup in view 6: adopted %d, still keeping session 71: %v", len(got), keeping(n.keeper, 71))
	}
	keep(5, 72) // a record of view 5 still on its way
	if keeping(n.keeper, 72) {
		t.Fatal("a record of a view before the backup moved away was kept")
	}
	// Node 3 its backup again in a later view: kept.
	keep(8, 73)
	if !keeping(n.keeper, 73) {
		t.Fatal("a record of a later view was refused")
	}
}

// TestTakeOverByTheLastBackup: the sessions of a lost primary are adopted
// by its backup in the view before the one that leaves it out, wherever
// it stands in the new view; a node that kept them in an older view, and
// was away when the backup moved, drops what it kept (give-backs and ends
// went to the other), as does one that does not know the view before.
func TestTakeOverByTheLastBackup(t *testing.T) {
	newNode := func(self int) *Node {
		return &Node{self: self, log: slog.New(slog.DiscardHandler), keeper: newKeeper(), sessions: sessionTable{byID: map[uint64]*session{}}, expiry: newExpiry(), metrics: newMetrics()}
	}
	keep := func(n *Node, epoch uint64, grants ...uint64) {
		s := &backuppb.Session{Id: 71, TtlMs: 1000, Seq: epoch}
		for _, g := range grants {
			s.Grants = append(s.Grants, &backuppb.Grant{Id: g, Key: "lock", Names: []string{"a"}, Epoch: epoch, Counter: 9})
		}
		n.keeper.keep(&backuppb.KeepRequest{Primary: 1, Gen: 3, Epoch: epoch, Sessions: []*backuppb.Session{s}}, nil)
	}
	// View 5 {0, 1, 2}: node 2 is node 1's backup and keeps its session
	// holding grants 171 and 172. View 6 {0, 1}: node 2 is away, node 0
	// is the backup, and grant 172 is given back. View 7 {0, 2} loses
	// node 1: node 2 comes after it, but node 0 was its last backup.
	stale, last := newNode(2), newNode(0)
	keep(stale, 5, 171, 172)
	keep(last, 6, 171)
	v6 := view(6, map[int]uint64{0: 1, 1: 3})
	v7 := view(7, map[int]uint64{0: 1, 2: 2})
	if got := stale.takeOver(v7, v6); len(got) != 0 || keeping(stale.keeper, 71) {
		t.Fatalf("node 2, node 1's backup in view 5 only: adopted %d, still keeping: %v", len(got), keeping(stale.keeper, 71))
	}
	got := last.takeOver(v7, v6)
	if len(got) != 1 || got[0].grants.Get(171) == nil || got[0].grants.Get(172) != nil {
		t.Fatalf("node 0, node 1's backup in view 6: adopted %v, want session 71 holding grant 171 alone", got)
	}
	// A node that moved on from a snapshot knows no view before: it
	// cannot tell it was the last backup.
	blind := newNode(0)
	keep(blind, 6, 171)
	if got := blind.takeOver(v7, control.View{}); len(got) != 0 || keeping(blind.keeper, 71) {
		t.Fatalf("no view before: adopted %d, still keeping: %v", len(got), keeping(blind.keeper, 71))
	}
}
