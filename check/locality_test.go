package check_test

import (
	"slices"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/algo/threshold"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

func ev(t proc.Time, k proc.EventKind, p proc.ID) proc.Event {
	return proc.Event{Time: t, Kind: k, P: p}
}

func TestLocalityDefinitions(t *testing.T) {
	line, _ := graph.Parse("line:6", nil) // 0-1-2-3-4-5
	cases := []struct {
		name    string
		horizon proc.Time
		events  []proc.Event
		end     proc.Time
		set     []proc.ID
		fl      int
		undec   []proc.ID
		unreach int
		crashed int
	}{
		{name: "no crash", events: []proc.Event{ev(0, proc.EvRequest, 1)}, end: 100, fl: -1},
		{name: "only the crashed", horizon: 10, end: 100, events: []proc.Event{
			ev(0, proc.EvRequest, 2), ev(5, proc.EvCrash, 2), ev(6, proc.EvRequest, 3), ev(8, proc.EvEnter, 3)},
			set: []proc.ID{2}, fl: 0, crashed: 1},
		{name: "two hops", horizon: 10, end: 100, events: []proc.Event{
			ev(0, proc.EvRequest, 4), ev(1, proc.EvCrash, 2), ev(3, proc.EvRequest, 1)},
			set: []proc.ID{1, 2, 4}, fl: 2, crashed: 1},
		{name: "hungry before the crash counts from the crash", horizon: 50, end: 60, events: []proc.Event{
			ev(0, proc.EvRequest, 3), ev(20, proc.EvCrash, 2)},
			set: []proc.ID{2}, fl: 0, undec: []proc.ID{3}, crashed: 1},
		{name: "recent request is undecided", horizon: 30, end: 100, events: []proc.Event{
			ev(0, proc.EvCrash, 0), ev(10, proc.EvRequest, 5), ev(90, proc.EvRequest, 1)},
			set: []proc.ID{0, 5}, fl: 5, undec: []proc.ID{1}, crashed: 1},
		{name: "nearest crash owns a starved process", horizon: 10, end: 100, events: []proc.Event{
			ev(0, proc.EvCrash, 0), ev(0, proc.EvCrash, 5), ev(1, proc.EvRequest, 3), ev(1, proc.EvRequest, 1)},
			set: []proc.ID{0, 1, 3, 5}, fl: 2, crashed: 2},
		{name: "default horizon is half the time after the crash", end: 100, events: []proc.Event{
			ev(20, proc.EvCrash, 0), ev(50, proc.EvRequest, 1), ev(70, proc.EvRequest, 2)},
			set: []proc.ID{0, 1}, fl: 1, undec: []proc.ID{2}, crashed: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := check.Locality{Graph: line, Horizon: c.horizon}
			for _, e := range c.events {
				l.Event(e)
			}
			r := l.Result(c.end, false)
			if !slices.Equal(r.FailureSet, c.set) || r.FailureLocality != c.fl || !slices.Equal(r.Undecided, c.undec) ||
				r.Unreachable != c.unreach || len(r.Crashed) != c.crashed {
				t.Errorf("got set %v fl %d undecided %v unreachable %d crashed %v; want %v %d %v %d",
					r.FailureSet, r.FailureLocality, r.Undecided, r.Unreachable, r.Crashed, c.set, c.fl, c.undec, c.unreach)
			}
		})
	}
}

func TestLocalityQuiescentDecides(t *testing.T) {
	line, _ := graph.Parse("line:3", nil)
	l := check.Locality{Graph: line, Horizon: 1000}
	for _, e := range []proc.Event{ev(0, proc.EvCrash, 0), ev(10, proc.EvRequest, 1)} {
		l.Event(e)
	}
	if r := l.Result(20, true); r.FailureLocality != 1 || len(r.Undecided) != 0 {
		t.Errorf("quiescent: got %+v, want p1 starved", r)
	}
	if r := l.Result(20, false); r.FailureLocality != 0 || len(r.Undecided) != 1 {
		t.Errorf("not quiescent: got %+v, want p1 undecided", r)
	}
}

func TestLocalityUnreachable(t *testing.T) {
	g, _ := graph.New(4, [][2]proc.ID{{0, 1}, {2, 3}})
	l := check.Locality{Graph: g, Horizon: 5}
	for _, e := range []proc.Event{ev(0, proc.EvCrash, 0), ev(0, proc.EvRequest, 1), ev(0, proc.EvRequest, 3)} {
		l.Event(e)
	}
	if r := l.Result(50, false); r.Unreachable != 1 || r.FailureLocality != 1 {
		t.Errorf("got %+v, want one unreachable and locality 1", r)
	}
}

// locality runs a on a line whose priorities all point to its high end and
// crashes that end as it collects its forks: the waiting chain the hygienic
// algorithm builds and the threshold points break.
func locality(t *testing.T, a algo.Algorithm, n int) check.LocalityResult {
	g, err := graph.Parse("line:"+itoa(n), nil)
	if err != nil {
		t.Fatal(err)
	}
	pb := algo.DiningProblem(g)
	ps, err := a.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	loc := check.Locality{Graph: g, Horizon: 5000}
	_, err = sim.Run(sim.Config{Seed: 3, Horizon: 20000, Sink: &loc, Net: sim.Network{Delay: dist.Const(5), Crashes: []sim.Crash{{P: proc.ID(n - 1), At: 9}}}, Work: app.Workload{CS: dist.Const(3), Think: dist.Const(0)}}, pb, ps)
	if err != nil {
		t.Fatal(err)
	}
	return loc.Result(20000, false) // the run is observed up to its horizon, quiescent or not
}

func itoa(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }

// The metric must tell a robust algorithm from one that is not: hygienic
// (threshold points with an empty threshold set, §7) starves the whole line.
func TestLocalityCatchesLongChains(t *testing.T) {
	h := locality(t, hygienic.Algorithm, 20)
	if h.FailureLocality < 10 {
		t.Errorf("hygienic on a one-way line: failure locality %d, set %v; the metric misses the chain", h.FailureLocality, h.FailureSet)
	}
	th := locality(t, threshold.Algorithm, 20)
	if th.FailureLocality > 2 || th.FailureLocality < 0 {
		t.Errorf("threshold on a one-way line: failure locality %d, set %v, want ≤ 2", th.FailureLocality, th.FailureSet)
	}
}
