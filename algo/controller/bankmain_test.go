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

// runBank runs the bank over MAIN on spec with waste w, every node making
// ops operations (deposit or withdrawal, even odds), the first at a
// random moment (askers: only nodes below it operate; 0: every node).
func runBank(t *testing.T, spec string, w, ops, askers int, seed uint64) (*check.Bank, sim.Result, []proc.Process) {
	t.Helper()
	g, err := graph.Parse(spec, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	pb := &algo.Problem{Kind: algo.Quota, Users: g.N(), Graph: g, Waste: w}
	ps, err := BankMain.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	b := &check.Bank{Waste: w, DepositRes: DepositRes}
	work := app.Workload{Think: dist.Uniform(0, 20), PerUser: ops, Next: func(_ proc.ID, r *rand.Rand) proc.Request {
		if r.IntN(2) == 0 {
			return proc.Request{Res: []proc.ResID{DepositRes}}
		}
		return proc.Request{}
	}, Join: func(u proc.ID) proc.Time {
		if askers > 0 && int(u) >= askers {
			return 1 << 50
		}
		return proc.Time(u) * 7 % 400
	}}
	cfg := sim.Config{Seed: seed, Net: sim.Network{Delay: dist.Exp(8)}, Work: work, Sink: b}
	if askers > 0 {
		cfg.Horizon = 1 << 40 // the others would start at 2^50
	}
	res, err := sim.Run(cfg, pb, ps)
	if err != nil {
		t.Fatal(err)
	}
	b.Finish()
	return b, res, ps
}

// TestBankMain: §6.3's three properties over lines, trees and random
// graphs, W from 1 to 1000 (check.Bank): every deposit answered, no
// withdrawal beyond the deposits, one left waiting only while the balance
// is below W; and the run ends, each user done or waiting for money (a
// user whose withdrawal waits makes no further request).
func TestBankMain(t *testing.T) {
	for _, spec := range []string{"line:40", "tree:63:2", "random:60:0.06"} {
		for _, w := range []int{1, 10, 100, 1000} {
			for seed := uint64(1); seed <= 2; seed++ {
				b, res, ps := runBank(t, spec, w, 30, 0, seed)
				if !b.OK() || !res.Quiescent {
					t.Fatalf("%s W=%d seed %d: %v, quiescent %v", spec, w, seed, b.First, res.Quiescent)
				}
				if res.Open > len(ps) || b.Deposits == 0 || b.Withdrawals == 0 {
					t.Fatalf("%s W=%d seed %d: %d open, %d deposits, %d withdrawals", spec, w, seed, res.Open, b.Deposits, b.Withdrawals)
				}
				if its := len(ps[0].(*MainNode).Counts); its < 2 {
					t.Errorf("%s W=%d seed %d: %d iterations, want the participants to double", spec, w, seed, its)
				}
			}
		}
	}
}

// TestBankMainParticipants: only the nodes that operate and those on
// their paths to the root take part; the rest of a long line hears
// nothing but the tree's construction.
func TestBankMainParticipants(t *testing.T) {
	b, res, ps := runBank(t, "line:200", 50, 20, 10, 3)
	if !b.OK() || res.Open > 10 || res.Served < 100 {
		t.Fatalf("%v, %d answered, %d open", b.First, res.Served, res.Open)
	}
	for v, p := range ps {
		if in := p.(*MainNode).in; in != (v < 10) {
			t.Errorf("node %d participates: %v", v, in)
		}
	}
}
