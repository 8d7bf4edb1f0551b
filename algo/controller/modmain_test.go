package controller

import (
	"math"
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

// runQuota runs a on spec with (m, w), every node making per requests
// after a random think (per 0: ⌈1.5·M/n⌉, so that the budget runs out),
// and returns the nodes, the checker and the result.
func runQuota(t *testing.T, a algo.Algorithm, spec string, m, w, per int, seed uint64) ([]proc.Process, *check.Quota, sim.Result) {
	t.Helper()
	g, err := graph.Parse(spec, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if per == 0 {
		per = (3*m/2 + g.N() - 1) / g.N()
	}
	pb := &algo.Problem{Kind: algo.Quota, Users: g.N(), Graph: g, Budget: m, Waste: w}
	ps, err := a.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	q := &check.Quota{Budget: m, Waste: w}
	res, err := sim.Run(sim.Config{Seed: seed, Net: sim.Network{Delay: dist.Exp(10)},
		Work: app.Workload{Think: dist.Uniform(0, 30), PerUser: per}, Sink: q}, pb, ps)
	if err != nil {
		t.Fatal(err)
	}
	q.Finish()
	if !q.OK() || !res.Quiescent || res.Served != per*g.N() {
		t.Fatalf("%s on %s M=%d W=%d seed %d: %v, quiescent %v, %d of %d answered", a.Name, spec, m, w, seed, q.First, res.Quiescent, res.Served, per*g.N())
	}
	return ps, q, res
}

// TestModifiedMainStages checks §6.1's stages from the root's record:
// the first has M_0 = M, each later one at most half the one before
// (M_{s+1} ≤ M_s/2: a stage ends when its CONTROLLER-R's root bin runs
// dry, and the bins outside it hold at most W_s = M_s/2, Lemma 4.4.2), so
// there are at most lg(M/(W+1)) + 2 of them; the consumption conditions
// hold with the final W, and W = 0 is exact. The participants grow from
// the root, the nodes asking first at random moments.
func TestModifiedMainStages(t *testing.T) {
	for _, spec := range []string{"line:60", "random:150:0.03", "tree:127:2"} {
		for _, w := range []int{0, 1, 37, 1000, 1 << 12} {
			for seed := uint64(1); seed <= 2; seed++ {
				const m = 1 << 13
				ps, q, _ := runQuota(t, ModifiedMain, spec, m, w, 0, seed)
				st := ps[0].(*MainNode).Stages
				if st[0] != m || float64(len(st)) > math.Log2(float64(m)/float64(w+1))+2 {
					t.Errorf("%s W=%d seed %d: stages %v, want %d first and at most lg(M/(W+1)) + 2", spec, w, seed, st, m)
				}
				for i := 1; i < len(st); i++ {
					if st[i] > st[i-1]/2 {
						t.Errorf("%s W=%d seed %d: stages %v: M_%d = %d > M_%d/2", spec, w, seed, st, i, st[i], i-1)
					}
				}
				if w == 0 && q.Permits != m {
					t.Errorf("%s W=0 seed %d: %d permits, want exactly M = %d", spec, seed, q.Permits, m)
				}
			}
		}
	}
}

// TestModifiedMainSmallWaste: with W small against M the main controller
// pays M/W (Theorem 5.2), the modified one log(M/(W+1)) (Lemma 6.1.1): on
// the same runs, M = 2^14 and W = 1, the modified controller sends less
// than a third of the main controller's messages; with W = M/2 it is the
// main controller, message for message.
func TestModifiedMainSmallWaste(t *testing.T) {
	const spec, m = "tree:63:2", 1 << 14
	const per = 0
	_, _, mod := runQuota(t, ModifiedMain, spec, m, 1, per, 1)
	_, _, mn := runQuota(t, Main, spec, m, 1, per, 1)
	t.Logf("W = 1: modified %d messages, main %d", mod.Messages, mn.Messages)
	if 3*mod.Messages >= mn.Messages {
		t.Errorf("W = 1: modified %d messages, main %d: want under a third", mod.Messages, mn.Messages)
	}
	_, _, mod = runQuota(t, ModifiedMain, spec, m, m/2, per, 1)
	_, _, mn = runQuota(t, Main, spec, m, m/2, per, 1)
	if mod.Messages != mn.Messages {
		t.Errorf("W = M/2: modified %d messages, main %d: want the same", mod.Messages, mn.Messages)
	}
}
