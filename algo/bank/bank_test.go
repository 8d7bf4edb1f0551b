package bank_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/bank"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// runBank runs the bank with per requests at every node, each a deposit
// with probability pd, and returns the checker fed by the events.
func runBank(t *testing.T, spec string, seed uint64, w, per int, pd float64, wrap func(proc.Process) proc.Process) (*check.Bank, sim.Result) {
	t.Helper()
	g, err := graph.Parse(spec, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	pb := &algo.Problem{Kind: algo.Quota, Users: g.N(), Graph: g, Waste: w}
	ps, err := bank.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	if wrap != nil {
		for i := range ps {
			ps[i] = wrap(ps[i])
		}
	}
	x := &check.Bank{Waste: w, DepositRes: bank.Deposit}
	next := func(_ proc.ID, rnd *rand.Rand) proc.Request {
		if rnd.Float64() < pd {
			return proc.Request{Res: []proc.ResID{bank.Deposit}}
		}
		return proc.Request{}
	}
	res, err := sim.Run(sim.Config{Seed: seed, Net: sim.Network{Delay: dist.Uniform(1, 20)},
		Work: app.Workload{Think: dist.Exp(20), PerUser: per, Next: next}, Sink: x}, pb, ps)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Quiescent {
		t.Fatalf("%s seed %d: the run did not end", spec, seed)
	}
	x.Finish()
	return x, res
}

// TestBankProperties: the three properties of §6.3 over graphs, seeds,
// W and mixes of deposits and withdrawals; the runs end quiescent, with
// only withdrawals left waiting.
func TestBankProperties(t *testing.T) {
	waited := 0
	for seed := range uint64(4) {
		for _, spec := range []string{"line:30", "tree:31:2", "random:40:0.1", "star:12"} {
			for _, w := range []int{1, 3, 40, 400} {
				for _, pd := range []float64{0.3, 0.5, 0.7} {
					x, res := runBank(t, spec, seed, w, 20, pd, nil)
					if !x.OK() {
						t.Fatalf("%s seed %d W=%d pd=%.1f: %v", spec, seed, w, pd, x.First)
					}
					if res.Open > 0 {
						waited++
					}
				}
			}
		}
	}
	if waited == 0 {
		t.Error("no run ended with a withdrawal waiting: the suite never tests property 3")
	}
}

// wrapped breaks a bank node: "overdraft" grants every withdrawal at once,
// "hoard" never sends deposits up the tree.
type wrapped struct {
	proc.Allocator
	mode string
}

type wrappedEnv struct {
	proc.Env
	mode string
}

func (e wrappedEnv) Send(to proc.ID, m proc.Message) {
	if _, ok := m.(bank.Deposits); ok && e.mode == "hoard" {
		return
	}
	e.Env.Send(to, m)
}

func (b *wrapped) Start(env proc.Env) { b.Allocator.Start(wrappedEnv{env, b.mode}) }
func (b *wrapped) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	b.Allocator.Deliver(wrappedEnv{env, b.mode}, from, m)
}
func (b *wrapped) Request(env proc.Env, r proc.Request) {
	if b.mode == "overdraft" && len(r.Res) == 0 {
		env.Emit(proc.Event{Kind: proc.EvWithdraw})
		return
	}
	b.Allocator.Request(wrappedEnv{env, b.mode}, r)
}

// TestBankCheckerCatchesBrokenVariants: property 2 (overdraft) and
// property 3 (hoard: withdrawals wait while money sits in the bins).
func TestBankCheckerCatchesBrokenVariants(t *testing.T) {
	for _, c := range []struct{ mode, want string }{{"overdraft", "granted with"}, {"hoard", "balance of"}} {
		x, _ := runBank(t, "line:20", 2, 3, 20, 0.5, func(p proc.Process) proc.Process { return &wrapped{p.(proc.Allocator), c.mode} })
		if x.OK() || !strings.Contains(strings.Join(x.First, "; "), c.want) {
			t.Errorf("%s: %v, want %q", c.mode, x.First, c.want)
		}
	}
}
