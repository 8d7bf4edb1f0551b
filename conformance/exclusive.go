// Package conformance is the conformance suite every exclusive algorithm
// passes: many random seeds × conflict graphs and dynamic workloads × delay
// distributions, on unordered channels unless the algorithm needs FIFO.
// Each run gives every user a fixed number of requests and runs to
// quiescence, so the checkers can demand that every request is answered
// (no starvation, no deadlock) besides exclusion. The checkers read only the
// event stream.
//
// Quota is the suite every quota algorithm passes (quota.go): trees,
// lines, random graphs and others × delays × seeds, with budgets M from 1
// to 5000 and wastes W from 0 to M, judged by check.Quota (Afek et al.'s
// Def. 3.1) at the end of each run, which every answered request drains.
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
	"github.com/allot-dev/allot/workload"
)

// Case is one conformance run.
type Case struct {
	Name  string // graph spec or dynamic workload
	Units int    // pool cases: R
	Seed  uint64
	Delay dist.Dist
}

// Failure is a case the algorithm failed, with the seed that replays it.
type Failure struct {
	Case Case
	Why  string
}

func (f Failure) String() string {
	name := f.Case.Name
	if f.Case.Units > 0 {
		name += fmt.Sprintf(" units=%d", f.Case.Units)
	}
	return fmt.Sprintf("%s delay=%s seed=%d: %s", name, f.Case.Delay, f.Case.Seed, f.Why)
}

// Graphs are the conflict graphs of the suite; "dyn:U:R:K1:K2[:fixed]"
// names a dynamic workload of U users over R resources, each request naming
// K1..K2 of them (of a fixed set per user with :fixed).
var Graphs = []string{
	"ring:5", "line:7", "grid:3x4", "complete:5", "star:6", "tree:10:2", "random:12:0.3", "random:16:0.15",
	"dyn:8:6:1:3", "dyn:10:12:2:4:fixed",
}

// Delays are the message delay distributions of the suite.
var Delays = []string{"const:1", "uniform:1:20", "exp:10"}

// Cases returns the suite: every graph × delay × seeds seeds.
func Cases(seeds int) []Case {
	var cs []Case
	for _, g := range Graphs {
		for _, d := range Delays {
			dist, err := dist.Parse(d)
			if err != nil {
				panic(err)
			}
			for s := 0; s < seeds; s++ {
				cs = append(cs, Case{Name: g, Seed: uint64(1000*s + 7), Delay: dist})
			}
		}
	}
	return cs
}

// PerUser is how many requests each user makes in a conformance run.
const PerUser = 6

// Check runs a and returns the cases it fails.
func Check(a algo.Algorithm, cases []Case) []Failure {
	var fails []Failure
	for _, c := range cases {
		if why := RunCase(a, c); why != "" {
			fails = append(fails, Failure{c, why})
		}
	}
	return fails
}

// RunCase runs one case and says what went wrong ("" for nothing).
func RunCase(a algo.Algorithm, c Case) string {
	rnd := rand.New(rand.NewPCG(c.Seed, 99))
	pb, next, err := problem(c.Name, rnd)
	if err != nil {
		return err.Error()
	}
	var excl check.Exclusion
	work := app.Workload{Think: dist.Uniform(0, 30), CS: dist.Uniform(1, 10), PerUser: PerUser, Next: next}
	return judge(a, pb, c.Seed, c.Delay, work, &excl, &excl.Report, "exclusion", nil)
}

// judge builds a for pb and runs it to quiescence in the simulator, every
// user asking work.PerUser times, and says what went wrong ("" for
// nothing): a violation the kind's safety checker found (finish, when set,
// closes its books first), a deadlock, a run that does not end, or a
// request never answered. The checkers read only the events.
func judge(a algo.Algorithm, pb *algo.Problem, seed uint64, delay dist.Dist, work app.Workload, safety proc.Sink, report *check.Report, what string, finish func()) string {
	pb.FIFO = a.NeedsFIFO
	procs, err := a.Build(pb)
	if err != nil {
		return "build: " + err.Error()
	}
	var waits check.Waits
	res, err := sim.Run(sim.Config{Seed: seed, Sink: proc.Sinks{safety, &waits}, Net: sim.Network{Delay: delay, FIFO: a.NeedsFIFO}, Work: work}, pb, procs)
	if err != nil {
		return err.Error()
	}
	if finish != nil {
		finish()
	}
	switch {
	case !report.OK():
		return fmt.Sprintf("%s: %d violations, first: %s", what, report.Violations, report.First[0])
	case waits.Deadlock(res.Quiescent):
		return fmt.Sprintf("deadlock: quiescent at t=%d with %d open requests", res.End, waits.Open())
	case !res.Quiescent:
		return "run did not end"
	case res.Served != pb.Users*work.PerUser:
		return fmt.Sprintf("answered %d of %d requests", res.Served, pb.Users*work.PerUser)
	}
	return ""
}

// problem builds the instance a suite name describes.
func problem(name string, rnd *rand.Rand) (*algo.Problem, func(proc.ID, *rand.Rand) proc.Request, error) {
	var u, r, k1, k2 int
	var fixed string
	if n, _ := fmt.Sscanf(name, "dyn:%d:%d:%d:%d:%s", &u, &r, &k1, &k2, &fixed); n >= 4 {
		d := workload.Dynamic{Users: u, Resources: r, MinDemand: k1, MaxDemand: k2, FixedSets: fixed == "fixed"}
		return d.Problem(rnd)
	}
	g, err := graph.Parse(name, rnd)
	if err != nil {
		return nil, nil, err
	}
	return algo.DiningProblem(g), nil, nil
}

// Exclusive runs the whole suite (fewer seeds with -short) and reports
// every failing case with its seed.
func Exclusive(t *testing.T, a algo.Algorithm) {
	t.Helper()
	seeds := 12
	if testing.Short() {
		seeds = 3
	}
	for _, f := range Check(a, Cases(seeds)) {
		t.Errorf("%s: %s", a.Name, f)
	}
}
