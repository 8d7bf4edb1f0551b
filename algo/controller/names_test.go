package controller

import (
	"math/rand/v2"
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

func (n *Node) iterations() int { return n.Iterations }

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
func (r *renamed) iterations() int { return r.Allocator.(*Node).Iterations }

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
