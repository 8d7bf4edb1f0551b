package runtime_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"allot/algo"
	"allot/algo/central"
	"allot/algo/hygienic"
	"allot/check"
	"allot/dist"
	"allot/graph"
	"allot/proc"
	"allot/runtime"
	"allot/runtime/transporttest"
	"allot/workload"
)

func TestMemTransport(t *testing.T) {
	transporttest.Run(t, func(t *testing.T) runtime.Transport {
		return runtime.NewMem(runtime.MemConfig{Delay: dist.Uniform(0, 20), Tick: 100 * time.Microsecond, Seed: 1})
	})
}

// TestMemUnordered: each message draws its own delay, so messages on one
// link overtake each other.
func TestMemUnordered(t *testing.T) {
	tr := runtime.NewMem(runtime.MemConfig{Delay: dist.Uniform(0, 20), Tick: 100 * time.Microsecond, Seed: 3})
	defer tr.Close()
	const k = 200
	got := make(chan int32, k)
	if err := tr.Register(1, func(_ proc.ID, m proc.Message) { got <- m.(transporttest.Msg).Seq }); err != nil {
		t.Fatal(err)
	}
	for s := int32(0); s < k; s++ {
		if err := tr.Send(0, 1, transporttest.Msg{Seq: s}); err != nil {
			t.Fatal(err)
		}
	}
	inversions, last := 0, int32(-1)
	for range k {
		s := <-got
		if s < last {
			inversions++
		}
		last = s
	}
	if inversions == 0 {
		t.Error("200 messages with delays 0..20 ticks arrived in send order")
	}
}

// stream records what the checkers need besides themselves: stream order
// properties the runtime promises.
type stream struct {
	t        *testing.T
	last     proc.Time
	enters   int
	inCS     int
	maxInCS  int
	inFlight map[[2]proc.ID]int // (from, to) -> sent - delivered
	sends    int
}

func (s *stream) Event(e proc.Event) {
	if e.Time < s.last {
		s.t.Errorf("time goes back: %d after %d", e.Time, s.last)
	}
	s.last = e.Time
	switch e.Kind {
	case proc.EvEnter:
		s.enters++
		s.inCS++
		s.maxInCS = max(s.maxInCS, s.inCS)
	case proc.EvExit:
		s.inCS--
	case proc.EvSend:
		s.sends++
		s.inFlight[[2]proc.ID{e.P, e.Peer}]++
	case proc.EvDeliver:
		// Causality: a delivery comes after its send in the stream.
		k := [2]proc.ID{e.Peer, e.P}
		if s.inFlight[k]--; s.inFlight[k] < 0 {
			s.t.Errorf("t=%d: p%d delivers a message from p%d that the stream has not sent", e.Time, e.P, e.Peer)
		}
	}
}

// realRun runs a on pb in real time with every user making perUser
// requests, and checks the stream with the same checkers as the
// conformance suite.
func realRun(t *testing.T, a algo.Algorithm, pb *algo.Problem, next func(proc.ID, *randRand) proc.Request, perUser int) runtime.Result {
	t.Helper()
	return realRunDelay(t, a, pb, next, perUser, dist.Uniform(1, 5))
}

func realRunDelay(t *testing.T, a algo.Algorithm, pb *algo.Problem, next func(proc.ID, *randRand) proc.Request, perUser int, delay dist.Dist) runtime.Result {
	t.Helper()
	procs, err := a.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	var excl check.Exclusion
	var waits check.Waits
	st := &stream{t: t, inFlight: map[[2]proc.ID]int{}}
	before := goroutines()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := runtime.Run(ctx, runtime.Config{
		Tick:          200 * time.Microsecond,
		Seed:          5,
		Delay:         delay,
		Think:         dist.Uniform(0, 5),
		CS:            dist.Uniform(1, 3),
		PerUser:       perUser,
		Next:          next,
		Sink:          proc.Sinks{&excl, &waits, st},
		TraceMessages: true,
	}, pb, procs)
	if err != nil {
		t.Fatal(err)
	}
	want := pb.Users * perUser
	t.Logf("%s: %v, served %d in %v (%d ticks), %d messages %v, at most %d in CS at once",
		a.Name, res.Stop, res.Served, res.Elapsed.Round(time.Millisecond), res.End, res.Messages, res.ByKind, st.maxInCS)
	switch {
	case !excl.OK():
		t.Errorf("exclusion: %d violations, first: %v", excl.Violations, excl.First)
	case res.Stop != runtime.StopQuiescent:
		t.Errorf("stopped by %v, want quiescence", res.Stop)
	case res.Deadlock || waits.Open() != 0 || res.Open != 0:
		t.Errorf("deadlock=%v, %d open requests (driver says %d)", res.Deadlock, waits.Open(), res.Open)
	case res.Served != want || st.enters != want || res.Requests != want:
		t.Errorf("served %d, entered %d, requested %d, want %d", res.Served, st.enters, res.Requests, want)
	case int64(st.sends) != res.Messages || res.Delivered != res.Messages:
		t.Errorf("%d sends in the stream, %d sent, %d delivered", st.sends, res.Messages, res.Delivered)
	}
	if n := transporttest.Settle(before); n > before {
		t.Errorf("goroutine leak: %d after the run, %d before", n, before)
	}
	return res
}

