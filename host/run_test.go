package host_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/algo/doorway"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/host"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport"
	"github.com/allot-dev/allot/transport/mem"
	"github.com/allot-dev/allot/transport/transporttest"
	"github.com/allot-dev/allot/workload"
)

// stream checks what the host promises of the stream besides what the
// checkers check: times never decrease, a delivery comes after its send,
// and a crashed process is silent after its crash.
type stream struct {
	t        *testing.T
	last     proc.Time
	enters   int
	inCS     int
	maxInCS  int
	inFlight map[[2]proc.ID]int // (from, to) -> sent - delivered
	sends    int
	crashed  map[proc.ID]bool
}

func newStream(t *testing.T) *stream {
	return &stream{t: t, inFlight: map[[2]proc.ID]int{}, crashed: map[proc.ID]bool{}}
}

func (s *stream) Event(e proc.Event) {
	if e.Time < s.last {
		s.t.Errorf("time goes back: %d after %d", e.Time, s.last)
	}
	s.last = e.Time
	if s.crashed[e.P] {
		s.t.Errorf("t=%d: crashed p%d: %v", e.Time, e.P, e.Kind)
	}
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
		k := [2]proc.ID{e.Peer, e.P}
		if s.inFlight[k]--; s.inFlight[k] < 0 {
			s.t.Errorf("t=%d: p%d delivers a message from p%d that the stream has not sent", e.Time, e.P, e.Peer)
		}
	case proc.EvCrash:
		s.crashed[e.P] = true
	}
}

