package threshold_test

import (
	"fmt"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/algo/threshold"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/conformance"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// run simulates g with every user asking perUser times.
func run(t *testing.T, a algo.Algorithm, spec string, cfg sim.Config) (sim.Result, *check.Exclusion) {
	t.Helper()
	g, err := graph.Parse(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	pb := algo.DiningProblem(g)
	ps, err := a.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	var ex check.Exclusion
	cfg.Sink = &ex
	res, err := sim.Run(cfg, pb, ps)
	if err != nil {
		t.Fatal(err)
	}
	return res, &ex
}

// A hungry process that is not at its threshold point gives up clean forks:
// on a line whose priorities all point one way, the crash of the process
// every other one waits on starves only its neighbour. The hygienic
// algorithm starves the whole line in the same run.
func TestThresholdBreaksWaitingChains(t *testing.T) {
	cfg := sim.Config{Seed: 1, Net: sim.Network{Delay: dist.Const(5), Crashes: []sim.Crash{{P: 9, At: 9}}}, Work: app.Workload{CS: dist.Const(3), PerUser: 1}} // before the forks it asked for arrive
	res, ex := run(t, threshold.Algorithm, "line:10", cfg)
	if !ex.OK() {
		t.Fatal(ex.First)
	}
	if res.Open != 1 {
		t.Errorf("threshold: %d processes starved by the crash of the highest-priority end, want 1 (its neighbour)", res.Open)
	}
	res, _ = run(t, hygienic.Algorithm, "line:10", cfg)
	if res.Open != 8 {
		t.Errorf("hygienic: %d processes starved, want 8: all but the crashed end and process 0, which eats at once (the scenario no longer builds the chain)", res.Open)
	}
}

func TestBuildRejectsPool(t *testing.T) {
	if _, err := threshold.Algorithm.Build(&algo.Problem{Kind: algo.Pool, Users: 2}); err == nil {
		t.Fatal("no error for a pool problem")
	}
}

func ExampleBuild() {
	g, _ := graph.Parse("ring:4", nil)
	pb := algo.DiningProblem(g)
	ps, _ := threshold.Build(pb, nil)
	var ex check.Exclusion
	res, _ := sim.Run(sim.Config{Seed: 1, Requests: 100, Sink: &ex, Net: sim.Network{Delay: dist.Uniform(1, 3)}, Work: app.Workload{CS: dist.Const(2)}}, pb, ps)
	fmt.Println(res.Served, ex.OK())
	var _ proc.Sink = &ex
	// Output: 100 true
}

func BenchmarkThresholdRing(b *testing.B) {
	g, _ := graph.Parse("ring:1000", nil)
	pb := algo.DiningProblem(g)
	var msgs int64
	for i := 0; i < b.N; i++ {
		ps, _ := threshold.Build(pb, nil)
		res, err := sim.Run(sim.Config{Seed: uint64(i), Requests: 20000, Net: sim.Network{Delay: dist.Uniform(1, 10)}, Work: app.Workload{CS: dist.Uniform(1, 5)}}, pb, ps)
		if err != nil {
			b.Fatal(err)
		}
		msgs += res.Messages
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}
func TestGolden(t *testing.T) { conformance.Golden(t, threshold.Algorithm, "testdata/golden") }