func ring5(t *testing.T) *algo.Problem {
	g, err := graph.Parse("ring:5", nil)
	if err != nil {
		t.Fatal(err)
	}
	return algo.DiningProblem(g)
}

func TestHygienicRing5(t *testing.T) {
	realRun(t, hygienic.Algorithm, ring5(t), nil, perUser())
}

func TestCentralRing5(t *testing.T) {
	res := realRun(t, central.Algorithm, ring5(t), nil, perUser())
	// Quiescent, so every request, grant and release has been delivered.
	if want := int64(3 * res.Served); res.Messages != want {
		t.Errorf("central sent %d messages for %d entries, want %d", res.Messages, res.Served, want)
	}
}

func TestCentralDynamic(t *testing.T) {
	d := workload.Dynamic{Users: 6, Resources: 5, MinDemand: 1, MaxDemand: 3}
	pb, next, err := d.Problem(newRand(9))
	if err != nil {
		t.Fatal(err)
	}
	realRun(t, central.Algorithm, pb, next, 20)
}

// TestConformanceRealTime runs both algorithms on a few more conflict
// graphs and a dynamic workload, with exponential delays, in real time.
func TestConformanceRealTime(t *testing.T) {
	if testing.Short() {
		t.Skip("real time")
	}
	for _, a := range []algo.Algorithm{hygienic.Algorithm, central.Algorithm} {
		for _, spec := range []string{"grid:3x3", "complete:4", "star:5", "random:10:0.3", "dyn:8:6:1:3"} {
			t.Run(a.Name+"/"+spec, func(t *testing.T) {
				var pb *algo.Problem
				var next func(proc.ID, *randRand) proc.Request
				if spec == "dyn:8:6:1:3" {
					var err error
					d := workload.Dynamic{Users: 8, Resources: 6, MinDemand: 1, MaxDemand: 3}
					if pb, next, err = d.Problem(newRand(2)); err != nil {
						t.Fatal(err)
					}
				} else {
					g, err := graph.Parse(spec, newRand(4))
					if err != nil {
						t.Fatal(err)
					}
					pb = algo.DiningProblem(g)
				}
				realRunDelay(t, a, pb, next, 8, dist.Exp(3))
			})
		}
	}
}

// perUser gives a few hundred entries on ring:5 (fewer with -short).
func perUser() int {
	if testing.Short() {
		return 30
	}
	return 60
}

