package conformance

import (
	"fmt"
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

// PoolGraphs are the communication graphs of the pool suite: trees, lines,
// stars, and graphs with cycles (an algorithm on a tree runs on a spanning
// tree of them).
var PoolGraphs = []string{
	"tree:10:2", "tree:13:3", "line:7", "star:6", "complete:5", "ring:6", "random:12:0.3", "random:16:0.15",
}

// PoolCases returns the pool suite: every graph of n nodes × R in {1,
// n/2, n−1} × delay × seeds seeds.
func PoolCases(seeds int) []Case {
	var cs []Case
	for _, g := range PoolGraphs {
		n, err := graph.Parse(g, rand.New(rand.NewPCG(0, 0)))
		if err != nil {
			panic(err)
		}
		units := []int{1}
		for _, r := range []int{n.N() / 2, n.N() - 1} {
			if r > units[len(units)-1] {
				units = append(units, r)
			}
		}
		for _, r := range units {
			for _, d := range Delays {
				dist, err := dist.Parse(d)
				if err != nil {
					panic(err)
				}
				for s := 0; s < seeds; s++ {
					cs = append(cs, Case{Name: g, Units: r, Seed: uint64(1000*s + 7), Delay: dist})
				}
			}
		}
	}
	return cs
}

// CheckPool runs the pool algorithm a and returns the cases it fails.
func CheckPool(a algo.Algorithm, cases []Case) []Failure {
	var fails []Failure
	for _, c := range cases {
		if why := RunPoolCase(a, c); why != "" {
			fails = append(fails, Failure{c, why})
		}
	}
	return fails
}

// RunPoolCase runs one pool case to quiescence, every node asking PerUser
// times, and says what went wrong ("" for nothing): a unit held twice, a
// process holding two units, more than R units, a deadlock, or a request
// never granted.
func RunPoolCase(a algo.Algorithm, c Case) string {
	g, err := graph.Parse(c.Name, rand.New(rand.NewPCG(c.Seed, 99)))
	if err != nil {
		return err.Error()
	}
	pb := &algo.Problem{Kind: algo.Pool, Users: g.N(), Graph: g, Units: c.Units, FIFO: a.NeedsFIFO}
	procs, err := a.Build(pb)
	if err != nil {
		return "build: " + err.Error()
	}
	pool := check.Pool{Units: c.Units}
	var waits check.Waits
	res, err := sim.Run(sim.Config{
		Seed: c.Seed,
		Net:  sim.Network{Delay: c.Delay, FIFO: a.NeedsFIFO},
		Work: app.Workload{Think: dist.Uniform(0, 30), CS: dist.Uniform(1, 10), PerUser: PerUser},
		Sink: proc.Sinks{&pool, &waits},
	}, pb, procs)
	switch {
	case err != nil:
		return err.Error()
	case !pool.OK():
		return fmt.Sprintf("pool safety: %d violations, first: %s", pool.Violations, pool.First[0])
	case waits.Deadlock(res.Quiescent):
		return fmt.Sprintf("deadlock: quiescent at t=%d with %d open requests", res.End, waits.Open())
	case !res.Quiescent:
		return "run did not end"
	case res.Served != pb.Users*PerUser:
		return fmt.Sprintf("starvation: granted %d of %d requests", res.Served, pb.Users*PerUser)
	}
	return ""
}

// Pool runs the whole pool suite (fewer seeds with -short) and reports
// every failing case with its seed.
func Pool(t *testing.T, a algo.Algorithm) {
	t.Helper()
	seeds := 12
	if testing.Short() {
		seeds = 3
	}
	for _, f := range CheckPool(a, PoolCases(seeds)) {
		t.Errorf("%s: %s", a.Name, f)
	}
}
