package host_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/all"
	"github.com/allot-dev/allot/algo/doorway"
	"github.com/allot-dev/allot/algo/modular"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/host"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/workload"
)

// TestCatalogueRealTime runs every exclusive catalogue entry in real time
// under the conformance checkers (exclusion, every request answered, the
// stream's causality), on FIFO links when the algorithm needs them: the
// real-time host runs whatever the simulator runs.
func TestCatalogueRealTime(t *testing.T) {
	for _, a := range all.OfKind(algo.Exclusive) {
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			g, err := graph.Parse("grid:3x3", nil)
			if err != nil {
				t.Fatal(err)
			}
			realRun(t, a, algo.DiningProblem(g), nil, 5, dist.Uniform(1, 6))
		})
	}
}

// TestDoorwayFIFO: Choy and Singh's algorithm is proved for FIFO channels;
// doorway and Rhee's modular algorithm over it run on FIFO links in real
// time, on conflict graphs and (modular) a dynamic workload, and pass the
// checkers.
func TestDoorwayFIFO(t *testing.T) {
	specs := []string{"ring:6", "complete:4", "random:10:0.35", "dyn:8:6:1:3"}
	if testing.Short() {
		specs = specs[:2]
	}
	for _, a := range []algo.Algorithm{doorway.Algorithm, modular.For(doorway.Algorithm)} {
		if !a.NeedsFIFO {
			t.Fatalf("%s does not ask for FIFO links", a.Name)
		}
		for _, spec := range specs {
			if spec[:3] == "dyn" && a.Name == "doorway" {
				continue // a dining algorithm: the whole maximal set every time
			}
			t.Run(a.Name+"/"+spec, func(t *testing.T) {
				t.Parallel()
				pb, next := problem(t, spec)
				realRun(t, a, pb, next, 10, dist.Exp(3))
			})
		}
	}
}

// problem builds a conflict graph's problem or, for "dyn:U:R:K1:K2", a
// dynamic workload's.
func problem(t *testing.T, spec string) (*algo.Problem, func(proc.ID, *rand.Rand) proc.Request) {
	t.Helper()
	var u, r, k1, k2 int
	if n, _ := fmtSscanf(spec, "dyn:%d:%d:%d:%d", &u, &r, &k1, &k2); n == 4 {
		d := workload.Dynamic{Users: u, Resources: r, MinDemand: k1, MaxDemand: k2}
		pb, next, err := d.Problem(newRand(2))
		if err != nil {
			t.Fatal(err)
		}
		return pb, next
	}
	g, err := graph.Parse(spec, newRand(4))
	if err != nil {
		t.Fatal(err)
	}
	return algo.DiningProblem(g), nil
}

// TestPoolCatalogueRealTime runs every pool entry of the catalogue in real
// time under the pool checker: never more than R units out, one holder per
// unit, every request granted.
func TestPoolCatalogueRealTime(t *testing.T) {
	for _, a := range all.OfKind(algo.Pool) {
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			g, err := graph.Parse("tree:10:2", nil)
			if err != nil {
				t.Fatal(err)
			}
			const units, perUser = 3, 5
			pb := &algo.Problem{Kind: algo.Pool, Users: g.N(), Graph: g, Units: units, FIFO: a.NeedsFIFO}
			procs, err := a.Build(pb)
			if err != nil {
				t.Fatal(err)
			}
			pool := check.Pool{Units: units}
			var waits check.Waits
			st := newStream(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := host.Run(ctx, host.RunConfig{
				Tick:          200 * time.Microsecond,
				Seed:          5,
				Net:           host.Network{Delay: dist.Uniform(1, 6), FIFO: a.NeedsFIFO},
				Work:          app.Workload{Think: dist.Uniform(0, 5), CS: dist.Uniform(1, 3), PerUser: perUser},
				Sink:          proc.Sinks{&pool, &waits, st},
				TraceMessages: true,
			}, pb, procs)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %v, granted %d in %v, %d messages", a.Name, res.Stop, res.Served, res.Elapsed.Round(time.Millisecond), res.Messages)
			switch {
			case !pool.OK():
				t.Errorf("pool: %d violations, first: %v", pool.Violations, pool.First)
			case res.Stop != host.StopQuiescent || waits.Open() != 0:
				t.Errorf("stopped by %v with %d open requests", res.Stop, waits.Open())
			case res.Served != pb.Users*perUser:
				t.Errorf("granted %d of %d", res.Served, pb.Users*perUser)
			}
		})
	}
}
