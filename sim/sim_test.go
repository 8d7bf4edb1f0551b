package sim_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/trace"
)

// seqMsg carries a sequence number, to observe ordering.
type seqMsg struct{ N int }

func (seqMsg) Kind() string { return "seq" }

type tick struct{}

// chatter: process 0 sends count numbered messages to process 1 at start;
// process 1 records the order of arrival and the arrival times. Processes
// also arm a timer of 10 local ticks at start and record when it fires.
type chatter struct {
	count int
	got   []int
	at    []proc.Time
	fired proc.Time
}

func (c *chatter) Start(env proc.Env) {
	if env.Self() == 0 {
		for i := 0; i < c.count; i++ {
			env.Send(1, seqMsg{i})
		}
	}
	env.After(10, tick{})
}
func (c *chatter) Deliver(env proc.Env, _ proc.ID, m proc.Message) {
	c.got = append(c.got, m.(seqMsg).N)
	c.at = append(c.at, env.Now())
}
func (c *chatter) Fire(env proc.Env, _ proc.Timer) { c.fired = env.Now() }

func runChatter(t *testing.T, cfg sim.Config, count int) (*chatter, sim.Result) {
	t.Helper()
	a, b := &chatter{count: count}, &chatter{}
	res, err := sim.Run(cfg, &algo.Problem{}, []proc.Process{a, b})
	if err != nil {
		t.Fatal(err)
	}
	return b, res
}

func inOrder(xs []int) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] < xs[i-1] {
			return false
		}
	}
	return true
}

func TestChannels(t *testing.T) {
	d := dist.Uniform(1, 50)
	b, _ := runChatter(t, sim.Config{Seed: 1, Net: sim.Network{Delay: d}}, 200)
	if len(b.got) != 200 {
		t.Fatalf("delivered %d of 200", len(b.got))
	}
	if inOrder(b.got) {
		t.Error("unordered channels delivered 200 messages with random delays in order")
	}
	b, _ = runChatter(t, sim.Config{Seed: 1, Net: sim.Network{Delay: d, FIFO: true}}, 200)
	if !inOrder(b.got) || len(b.got) != 200 {
		t.Errorf("FIFO channel reordered: %v", b.got)
	}
}

func TestDelayAndCost(t *testing.T) {
	b, _ := runChatter(t, sim.Config{Net: sim.Network{Delay: dist.Const(7)}}, 3)
	if fmt.Sprint(b.at) != "[7 7 7]" || b.fired != 10 {
		t.Errorf("const delay: arrivals %v, timer at %d", b.at, b.fired)
	}
	// With a processing cost of 2, process 1 is busy 2 ticks per input:
	// its start occupies [0,2), the messages leave process 0 at tick 2
	// (sent while handling its start), arrive at 9, and are handled at 9,
	// 11, 13; its timer, armed during its start for tick 2+10, finds the
	// process busy and waits until 15.
	b, _ = runChatter(t, sim.Config{Net: sim.Network{Delay: dist.Const(7), Cost: 2}}, 3)
	if fmt.Sprint(b.at) != "[9 11 13]" || b.fired != 15 {
		t.Errorf("cost: arrivals %v, timer at %d (want [9 11 13], 15)", b.at, b.fired)
	}
}

type doubleSpeed struct{}

func (doubleSpeed) Duration(p proc.ID, _, d proc.Time) proc.Time {
	if p == 1 {
		return 2 * d
	}
	return d
}

func TestSpeedScalesLocalTimers(t *testing.T) {
	b, _ := runChatter(t, sim.Config{Net: sim.Network{Delay: dist.Const(1), Speed: doubleSpeed{}}}, 1)
	if b.fired != 20 {
		t.Errorf("timer of a half-speed process fired at %d, want 20", b.fired)
	}
}

type recorder []proc.Event

func (r *recorder) Event(e proc.Event) { *r = append(*r, e) }

func TestCrashSilencesProcess(t *testing.T) {
	var ev recorder
	b, res := runChatter(t, sim.Config{Sink: &ev, Net: sim.Network{Delay: dist.Const(5), Crashes: []sim.Crash{{P: 1, At: 3}}}}, 4)
	if len(b.got) != 0 || b.fired != 0 {
		t.Errorf("crashed process handled inputs: got %v, timer %d", b.got, b.fired)
	}
	if len(ev) != 1 || ev[0].Kind != proc.EvCrash || ev[0].P != 1 || ev[0].Time != 3 {
		t.Errorf("events %+v, want one crash of p1 at 3", ev)
	}
	if res.Delivered != 0 || res.Messages != 4 {
		t.Errorf("delivered %d sent %d, want 0 and 4", res.Delivered, res.Messages)
	}
}

