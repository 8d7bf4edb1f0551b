package host_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/doorway"
	"github.com/allot-dev/allot/algo/threshold"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/host"
	"github.com/allot-dev/allot/proc"
)

// TestCrashSeenByCheckers crashes doorway processes in real time, on FIFO
// links: the crash is on the stream (and nothing from the crashed process
// after it), exclusion still holds, the checkers do not count the crashed
// user's request as open, and the failure locality the Locality checker
// measures from the stream is within the paper's bound of 3. The
// crashes are seen in the order of their ticks.
func TestCrashSeenByCheckers(t *testing.T) {
	for _, crashes := range [][]host.Crash{
		{{P: 5, At: 40}},
		{{P: 2, At: 30}, {P: 9, At: 60}},
		// Due at once: they happen in the schedule's order all the same.
		{{P: 9, At: 0}, {P: 2, At: 0}},
	} {
		g, err := graph.Parse("line:12", nil)
		if err != nil {
			t.Fatal(err)
		}
		pb := algo.DiningProblem(g)
		pb.FIFO = true
		procs, err := doorway.Build(pb)
		if err != nil {
			t.Fatal(err)
		}
		var excl check.Exclusion
		var waits check.Waits
		loc := check.Locality{Graph: g}
		st := newStream(t)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := host.Run(ctx, host.RunConfig{
			Tick: 200 * time.Microsecond,
			Seed: 3,
			Net:  host.Network{Delay: dist.Uniform(1, 5), FIFO: true, Crashes: crashes},
			Work: app.Workload{Think: dist.Uniform(0, 5), CS: dist.Uniform(1, 4), PerUser: 40},
			Sink: proc.Sinks{&excl, &waits, &loc, st},
		}, pb, procs)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		lr := loc.Result(res.End, res.Quiescent)
		t.Logf("crashes %v: %v after %d ticks, served %d, failure set %v, locality %d, open %d",
			crashes, res.Stop, res.End, res.Served, lr.FailureSet, lr.FailureLocality, res.Open)
		var want []proc.ID
		for _, c := range crashes {
			want = append(want, c.P)
			if !st.crashed[c.P] {
				t.Errorf("no crash of p%d on the stream", c.P)
			}
		}
		switch {
		case res.Stop != host.StopQuiescent:
			t.Errorf("stopped by %v, want quiescence", res.Stop)
		case !excl.OK():
			t.Errorf("exclusion: %v", excl.First)
		case !slices.Equal(lr.Crashed, want):
			t.Errorf("the checker saw crashes %v, want %v", lr.Crashed, want)
		case lr.FailureLocality > 3 || lr.Unreachable > 0:
			t.Errorf("failure locality %d (%d unreachable starved), doorway promises 3", lr.FailureLocality, lr.Unreachable)
		case waits.Open() != res.Open:
			t.Errorf("the checker counts %d open requests, the driver %d live ones", waits.Open(), res.Open)
		}
		// Everyone outside the failure set was served every request.
		if want := (pb.Users - len(lr.FailureSet)) * 40; res.Served < want {
			t.Errorf("served %d, want at least %d", res.Served, want)
		}
	}
}

// TestRandomCrashes: over random seeds, an algorithm with a failure
// locality bound runs on a random graph with random crashes at random
// ticks; whatever the schedule, exclusion holds, the crashed processes are
// silent after their crash, the run ends quiet, and the failure locality
// measured from the stream is within the paper's bound.
func TestRandomCrashes(t *testing.T) {
	algs := []struct {
		a     algo.Algorithm
		bound int
	}{{doorway.Algorithm, 3}, {threshold.Algorithm, 2}}
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		rnd := rand.New(rand.NewPCG(seed, 77))
		c := algs[rnd.IntN(len(algs))]
		g, err := graph.Parse(fmt.Sprintf("random:%d:0.3", 6+rnd.IntN(6)), rnd)
		if err != nil {
			t.Fatal(err)
		}
		pb := algo.DiningProblem(g)
		pb.FIFO = c.a.NeedsFIFO
		procs, err := c.a.Build(pb)
		if err != nil {
			t.Fatal(err)
		}
		var crashes []host.Crash
		for _, p := range rnd.Perm(pb.Users)[:1+rnd.IntN(2)] {
			crashes = append(crashes, host.Crash{P: proc.ID(p), At: proc.Time(rnd.IntN(150))})
		}
		var excl check.Exclusion
		var waits check.Waits
		loc := check.Locality{Graph: g}
		st := newStream(t)
		res, err := host.Run(context.Background(), host.RunConfig{
			Tick: 200 * time.Microsecond,
			Seed: seed,
			Net:  host.Network{Delay: dist.Exp(3), FIFO: c.a.NeedsFIFO, Crashes: crashes},
			Work: app.Workload{Think: dist.Uniform(0, 8), CS: dist.Uniform(1, 4), PerUser: 15},
			Sink: proc.Sinks{&excl, &waits, &loc, st},
		}, pb, procs)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		lr := loc.Result(res.End, res.Quiescent)
		why := ""
		switch {
		case res.Stop != host.StopQuiescent:
			why = fmt.Sprintf("stopped by %v", res.Stop)
		case !excl.OK():
			why = fmt.Sprintf("exclusion: %v", excl.First)
		case len(lr.Crashed) != len(crashes):
			why = fmt.Sprintf("the checker saw crashes %v", lr.Crashed)
		case lr.FailureLocality > c.bound || lr.Unreachable > 0:
			why = fmt.Sprintf("failure locality %d (%d unreachable starved), bound %d", lr.FailureLocality, lr.Unreachable, c.bound)
		case waits.Open() != res.Open:
			why = fmt.Sprintf("the checker counts %d open requests, the driver %d", waits.Open(), res.Open)
		}
		t.Logf("seed %d: %s on %d users, crashes %v: served %d, failure set %v, locality %d",
			seed, c.a.Name, pb.Users, crashes, res.Served, lr.FailureSet, lr.FailureLocality)
		if why != "" {
			t.Errorf("seed %d: %s: %s", seed, c.a.Name, why)
		}
	}
}