func TestStopAfterRequests(t *testing.T) {
	pb := ring5(t)
	procs, _ := hygienic.Build(pb)
	var excl check.Exclusion
	before := goroutines()
	res, err := runtime.Run(context.Background(), runtime.Config{
		Tick: 200 * time.Microsecond, Delay: dist.Uniform(1, 5), CS: dist.Const(1),
		Requests: 100, Sink: &excl,
	}, pb, procs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != runtime.StopRequests || res.Served < 100 || res.Served > 100+pb.Users {
		t.Errorf("stop %v with %d served, want requests with 100..%d", res.Stop, res.Served, 100+pb.Users)
	}
	if !excl.OK() {
		t.Errorf("exclusion: %v", excl.First)
	}
	if n := transporttest.Settle(before); n > before {
		t.Errorf("goroutine leak: %d after the run, %d before", n, before)
	}
}

func TestContextDeadline(t *testing.T) {
	pb := ring5(t)
	procs, _ := central.Build(pb)
	before := goroutines()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := runtime.Run(ctx, runtime.Config{Tick: 100 * time.Microsecond, Delay: dist.Uniform(0, 3), CS: dist.Const(1)}, pb, procs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != runtime.StopContext || res.Served == 0 {
		t.Errorf("stop %v after %d served, want context after some", res.Stop, res.Served)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("Run took %v after a 100ms deadline", el)
	}
	if n := transporttest.Settle(before); n > before {
		t.Errorf("goroutine leak: %d after the run, %d before", n, before)
	}
}

// greedy enters at once: the checkers must catch it in real time as they
// do in the simulator.
type greedy struct{}

func (greedy) Start(proc.Env)                          {}
func (greedy) Deliver(proc.Env, proc.ID, proc.Message) {}
func (greedy) Fire(proc.Env, proc.Timer)               {}
func (greedy) Release(proc.Env)                        {}
func (greedy) Request(env proc.Env, r proc.Request) {
	env.Emit(proc.Event{Kind: proc.EvEnter, Res: r.Res})
}

func TestBrokenCaught(t *testing.T) {
	pb := ring5(t)
	procs := make([]proc.Process, pb.Users)
	for i := range procs {
		procs[i] = greedy{}
	}
	var excl check.Exclusion
	res, err := runtime.Run(context.Background(), runtime.Config{
		Tick: time.Millisecond, CS: dist.Const(20), PerUser: 2, Sink: &excl,
	}, pb, procs)
	if err != nil {
		t.Fatal(err)
	}
	if excl.OK() {
		t.Errorf("a process entering without coordination was not caught (%d served)", res.Served)
	}
}

// silent never answers: quiescence with open requests is a deadlock.
type silent struct{ greedy }

func (silent) Request(proc.Env, proc.Request) {}

func TestDeadlockDetected(t *testing.T) {
	pb := ring5(t)
	procs := []proc.Process{silent{}, silent{}, greedy{}, silent{}, greedy{}}
	var waits check.Waits
	res, err := runtime.Run(context.Background(), runtime.Config{Tick: 100 * time.Microsecond, PerUser: 1, Sink: &waits}, pb, procs)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Deadlock || res.Open != 3 || !waits.Deadlock(res.Quiescent) || waits.Open() != 3 {
		t.Errorf("deadlock %v with %d open (checker: %d), want a deadlock with 3", res.Deadlock, res.Open, waits.Open())
	}
}

type panicky struct{ greedy }

func (panicky) Request(proc.Env, proc.Request) { panic("boom") }

func TestPanicIsError(t *testing.T) {
	pb := ring5(t)
	procs := []proc.Process{greedy{}, greedy{}, panicky{}, greedy{}, greedy{}}
	before := goroutines()
	res, err := runtime.Run(context.Background(), runtime.Config{Tick: 100 * time.Microsecond, PerUser: 3}, pb, procs)
	if err == nil || !strings.Contains(err.Error(), "process 2") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v, want the panic of process 2", err)
	}
	if res.Stop != runtime.StopError {
		t.Errorf("stop %v, want error", res.Stop)
	}
	if n := transporttest.Settle(before); n > before {
		t.Errorf("goroutine leak: %d after the run, %d before", n, before)
	}
}

func TestBadInput(t *testing.T) {
	pb := ring5(t)
	procs, _ := hygienic.Build(pb)
	notUsers := make([]proc.Process, 5)
	for i := range notUsers {
		notUsers[i] = central.NewCoordinator()
	}
	for _, c := range []struct {
		name  string
		cfg   runtime.Config
		procs []proc.Process
	}{
		{"negative tick", runtime.Config{Tick: -1}, procs},
		{"negative requests", runtime.Config{Requests: -1}, procs},
		{"too few processes", runtime.Config{}, procs[:3]},
		{"users not allocators", runtime.Config{}, notUsers},
	} {
		if _, err := runtime.Run(context.Background(), c.cfg, pb, c.procs); err == nil {
			t.Errorf("%s: no error", c.name)
		} else if !strings.HasPrefix(err.Error(), "runtime: ") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func ExampleRun() {
	g, _ := graph.Parse("ring:5", nil)
	pb := algo.DiningProblem(g)
	procs, _ := hygienic.Build(pb)
	var excl check.Exclusion
	var waits check.Waits
	res, err := runtime.Run(context.Background(), runtime.Config{
		Tick:    250 * time.Microsecond, // one tick of the workload, in real time
		Delay:   dist.Uniform(1, 4),     // the in-memory transport's delays
		CS:      dist.Const(2),
		PerUser: 4, // then the run goes quiet and stops
		Sink:    proc.Sinks{&excl, &waits},
	}, pb, procs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Stop, res.Served, "served,", excl.Violations, "violations,", waits.Open(), "open")
	// Output: quiescent 20 served, 0 violations, 0 open
}
