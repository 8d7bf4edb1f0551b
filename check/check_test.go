package check

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
)

type ev = proc.Event

func feed(s proc.Sink, es ...ev) {
	for _, e := range es {
		s.Event(e)
	}
}

func res(rs ...proc.ResID) []proc.ResID { return rs }

func TestExclusion(t *testing.T) {
	for _, c := range []struct {
		name   string
		events []ev
		want   string // "" for no violation
	}{
		{"disjoint sets at once", []ev{
			{Kind: proc.EvRequest, P: 1, Res: res(1, 2)}, {Kind: proc.EvRequest, P: 2, Res: res(3)},
			{Kind: proc.EvEnter, P: 1, Res: res(1, 2)}, {Kind: proc.EvEnter, P: 2, Res: res(3)},
			{Kind: proc.EvExit, P: 1}, {Kind: proc.EvExit, P: 2}}, ""},
		{"hand-over after exit", []ev{
			{Kind: proc.EvRequest, P: 1, Res: res(1)}, {Kind: proc.EvEnter, P: 1, Res: res(1)}, {Kind: proc.EvExit, P: 1},
			{Kind: proc.EvRequest, P: 2, Res: res(1)}, {Kind: proc.EvEnter, P: 2, Res: res(1)}}, ""},
		{"overlap", []ev{
			{Kind: proc.EvRequest, P: 1, Res: res(1, 2)}, {Kind: proc.EvRequest, P: 2, Res: res(2, 3)},
			{Kind: proc.EvEnter, P: 1, Res: res(1, 2)}, {Kind: proc.EvEnter, P: 2, Res: res(2, 3)}}, "while p1 holds resource 2"},
		{"enter without request", []ev{{Kind: proc.EvEnter, P: 4, Res: res(1)}}, "without a request"},
		{"enter with other set", []ev{{Kind: proc.EvRequest, P: 4, Res: res(1)}, {Kind: proc.EvEnter, P: 4, Res: res(2)}}, "but asked"},
		{"exit without enter", []ev{{Kind: proc.EvExit, P: 3}}, "exits without holding"},
	} {
		var x Exclusion
		feed(&x, c.events...)
		if c.want == "" && !x.OK() {
			t.Errorf("%s: false alarm %v", c.name, x.First)
		}
		if c.want != "" && (x.OK() || !strings.Contains(x.First[0], c.want)) {
			t.Errorf("%s: got %v, want %q", c.name, x.First, c.want)
		}
	}
}

func TestPool(t *testing.T) {
	x := Pool{Units: 2}
	feed(&x,
		ev{Kind: proc.EvAcquire, P: 1}, ev{Kind: proc.EvGrant, P: 1, Unit: 0},
		ev{Kind: proc.EvAcquire, P: 2}, ev{Kind: proc.EvGrant, P: 2, Unit: 1},
		ev{Kind: proc.EvRelease, P: 1, Unit: 0},
		ev{Kind: proc.EvAcquire, P: 3}, ev{Kind: proc.EvGrant, P: 3, Unit: 0})
	if !x.OK() {
		t.Fatalf("false alarm: %v", x.First)
	}
	feed(&x, ev{Kind: proc.EvAcquire, P: 4}, ev{Kind: proc.EvGrant, P: 4, Unit: 1}) // p2 holds unit 1
	feed(&x, ev{Kind: proc.EvAcquire, P: 5}, ev{Kind: proc.EvGrant, P: 5, Unit: 7}) // a third unit
	feed(&x, ev{Kind: proc.EvRelease, P: 1, Unit: 0})                               // not p1's
	feed(&x, ev{Kind: proc.EvGrant, P: 9, Unit: 3})                                 // never asked
	if x.Violations != 5 {
		t.Fatalf("%d violations, want 5: %v", x.Violations, x.First)
	}
}

// Once a unit moves, its moves must say where it is.
func TestPoolMoves(t *testing.T) {
	x := Pool{Units: 2}
	feed(&x,
		ev{Kind: proc.EvAcquire, P: 1}, ev{Kind: proc.EvGrant, P: 1, Unit: 0}, // never moved: not judged
		ev{Kind: proc.EvRelease, P: 1, Unit: 0},
		ev{Kind: proc.EvMove, P: 2, Unit: 0, Peer: 1},
		ev{Kind: proc.EvAcquire, P: 2}, ev{Kind: proc.EvGrant, P: 2, Unit: 0},
		ev{Kind: proc.EvRelease, P: 2, Unit: 0},
		ev{Kind: proc.EvAcquire, P: 2}, ev{Kind: proc.EvGrant, P: 2, Unit: 0}) // reused where it is
	if !x.OK() {
		t.Fatalf("false alarm: %v", x.First)
	}
	feed(&x, ev{Kind: proc.EvMove, P: 3, Unit: 0, Peer: 2}) // while p2 uses it
	feed(&x, ev{Kind: proc.EvRelease, P: 2, Unit: 0})
	feed(&x, ev{Kind: proc.EvMove, P: 4, Unit: 0, Peer: 1})                         // from where it is not
	feed(&x, ev{Kind: proc.EvAcquire, P: 5}, ev{Kind: proc.EvGrant, P: 5, Unit: 0}) // granted where it is not
	if x.Violations != 3 {
		t.Fatalf("%d violations, want 3: %v", x.Violations, x.First)
	}
	y := Pool{Units: 1, IgnoreMoves: true}
	feed(&y, ev{Kind: proc.EvMove, P: 4, Unit: 0, Peer: 1}, ev{Kind: proc.EvAcquire, P: 5}, ev{Kind: proc.EvGrant, P: 5, Unit: 0})
	if !y.OK() {
		t.Errorf("moves judged with IgnoreMoves: %v", y.First)
	}
}

