package control

import (
	"slices"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// ledger feeds a State entries in order, one index each.
type ledger struct {
	t *testing.T
	s *State
	i uint64
}

func (l *ledger) apply(m proc.Message) uint64 {
	l.t.Helper()
	l.i++
	if err := l.s.Apply(l.i, encodeEntry(m)); err != nil {
		l.t.Fatal(err)
	}
	return l.i
}

func (l *ledger) view(gens map[int32]uint64) uint64 {
	var e ViewEntry
	for m := range int32(5) {
		if g, ok := gens[m]; ok {
			e.Members = append(e.Members, m)
			e.Gens = append(e.Gens, g)
		}
	}
	return l.apply(e)
}

func (l *ledger) left() QuotaLeft {
	l.t.Helper()
	open, left := l.s.Open()
	if !open {
		l.t.Fatalf("view %v not open", l.s.View())
	}
	return left[0]
}

// TestLedger walks the quota ledger through the cases of its doc: a
// member away without a report keeps its view's budget counted as spent
// (a reserve) until it rejoins with its counts.
func TestLedger(t *testing.T) {
	l := &ledger{t: t, s: NewState([]Quota{{Name: "q", Budget: 100}})}
	for k := range int32(3) {
		l.apply(RejoinEntry{Node: k, Run: 1, Seq: 1})
	}
	all := map[int32]uint64{0: 1, 1: 1, 2: 1}
	e1 := l.view(all)
	for k := range int32(3) {
		l.apply(ReadyEntry{Epoch: e1, Node: k, Gen: 1, Counts: []uint64{0}})
	}
	if got := l.left(); got != (QuotaLeft{Name: "q", Left: 100}) {
		t.Fatalf("first view: %+v", got)
	}
	// Node 2 dies having issued 7; 0 and 1 issued 10 and 20.
	e2 := l.view(map[int32]uint64{0: 1, 1: 1})
	l.apply(ReadyEntry{Epoch: e2, Node: 0, Gen: 1, Counts: []uint64{10}})
	l.apply(ReadyEntry{Epoch: e2, Node: 1, Gen: 1, Counts: []uint64{20}})
	if got := l.left(); got != (QuotaLeft{Name: "q", Left: 0, Reserve: 70}) {
		t.Fatalf("node 2 away: %+v, want nothing left and 70 of it a guess", got)
	}
	// It comes back on its data: the first view is known, the second
	// issued nothing.
	l.apply(RejoinEntry{Node: 2, Run: 2, Seq: 1, Counts: []uint64{7}})
	all[2] = 2
	e3 := l.view(all)
	for k, c := range []uint64{10, 20, 7} {
		l.apply(ReadyEntry{Epoch: e3, Node: int32(k), Gen: all[int32(k)], Counts: []uint64{c}})
	}
	if got := l.left(); got != (QuotaLeft{Name: "q", Left: 63}) {
		t.Fatalf("all back: %+v, want 100-37", got)
	}
	// A ready of an older view, or of another generation, opens nothing.
	e4 := l.view(all)
	l.apply(ReadyEntry{Epoch: e3, Node: 0, Gen: 1, Counts: []uint64{10}})
	l.apply(ReadyEntry{Epoch: e4, Node: 2, Gen: 1, Counts: []uint64{7}})
	l.apply(ReadyEntry{Epoch: e4, Node: 1, Gen: 1, Counts: []uint64{20}})
	if open, _ := l.s.Open(); open {
		t.Fatal("view opened on stale readies")
	}
	// A retried rejoin is one rejoin.
	g, _ := l.s.Gen(2, [2]uint64{2, 1})
	l.apply(RejoinEntry{Node: 2, Run: 2, Seq: 1, Counts: []uint64{7}})
	if g2, ok := l.s.Gen(2, [2]uint64{2, 1}); g2 != g || !ok {
		t.Fatalf("generation %d after a retried rejoin, was %d", g2, g)
	}
	if v := l.s.View(); v.Epoch != e4 || !slices.Equal(v.Members, []proc.ID{0, 1, 2}) {
		t.Fatalf("view %v", v)
	}
}

// TestLedgerNeverOverBudget: whatever the members issue within what each
// view may issue, and whoever reports, the views' lefts never add up past
// the budget.
func TestLedgerNeverOverBudget(t *testing.T) {
	seed := freshSeed(t)
	rng := newRand(seed)
	const budget = 50
	l := &ledger{t: t, s: NewState([]Quota{{Name: "q", Budget: budget}})}
	counts := [3]uint64{}
	gens := map[int32]uint64{}
	runs := [3]uint64{}
	issued := uint64(0)
	for range 200 {
		// Some nodes rejoin (restarts), a majority forms a view.
		for k := range int32(3) {
			if rng.IntN(4) == 0 || gens[k] == 0 {
				runs[k]++
				l.apply(RejoinEntry{Node: k, Run: runs[k], Seq: 1, Counts: []uint64{counts[k]}})
				gens[k], _ = l.s.Gen(proc.ID(k), [2]uint64{runs[k], 1})
			}
		}
		members := map[int32]uint64{}
		for k := range int32(3) {
			if rng.IntN(3) > 0 {
				members[k] = gens[k]
			}
		}
		if len(members) < 2 {
			continue
		}
		e := l.view(members)
		for k, g := range members {
			l.apply(ReadyEntry{Epoch: e, Node: k, Gen: g, Counts: []uint64{counts[k]}})
		}
		left := l.left().Left
		// The members issue up to left between them.
		for k := range members {
			x := uint64(rng.IntN(int(left) + 1))
			counts[k] += x
			issued += x
			left -= x
		}
		if issued > budget {
			t.Fatalf("seed %d: %d issued of %d", seed, issued, budget)
		}
	}
}

// TestSemaphoreUnits: the first entry of a semaphore name is its units
// for good; a later one, with other units, changes nothing, and an entry
// of units ≤ 0 records nothing.
func TestSemaphoreUnits(t *testing.T) {
	l := &ledger{t: t, s: NewState(nil)}
	if _, ok := l.s.Semaphore("w"); ok {
		t.Fatal("a semaphore before any entry")
	}
	l.openView()
	l.apply(SemaphoreEntry{Name: "w", Units: 2})
	l.apply(SemaphoreEntry{Name: "w", Units: 3})
	l.apply(SemaphoreEntry{Name: "z", Units: 0})
	l.apply(SemaphoreEntry{Name: "v", Units: 5})
	if u, ok := l.s.Semaphore("w"); !ok || u != 2 {
		t.Errorf("w: %d, %v, want 2 (the first entry)", u, ok)
	}
	if _, ok := l.s.Semaphore("z"); ok {
		t.Error("z recorded with 0 units")
	}
	if n := l.s.Semaphores(); n != 2 {
		t.Errorf("%d semaphores recorded, want 2", n)
	}
}

// openView rejoins nodes 0 to 2 (if they have not) and opens a view of
// them, all ready; it returns its epoch.
func (l *ledger) openView() uint64 {
	l.t.Helper()
	all := map[int32]uint64{}
	for k := range int32(3) {
		if g, _ := l.s.Gen(proc.ID(k), [2]uint64{}); g == 0 {
			l.apply(RejoinEntry{Node: k, Run: 1, Seq: 1})
		}
		all[k], _ = l.s.Gen(proc.ID(k), [2]uint64{})
	}
	e := l.view(all)
	for k := range int32(3) {
		l.apply(ReadyEntry{Epoch: e, Node: k, Gen: all[k]})
	}
	if open, _ := l.s.Open(); !open {
		l.t.Fatalf("view %d not open", e)
	}
	return e
}

// TestRefresh: a refresh of the open view is a view of the same members
// and generations at the entry's index, with no wait, that opens once all
// are ready again; it forgets the semaphores' units but those a member's
// ready says it holds, and a new name is recorded only once the view is
// open. A refresh of a view that moved on, or is not open, does nothing.
func TestRefresh(t *testing.T) {
	l := &ledger{t: t, s: NewState(nil)}
	e1 := l.openView()
	l.apply(SemaphoreEntry{Name: "held", Units: 2})
	l.apply(SemaphoreEntry{Name: "idle", Units: 3})
	before := l.s.View()

	if l.apply(RefreshEntry{Epoch: e1 - 1}); l.s.View().Epoch != e1 {
		t.Fatalf("a refresh of an older view made %v", l.s.View())
	}
	e2 := l.apply(RefreshEntry{Epoch: e1})
	v := l.s.View()
	if v.Epoch != e2 || !slices.Equal(v.Members, before.Members) || !slices.Equal(v.Gens, before.Gens) || v.Wait != 0 {
		t.Fatalf("refresh: %v (wait %d), want view %d of %v", v, v.Wait, e2, before)
	}
	if open, _ := l.s.Open(); open {
		t.Fatal("the refresh view is open before its readies")
	}
	if n := l.s.Semaphores(); n != 0 {
		t.Fatalf("%d semaphores kept by the refresh, want 0", n)
	}
	if l.apply(RefreshEntry{Epoch: e2}); l.s.View().Epoch != e2 {
		t.Fatalf("a refresh of a view not open made %v", l.s.View())
	}
	// A new name before the view opens is not recorded: a member's
	// ready may still say it holds it with other units.
	l.apply(SemaphoreEntry{Name: "held", Units: 5})
	l.apply(HoldingEntry{Ready: ReadyEntry{Epoch: e2, Node: 0, Gen: 1}, Sems: []SemaphoreEntry{{Name: "held", Units: 2}}})
	l.apply(ReadyEntry{Epoch: e2, Node: 1, Gen: 1})
	// A late ready (of the old view) records nothing.
	l.apply(HoldingEntry{Ready: ReadyEntry{Epoch: e1, Node: 2, Gen: 1}, Sems: []SemaphoreEntry{{Name: "late", Units: 2}}})
	l.apply(ReadyEntry{Epoch: e2, Node: 2, Gen: 1})
	if open, _ := l.s.Open(); !open {
		t.Fatal("the refresh view did not open with every member ready")
	}
	if u, ok := l.s.Semaphore("held"); !ok || u != 2 {
		t.Errorf("held: %d, %v after the refresh, want 2 (its holder's ready)", u, ok)
	}
	for _, name := range []string{"idle", "late"} {
		if _, ok := l.s.Semaphore(name); ok {
			t.Errorf("%s recorded after the refresh", name)
		}
	}
	l.apply(SemaphoreEntry{Name: "idle", Units: 4})
	if u, ok := l.s.Semaphore("idle"); !ok || u != 4 {
		t.Errorf("idle: %d, %v in the open view, want 4 (its new first use)", u, ok)
	}
}