func hygienicTrace(t *testing.T, seed uint64) []byte {
	t.Helper()
	g, err := graph.Parse("grid:4x4", nil)
	if err != nil {
		t.Fatal(err)
	}
	pb := algo.DiningProblem(g)
	procs, _ := hygienic.Build(pb)
	var buf bytes.Buffer
	w := trace.NewWriter(&buf)
	_, err = sim.Run(sim.Config{Seed: seed, Requests: 500, Sink: w, Net: sim.Network{Delay: dist.Exp(10)}, Work: app.Workload{Think: dist.Exp(20), CS: dist.Uniform(1, 9)}}, pb, procs)
	if err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return buf.Bytes()
}

func TestSameSeedSameBytes(t *testing.T) {
	a, b := hygienicTrace(t, 42), hygienicTrace(t, 42)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed, different traces")
	}
	if bytes.Equal(a, hygienicTrace(t, 43)) {
		t.Fatal("different seeds, same trace: the seed is not used")
	}
}

func TestStopsAndDrain(t *testing.T) {
	g, _ := graph.Parse("ring:10", nil)
	pb := algo.DiningProblem(g)
	cfg := sim.Config{Seed: 3, Net: sim.Network{Delay: dist.Uniform(1, 10)}, Work: app.Workload{Think: dist.Uniform(0, 5), CS: dist.Const(3)}}

	procs, _ := hygienic.Build(pb)
	cfg.Horizon = 500
	res, _ := sim.Run(cfg, pb, procs)
	if res.End > 500 || res.Quiescent {
		t.Errorf("horizon 500: ended at %d, quiescent %v", res.End, res.Quiescent)
	}

	cfg.Horizon, cfg.Requests = 0, 100
	procs, _ = hygienic.Build(pb)
	res, _ = sim.Run(cfg, pb, procs)
	if res.Served != 100 || res.Requests <= 100 {
		t.Errorf("stop at 100 answers: served %d of %d requests", res.Served, res.Requests)
	}

	cfg.Drain = 10_000
	procs, _ = hygienic.Build(pb)
	var waits check.Waits
	cfg.Sink = &waits
	res, _ = sim.Run(cfg, pb, procs)
	if res.Served < 100 || res.Served != res.Requests || waits.Open() != 0 || res.Open != 0 {
		t.Errorf("drain: served %d of %d, open %d", res.Served, res.Requests, waits.Open())
	}
}

func TestPanicReportsSeed(t *testing.T) {
	_, err := sim.Run(sim.Config{Seed: 77}, &algo.Problem{}, []proc.Process{panicker{}})
	if err == nil || !strings.Contains(err.Error(), "seed 77") {
		t.Fatalf("err = %v, want the seed in it", err)
	}
}

type panicker struct{}

func (panicker) Start(proc.Env)                          { panic("boom") }
func (panicker) Deliver(proc.Env, proc.ID, proc.Message) {}
func (panicker) Fire(proc.Env, proc.Timer)               {}

// TestProgressEveryFewAnswers: a run of few inputs still reports progress
// as answers come (every 65536 inputs alone left central's coordinator on
// complete:5000 silent: its 60000 inputs take seconds each thousand).
func TestProgressEveryFewAnswers(t *testing.T) {
	g, _ := graph.Parse("ring:10", nil)
	pb := algo.DiningProblem(g)
	procs, _ := hygienic.Build(pb)
	var calls []int
	cfg := sim.Config{Seed: 3, Requests: 3000, Net: sim.Network{Delay: dist.Uniform(1, 10)}, Work: app.Workload{Think: dist.Uniform(0, 5), CS: dist.Const(3)},
		Progress: func(served, _ int, _ proc.Time) { calls = append(calls, served) }}
	res, err := sim.Run(cfg, pb, procs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Inputs >= 1<<16 {
		t.Fatalf("%d inputs: the run is too long to show it", res.Inputs)
	}
	prev := 0
	for _, c := range append(calls, res.Served) {
		if c-prev > 256+1 {
			t.Fatalf("progress at %v answers of %d: a gap over 256", calls, res.Served)
		}
		prev = c
	}
}