func TestQuota(t *testing.T) {
	req := func(p proc.ID) ev { return ev{Kind: proc.EvRequest, P: p} }
	permit := func(p proc.ID) ev { return ev{Kind: proc.EvPermit, P: p} }
	reject := func(p proc.ID) ev { return ev{Kind: proc.EvReject, P: p} }
	exh := ev{Kind: proc.EvExhausted}
	for _, c := range []struct {
		name          string
		budget, waste int
		events        []ev
		want          string // "" for no violation
	}{
		{"two of three with waste one, then reject", 3, 1,
			[]ev{req(1), permit(1), req(2), permit(2), req(1), reject(1), exh}, ""},
		// Def. 3.1 says "eventually": the permit after the reject counts.
		{"reject before a permit still on its way", 2, 0,
			[]ev{req(1), req(2), permit(1), req(1), reject(1), exh, permit(2)}, ""},
		{"more permits than the budget", 1, 0, []ev{req(1), permit(1), req(2), permit(2)}, "exceeds the budget"},
		{"reject too early", 3, 0, []ev{req(1), permit(1), req(2), reject(2), exh}, "only 1 permits"},
		{"reject without the signal", 1, 0, []ev{req(1), permit(1), req(2), reject(2)}, "exhausted signals=0"},
		{"the signal without a reject", 1, 0, []ev{req(1), permit(1), exh}, "rejects=0"},
		{"two signals", 1, 0, []ev{req(1), permit(1), req(2), reject(2), exh, exh}, "second exhausted"},
		{"a permit nobody asked for", 3, 0, []ev{permit(4)}, "answers no request"},
		{"two answers to one request", 3, 0, []ev{req(4), permit(4), permit(4)}, "answers no request"},
		{"a permit after a reject", 3, 3, []ev{req(1), reject(1), exh, req(1), permit(1)}, "after a reject"},
	} {
		x := Quota{Budget: c.budget, Waste: c.waste}
		feed(&x, c.events...)
		x.Finish()
		if c.want == "" && !x.OK() {
			t.Errorf("%s: false alarm %v", c.name, x.First)
		}
		if c.want != "" && (x.OK() || !strings.Contains(strings.Join(x.First, "; "), c.want)) {
			t.Errorf("%s: got %v, want %q", c.name, x.First, c.want)
		}
	}
}

func TestWaits(t *testing.T) {
	var w Waits
	feed(&w,
		ev{Time: 0, Kind: proc.EvRequest, P: 0}, ev{Time: 0, Kind: proc.EvRequest, P: 1}, ev{Time: 0, Kind: proc.EvRequest, P: 2},
		ev{Time: 30, Kind: proc.EvEnter, P: 0},
		ev{Time: 40, Kind: proc.EvCrash, P: 2})
	if w.Open() != 1 || w.Longest != 30 || w.OldestOpen(100) != 100 {
		t.Fatalf("open %d longest %d oldest %d", w.Open(), w.Longest, w.OldestOpen(100))
	}
	if !w.Deadlock(true) || w.Deadlock(false) || !w.Starved(100, 99) || w.Starved(100, 100) {
		t.Fatal("deadlock or starvation misjudged")
	}
}

func TestNames(t *testing.T) {
	name := func(p proc.ID, n int32) ev { return ev{Kind: proc.EvName, P: p, Unit: n} }
	ok := Names{C: 4}
	feed(&ok, name(1, 0), name(2, 1), name(3, 5), name(1, 2))
	ok.Finish()
	if !ok.OK() {
		t.Errorf("false alarm: %v", ok.First)
	}
	dup := Names{C: 4}
	feed(&dup, name(1, 0), name(2, 0))
	dup.Finish()
	big := Names{C: 4}
	feed(&big, name(1, 0), name(2, 12))
	big.Finish()
	if dup.OK() || !strings.Contains(dup.First[0], "before to p1") || big.OK() || !strings.Contains(big.First[0], "largest name 12") {
		t.Errorf("dup %v, big %v", dup.First, big.First)
	}
}

func TestBank(t *testing.T) {
	dep := func(p proc.ID) []ev {
		return []ev{{Kind: proc.EvRequest, P: p, Res: res(1)}, {Kind: proc.EvDeposit, P: p}}
	}
	ask := func(p proc.ID) ev { return ev{Kind: proc.EvRequest, P: p} }
	grant := func(p proc.ID) ev { return ev{Kind: proc.EvWithdraw, P: p} }
	for _, c := range []struct {
		name   string
		events []ev
		want   string
	}{
		{"withdraw what was deposited, then wait", append(append(dep(1), dep(2)...), ask(3), grant(3), ask(3), grant(3), ask(3)), ""},
		{"a withdrawal beyond the deposits", append(dep(1), ask(2), grant(2), ask(3), grant(3)), "with 1 deposits"},
		{"waiting with money in the bank", append(append(dep(1), dep(2)...), ask(3)), "balance of 2"},
		{"a deposit never acknowledged", []ev{{Kind: proc.EvRequest, P: 1, Res: res(1)}}, "never acknowledged"},
		{"a grant to a deposit", []ev{{Kind: proc.EvRequest, P: 1, Res: res(1)}, grant(1)}, "answers no such request"},
	} {
		x := Bank{Waste: 2, DepositRes: 1}
		feed(&x, c.events...)
		x.Finish()
		if c.want == "" && !x.OK() {
			t.Errorf("%s: false alarm %v", c.name, x.First)
		}
		if c.want != "" && (x.OK() || !strings.Contains(strings.Join(x.First, "; "), c.want)) {
			t.Errorf("%s: got %v, want %q", c.name, x.First, c.want)
		}
	}
}
