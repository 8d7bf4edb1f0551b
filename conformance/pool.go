package conformance

import (
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
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
	pb := &algo.Problem{Kind: algo.Pool, Users: g.N(), Graph: g, Units: c.Units}
	pool := check.Pool{Units: c.Units}
	work := app.Workload{Think: dist.Uniform(0, 30), CS: dist.Uniform(1, 10), PerUser: PerUser}
	return judge(a, pb, c.Seed, c.Delay, work, &pool, &pool.Report, "pool safety", nil)
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
