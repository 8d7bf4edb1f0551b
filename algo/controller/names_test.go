package controller

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// runNames runs name assignment with per requests (joins) at every node
// and returns the checker, fed by the events, and the messages sent.
func runNames(t *testing.T, spec string, seed uint64, per int, wrap func(proc.Process) proc.Process) (*check.Names, int64, int) {
	t.Helper()
	g, err := graph.Parse(spec, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	pb := &algo.Problem{Kind: algo.Quota, Users: g.N(), Graph: g}
	ps, err := BuildNames(pb)
	if err != nil {
		t.Fatal(err)
	}
	if wrap != nil {
		for i := range ps {
			ps[i] = wrap(ps[i])
		}
	}
	x := &check.Names{C: 4}
	res, err := sim.Run(sim.Config{Seed: seed, Net: sim.Network{Delay: dist.Uniform(1, 20)},
		Work: app.Workload{Think: dist.Exp(30), PerUser: per}, Sink: x}, pb, ps)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Quiescent || res.Served != per*g.N() {
		t.Fatalf("%s seed %d: quiescent %v, %d of %d answered", spec, seed, res.Quiescent, res.Served, per*g.N())
	}
	x.Finish()
	return x, res.Messages, ps[0].(interface{ iterations() int }).iterations()
}

func (x *MainNode) iterations() int { return len(x.Counts) }

// TestNamesUniqueAndSmall: over graphs, seeds and loads, every name is
// unique and the largest stays below 4·(n+1) (§6.2: at most a constant
// factor above n), through several doublings of the participants.
func TestNamesUniqueAndSmall(t *testing.T) {
	for seed := range uint64(6) {
		for _, c := range []struct {
			spec string
			per  int
		}{{"line:40", 1}, {"line:40", 9}, {"tree:63:2", 3}, {"random:80:0.05", 2}, {"star:20", 5}, {"grid:6x6", 4}} {
			x, _, it := runNames(t, c.spec, seed, c.per, nil)
			if !x.OK() {
				t.Fatalf("%s per %d seed %d: %v", c.spec, c.per, seed, x.First)
			}
			if it < 3 {
				t.Errorf("%s per %d seed %d: %d iterations; the participants should double several times", c.spec, c.per, seed, it)
			}
		}
	}
}

// renamed wraps a node so that the names it gives are wrong: every name
// shifted into a range 100 times too far (largest), or every name 0 (dup).
type renamed struct {
	proc.Allocator
	mode string
}

type renameEnv struct {
	proc.Env
	mode string
}

func (e renameEnv) Emit(ev proc.Event) {
	if ev.Kind == proc.EvName {
		if e.mode == "dup" {
			ev.Unit = 0
		} else {
			ev.Unit *= 100
		}
	}
	e.Env.Emit(ev)
}

func (r *renamed) Start(env proc.Env) { r.Allocator.Start(renameEnv{env, r.mode}) }
func (r *renamed) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	r.Allocator.Deliver(renameEnv{env, r.mode}, from, m)
}
func (r *renamed) Request(env proc.Env, q proc.Request) {
	r.Allocator.Request(renameEnv{env, r.mode}, q)
}
func (r *renamed) iterations() int { return r.Allocator.(*MainNode).iterations() }

// TestNamesCheckerCatchesBrokenVariants: duplicate and too-large names are
// caught from the events.
func TestNamesCheckerCatchesBrokenVariants(t *testing.T) {
	for _, mode := range []string{"dup", "large"} {
		x, _, _ := runNames(t, "line:20", 1, 3, func(p proc.Process) proc.Process { return &renamed{p.(proc.Allocator), mode} })
		if x.OK() {
			t.Errorf("%s: the checker found nothing", mode)
		}
	}
}

// TestNamesOnlyParticipants: on a long line where one node far from the
// root asks for a name, only the nodes of its path take part; each is
// named as it is admitted (a name event with no request: it participates),
// the asking node's admission answers its request, and the names are
// 0..5 in some order — no range is wasted while the path joins.
func TestNamesOnlyParticipants(t *testing.T) {
	g, err := graph.Parse("line:500", nil)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := BuildNames(&algo.Problem{Kind: algo.Quota, Users: g.N(), Graph: g})
	if err != nil {
		t.Fatal(err)
	}
	n := &net{procs: ps}
	for p := range ps {
		n.cur = proc.ID(p)
		ps[p].Start(n)
	}
	n.drain()
	n.log = nil
	n.request(6)
	for _, e := range n.log {
		if e.to > 6 || e.from > 6 {
			t.Errorf("%s from %d to %d, outside the participants", e.m.Kind(), e.from, e.to)
		}
	}
	var names []int32
	var permits int
	for _, e := range n.events {
		switch e.Kind {
		case proc.EvName:
			names = append(names, e.Unit)
		case proc.EvPermit:
			permits++
			if e.P != 6 {
				t.Errorf("a permit at %d", e.P)
			}
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []int32{0, 1, 2, 3, 4, 5}) || permits != 1 {
		t.Errorf("names %v, %d permits; want 0..5 and one permit", names, permits)
	}
}