// realRun runs a on pb in real time with every user making perUser
// requests, and checks the stream with the same checkers as the
// conformance suite.
func realRun(t *testing.T, a algo.Algorithm, pb *algo.Problem, next func(proc.ID, *rand.Rand) proc.Request, perUser int, delay dist.Dist) host.Result {
	t.Helper()
	pb.FIFO = a.NeedsFIFO
	procs, err := a.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	var excl check.Exclusion
	var waits check.Waits
	st := newStream(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := host.Run(ctx, host.RunConfig{
		Tick:          200 * time.Microsecond,
		Seed:          5,
		Net:           host.Network{Delay: delay, FIFO: a.NeedsFIFO},
		Work:          app.Workload{Think: dist.Uniform(0, 5), CS: dist.Uniform(1, 3), PerUser: perUser, Next: next},
		Sink:          proc.Sinks{&excl, &waits, st},
		TraceMessages: true,
	}, pb, procs)
	if err != nil {
		t.Fatal(err)
	}
	want := pb.Users * perUser
	t.Logf("%s: %v, served %d in %v (%d ticks), %d messages, at most %d in CS at once",
		a.Name, res.Stop, res.Served, res.Elapsed.Round(time.Millisecond), res.End, res.Messages, st.maxInCS)
	switch {
	case !excl.OK():
		t.Errorf("exclusion: %d violations, first: %v", excl.Violations, excl.First)
	case res.Stop != host.StopQuiescent:
		t.Errorf("stopped by %v, want quiescence", res.Stop)
	case res.Deadlock || waits.Open() != 0 || res.Open != 0:
		t.Errorf("deadlock=%v, %d open requests (driver says %d)", res.Deadlock, waits.Open(), res.Open)
	case res.Served != want || st.enters != want || res.Requests != want:
		t.Errorf("served %d, entered %d, requested %d, want %d", res.Served, st.enters, res.Requests, want)
	case int64(st.sends) != res.Messages || res.Delivered != res.Messages:
		t.Errorf("%d sends in the stream, %d sent, %d delivered", st.sends, res.Messages, res.Delivered)
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

// perUser gives a few hundred entries on ring:5 (fewer with -short).
func perUser() int {
	if testing.Short() {
		return 30
	}
	return 60
}

func TestHygienicRing5(t *testing.T) {
	before := goroutines()
	realRun(t, hygienic.Algorithm, ring5(t), nil, perUser(), dist.Uniform(1, 5))
	if n := transporttest.Settle(before); n > before {
		t.Errorf("goroutine leak: %d after the run, %d before", n, before)
	}
}

func TestCentralRing5(t *testing.T) {
	res := realRun(t, central.Algorithm, ring5(t), nil, perUser(), dist.Uniform(1, 5))
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
	realRun(t, central.Algorithm, pb, next, 20, dist.Uniform(1, 5))
}

func TestStopAfterRequests(t *testing.T) {
	pb := ring5(t)
	procs, _ := hygienic.Build(pb)
	var excl check.Exclusion
	before := goroutines()
	res, err := host.Run(context.Background(), host.RunConfig{
		Tick: 200 * time.Microsecond, Net: host.Network{Delay: dist.Uniform(1, 5)}, Work: app.Workload{CS: dist.Const(1)},
		Requests: 100, Sink: &excl,
	}, pb, procs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != host.StopRequests || res.Served < 100 || res.Served > 100+pb.Users {
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
	res, err := host.Run(ctx, host.RunConfig{Tick: 100 * time.Microsecond, Net: host.Network{Delay: dist.Uniform(0, 3)}, Work: app.Workload{CS: dist.Const(1)}}, pb, procs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != host.StopContext || res.Served == 0 {
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
	res, err := host.Run(context.Background(), host.RunConfig{
		Tick: time.Millisecond, Work: app.Workload{CS: dist.Const(20), PerUser: 2}, Sink: &excl,
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
	res, err := host.Run(context.Background(), host.RunConfig{Tick: 100 * time.Microsecond, Work: app.Workload{PerUser: 1}, Sink: &waits}, pb, procs)
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
	res, err := host.Run(context.Background(), host.RunConfig{Tick: 100 * time.Microsecond, Work: app.Workload{PerUser: 3}}, pb, procs)
	if err == nil || !strings.Contains(err.Error(), "process 2") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v, want the panic of process 2", err)
	}
	if res.Stop != host.StopError {
		t.Errorf("stop %v, want error", res.Stop)
	}
	if n := transporttest.Settle(before); n > before {
		t.Errorf("goroutine leak: %d after the run, %d before", n, before)
	}
}

// stray sends to a process that does not exist.
type stray struct{ greedy }

func (stray) Request(env proc.Env, _ proc.Request) { env.Send(99, transporttest.Msg{}) }

// TestSendErrorIsError: a send the transport refuses stops the run with an
// error naming it; nothing panics.
func TestSendErrorIsError(t *testing.T) {
	pb := ring5(t)
	procs := []proc.Process{greedy{}, stray{}, greedy{}, greedy{}, greedy{}}
	res, err := host.Run(context.Background(), host.RunConfig{Tick: 100 * time.Microsecond, Work: app.Workload{PerUser: 3}}, pb, procs)
	if err == nil || !strings.Contains(err.Error(), "process 1") || !strings.Contains(err.Error(), "unknown process 99") {
		t.Errorf("err = %v, want process 1's send to 99", err)
	}
	if res.Stop != host.StopError {
		t.Errorf("stop %v, want error", res.Stop)
	}
}

func TestBadInput(t *testing.T) {
	pb := ring5(t)
	procs, _ := hygienic.Build(pb)
	notUsers := make([]proc.Process, 5)
	for i := range notUsers {
		notUsers[i] = central.NewCoordinator()
	}
	fifo := *pb
	fifo.FIFO = true
	for _, c := range []struct {
		name  string
		cfg   host.RunConfig
		pb    *algo.Problem
		procs []proc.Process
	}{
		{"negative tick", host.RunConfig{Tick: -1}, pb, procs},
		{"negative requests", host.RunConfig{Requests: -1}, pb, procs},
		{"too few processes", host.RunConfig{}, pb, procs[:3]},
		{"users not allocators", host.RunConfig{}, pb, notUsers},
		{"crash of no process", host.RunConfig{Net: host.Network{Crashes: []host.Crash{{P: 9, At: 1}}}}, pb, procs},
		{"FIFO problem, unordered links", host.RunConfig{}, &fifo, procs},
		{"delays and a transport", host.RunConfig{Net: host.Network{Delay: dist.Const(1)}, Transport: mem.New(mem.Config{})}, pb, procs},
	} {
		if _, err := host.Run(context.Background(), c.cfg, c.pb, c.procs); err == nil {
			t.Errorf("%s: no error", c.name)
		} else if !strings.HasPrefix(err.Error(), "host: ") {
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
	res, err := host.Run(context.Background(), host.RunConfig{
		Tick: 250 * time.Microsecond,                      // one tick of the workload, in real time
		Net:  host.Network{Delay: dist.Uniform(1, 4)},     // the in-memory transport's delays
		Work: app.Workload{CS: dist.Const(2), PerUser: 4}, // then the run goes quiet and stops
		Sink: proc.Sinks{&excl, &waits},
	}, pb, procs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Stop, res.Served, "served,", excl.Violations, "violations,", waits.Open(), "open")
	// Output: quiescent 20 served, 0 violations, 0 open
}

// TestRunOnAGivenTransport: Run takes the transport it is given (here a
// FIFO one for doorway) and closes it on return.
func TestRunOnAGivenTransport(t *testing.T) {
	pb := ring5(t)
	pb.FIFO = true
	procs, err := doorway.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	tr := mem.New(mem.Config{Delay: dist.Uniform(0, 4), FIFO: true, Tick: 200 * time.Microsecond})
	var excl check.Exclusion
	res, err := host.Run(context.Background(), host.RunConfig{Tick: 200 * time.Microsecond, Transport: tr, Work: app.Workload{CS: dist.Const(1), PerUser: 10}, Sink: &excl}, pb, procs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != host.StopQuiescent || res.Served != 50 || !excl.OK() {
		t.Errorf("stop %v, %d served, exclusion %v", res.Stop, res.Served, excl.First)
	}
	if err := tr.Register(0, func(proc.ID, proc.Message) {}); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("the transport was not closed: %v", err)
	}
}
