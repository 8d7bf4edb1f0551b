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
)

// QuotaCase is one run of the quota suite: a communication graph, a delay
// distribution, a seed, the budget M, the waste W and how many requests each
// node makes.
type QuotaCase struct {
	Graph         string
	Seed          uint64
	Delay         dist.Dist
	Budget, Waste int
	PerUser       int
}

func (c QuotaCase) String() string {
	return fmt.Sprintf("%s delay=%s M=%d W=%d per-user=%d seed=%d", c.Graph, c.Delay, c.Budget, c.Waste, c.PerUser, c.Seed)
}

// QuotaGraphs are the communication graphs of the quota suite: trees,
// lines, random graphs and a few others.
var QuotaGraphs = []string{
	"line:2", "line:9", "line:40", "tree:15:2", "tree:30:3", "star:8", "ring:11", "grid:4x5",
	"complete:6", "random:12:0.3", "random:25:0.12", "random:60:0.05",
}

// quotaLoads are (M, W, demand) triples: W ranges from 0 to M, and the
// permits asked for in all are demand % of M (most runs exhaust the
// budget, some do not).
var quotaLoads = [][3]int{
	{1, 0, 300}, {5, 0, 150}, {40, 0, 150}, {40, 1, 150}, {40, 10, 50}, {40, 20, 150}, {40, 40, 150},
	{300, 0, 150}, {300, 30, 300}, {300, 150, 150}, {300, 299, 150}, {1000, 100, 90}, {1000, 500, 150},
	{5000, 2500, 150}, {5000, 50, 150}, {20, 5, 150}, {2000, 0, 150},
}

// QuotaCases returns the suite: every graph × delay × seeds seeds, each
// seed with the next (M, W) load.
func QuotaCases(seeds int) []QuotaCase {
	var cs []QuotaCase
	i := 0
	for _, g := range QuotaGraphs {
		gr, err := graph.Parse(g, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			panic(err)
		}
		for _, d := range Delays {
			dl, err := dist.Parse(d)
			if err != nil {
				panic(err)
			}
			for s := 0; s < seeds; s++ {
				l := quotaLoads[i%len(quotaLoads)]
				i++
				per := max(1, (l[0]*l[2]/100+gr.N()-1)/gr.N())
				cs = append(cs, QuotaCase{Graph: g, Seed: uint64(1000*s + 11), Delay: dl, Budget: l[0], Waste: l[1], PerUser: per})
			}
		}
	}
	return cs
}

// QuotaFailure is a case the algorithm failed.
type QuotaFailure struct {
	Case QuotaCase
	Why  string
}

func (f QuotaFailure) String() string { return f.Case.String() + ": " + f.Why }

// CheckQuota runs a on every case and returns the failures.
func CheckQuota(a algo.Algorithm, cases []QuotaCase) []QuotaFailure {
	var fails []QuotaFailure
	for _, c := range cases {
		if why := RunQuotaCase(a, c); why != "" {
			fails = append(fails, QuotaFailure{c, why})
		}
	}
	return fails
}

// RunQuotaCase runs one case to quiescence and says what went wrong (""
// for nothing): the consumption conditions (check.Quota, from the events
// only), every request answered, no deadlock.
func RunQuotaCase(a algo.Algorithm, c QuotaCase) string {
	g, err := graph.Parse(c.Graph, rand.New(rand.NewPCG(c.Seed, 99)))
	if err != nil {
		return err.Error()
	}
	pb := &algo.Problem{Kind: algo.Quota, Users: g.N(), Graph: g, Budget: c.Budget, Waste: c.Waste}
	q := check.Quota{Budget: c.Budget, Waste: c.Waste}
	work := app.Workload{Think: dist.Uniform(0, 30), PerUser: c.PerUser}
	return judge(a, pb, c.Seed, c.Delay, work, &q, &q.Report, "consumption conditions", q.Finish)
}

// Quota runs the quota suite (fewer seeds with -short) and reports every
// failing case with its seed.
func Quota(t *testing.T, a algo.Algorithm) {
	t.Helper()
	seeds := 8
	if testing.Short() {
		seeds = 2
	}
	for _, f := range CheckQuota(a, QuotaCases(seeds)) {
		t.Errorf("%s: %s", a.Name, f)
	}
}
