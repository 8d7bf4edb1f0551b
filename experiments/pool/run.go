package pool

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/broadcastpool"
	"github.com/allot-dev/allot/algo/centralpool"
	"github.com/allot-dev/allot/algo/hashpool"
	carvalho "github.com/allot-dev/allot/algo/pool"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/experiments/study"
	"github.com/allot-dev/allot/experiments/sweep"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/metrics"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// The model of every run (see the package doc).
const (
	nodes   = 31
	units   = 5
	holdMin = 50
	holdMax = 150
	delayLo = 1
	delayHi = 9
)

// Loads are the offered load factors of the sweep: up to 1 and past it
// (a closed system: at ρ > 1 more units are asked for than exist, and
// users queue; ρ cannot exceed n/R = 6.2, where nobody thinks).
var Loads = []float64{0.2, 0.4, 0.6, 0.8, 0.9, 0.99, 1.5, 3, 6}

// Shapes are the graphs R-RESOURCES runs on (the baselines ignore them):
// the complete network of §1 first, where it runs on its breadth-first
// spanning tree from node 0, a star; then a line and a binary tree.
var Shapes = []string{"complete:31", "line:31", "tree:31:2"}

// algos are the pool algorithms compared, R-RESOURCES first.
var algos = []algo.Algorithm{carvalho.Algorithm, centralpool.Algorithm, broadcastpool.Algorithm, hashpool.Algorithm}

// thinkMean is the mean think time that makes the offered load ρ·R: each
// of n users asks for a unit once per think + hold, holding it hold ticks,
// so n·H/(T+H) = ρ·R.
func thinkMean(rho float64) float64 {
	h := float64(holdMin+holdMax) / 2
	return h * (float64(nodes)/(rho*units) - 1)
}

// run is one measured simulation.
type run struct {
	Grants     int
	Messages   int64
	Wait       metrics.Stats
	Pool       metrics.PoolSummary
	Violations int
	Open       int
	First      string // the first violation, if any
	Err        string
}

// job is one point of the sweep: an algorithm on a shape at a load, one
// seed. The baselines ignore the shape, so they run on the first one only.
type job struct {
	a, shape, load, seed int
}

func jobs(seeds int) []job {
	var js []job
	for a := range algos {
		for sh := range Shapes {
			if a > 0 && sh > 0 {
				continue
			}
			for l := range Loads {
				for s := range seeds {
					js = append(js, job{a, sh, l, s})
				}
			}
		}
	}
	return js
}

// measure runs one job. The seed depends on the shape, load and seed
// index, not on the algorithm: every algorithm sees the same workload
// draws at a point (common random numbers).
func measure(j job, base uint64, requests int) run {
	seed := sweep.Seed(base, uint64(j.load), uint64(j.seed))
	g, err := graph.Parse(Shapes[j.shape], rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		return run{Err: err.Error()}
	}
	pb := &algo.Problem{Kind: algo.Pool, Users: g.N(), Graph: g, Units: units}
	a := algos[j.a]
	procs, err := a.Build(pb)
	if err != nil {
		return run{Err: err.Error()}
	}
	safety := check.Pool{Units: units}
	var waits check.Waits
	var rec metrics.Recorder
	pm := metrics.Pool{Units: units, Dist: unitWay(g)}
	res, err := sim.Run(sim.Config{
		Seed:     seed,
		Net:      sim.Network{Delay: dist.Uniform(delayLo, delayHi)},
		Work:     app.Workload{Think: dist.Exp(thinkMean(Loads[j.load])), CS: dist.Uniform(holdMin, holdMax)},
		Requests: requests,
		Drain:    1 << 40, // every open request is answered before the run ends
		Sink:     proc.Sinks{&safety, &waits, &rec, &pm},
	}, pb, procs)
	if err != nil {
		return run{Err: fmt.Sprintf("%s seed %d: %v", a.Name, seed, err)}
	}
	out := run{
		Grants:     pm.Grants,
		Messages:   res.Messages,
		Wait:       rec.Summary(res.End).Response,
		Pool:       pm.Summary(res.End),
		Violations: safety.Violations,
		Open:       waits.Open(),
	}
	if len(safety.First) > 0 {
		out.First = fmt.Sprintf("%s seed %d: %s", a.Name, seed, safety.First[0])
	}
	return out
}

// unitWay is the length of the shortest way between two nodes in the
// network g itself, whatever the algorithm sends units over: the yardstick
// of §1's belief, which is about a network "in which every node is
// connected with each other". On complete:31 that is one hop, so a unit
// that R-RESOURCES passes leaf → hub → leaf makes one excess move, as a
// unit broadcast-pool offers to a node that does not use it does. (An
// earlier yardstick, each algorithm's own tree, counted R-RESOURCES' two
// hops through the hub as needed and so measured it against itself.)
func unitWay(g *graph.Graph) func(p, q proc.ID) int {
	d := make([][]int32, g.N())
	for p := range d {
		d[p] = g.Distances(proc.ID(p))
	}
	return func(p, q proc.ID) int { return int(d[p][q]) }
}

// sweepAll runs every job on all cores.
func sweepAll(ctx context.Context, o study.Options, seeds, requests int) ([]job, []run, error) {
	js := jobs(seeds)
	rs, err := sweep.Map(ctx, len(js), o.Progress, func(i int) run { return measure(js[i], o.Seed, requests) })
	if err != nil {
		return nil, nil, err
	}
	for _, r := range rs {
		if r.Err != "" {
			return nil, nil, fmt.Errorf("%s", r.Err)
		}
	}
	return js, rs, nil
}
