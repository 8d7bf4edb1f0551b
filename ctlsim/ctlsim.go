// Package ctlsim runs a control plane in the simulator under a fault
// schedule and judges it from its events alone: the nodes are the control
// plane's processes (package control: etcd-io/raft's RawNode and the view
// state machine), the driver is package sim with its fault model (crashes,
// restarts from persisted state, cut links, paused nodes), and the judge
// is check.Control.
//
//	Faults (scripted, or drawn from the seed) ──> sim.Run(nodes) ──events──> check.Control ──> findings
//	                                                          └──────────> measures (views, time serving)
//	                                                          └──────────> trace (optional)
//
// A sweep runs many seeds, each with its own random schedule, in parallel;
// its summary does not depend on the number of workers.
package ctlsim

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/internal/dense"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// Build makes the nodes 0..n-1 of a fresh control plane, every one in its
// initial state, for a run of the given seed.
type Build func(n int, seed uint64) ([]proc.Process, error)

// Config is one run.
type Config struct {
	Nodes   int
	Seed    uint64
	Horizon proc.Time // the run ends at this tick (required: a control plane never quiesces)
	Delay   dist.Dist // per-message delay
	Faults  Faults
	// Random draws the fault schedule from the seed (RandomFaults) instead
	// of Faults.
	Random bool
	// Budget is the permits the plane may issue in all (0: not judged).
	Budget int
	Build  Build
	Sink   proc.Sink // also fed every event (a trace), or nil
}

// Faults is a fault schedule, in the simulator's terms.
type Faults struct {
	Crashes  []sim.Crash   `json:"crashes,omitempty"`
	Restarts []sim.Restart `json:"restarts,omitempty"`
	Cuts     []sim.Cut     `json:"cuts,omitempty"`
	Pauses   []sim.Pause   `json:"pauses,omitempty"`
}

// healed is the tick the last fault ends: a restart, a pause's or a cut's
// end (a crash for good is not waited for; −1: a cut never heals).
func (f Faults) healed() proc.Time {
	var t proc.Time
	for _, r := range f.Restarts {
		t = max(t, r.At)
	}
	for _, c := range f.Cuts {
		if c.End == 0 {
			return -1
		}
		t = max(t, c.End)
	}
	for _, p := range f.Pauses {
		t = max(t, p.End)
	}
	return t
}

// Count is the number of faults in the schedule.
func (f Faults) Count() int { return len(f.Crashes) + len(f.Restarts) + len(f.Cuts) + len(f.Pauses) }

// Result is one run: what the driver saw, the measures and the findings.
type Result struct {
	Seed   uint64    `json:"seed"`
	Nodes  int       `json:"nodes"`
	Faults Faults    `json:"faults"`
	End    proc.Time `json:"end"`
	// Views is the number of distinct epochs served; LastEpoch the newest.
	Views     int    `json:"views"`
	LastEpoch uint64 `json:"last_epoch"`
	// Served lists the views served, in the order they first served.
	Served []View `json:"served"`
	// Serving is, per node, the ticks it served (from its view to its
	// fence, crash or restart, by its events); Unserved the ticks no node
	// served.
	Serving  []proc.Time `json:"serving"`
	Unserved proc.Time   `json:"unserved"`
	// Healed is the tick the last fault ended (a crash for good aside;
	// −1: a cut never healed), and Recovery how long after it a majority
	// first served one view again (0: one served through; −1: none by the
	// end of the run). The checker judges safety; this is liveness.
	Healed   proc.Time `json:"healed"`
	Recovery proc.Time `json:"recovery"`
	Messages int64     `json:"messages"`
	Dropped  int64     `json:"dropped"`
	Events   int       `json:"events"`
	// Findings is the checker's count; First the first few, described.
	Findings int      `json:"findings"`
	First    []string `json:"first,omitempty"`
}

// View is a view that served: its epoch, its members, the tick a node
// first served it and how many nodes did.
type View struct {
	Epoch   uint64    `json:"epoch"`
	Members []proc.ID `json:"members"`
	From    proc.Time `json:"from"`
	Nodes   int       `json:"nodes"`
}

// Schedule is the fault schedule cfg runs: Faults, or the one drawn from
// the seed when Random.
func (cfg Config) Schedule() Faults {
	if !cfg.Random {
		return cfg.Faults
	}
	return RandomFaults(rand.New(rand.NewPCG(cfg.Seed, 0x6661756c74)), cfg.Nodes, cfg.Horizon)
}

// Run runs one control plane.
func Run(cfg Config) (Result, error) {
	if cfg.Nodes < 1 {
		return Result{}, fmt.Errorf("ctlsim: %d nodes: want at least 1", cfg.Nodes)
	}
	if cfg.Horizon <= 0 {
		return Result{}, fmt.Errorf("ctlsim: a horizon is required (a control plane never quiesces)")
	}
	cfg.Faults = cfg.Schedule()
	nodes, err := cfg.Build(cfg.Nodes, cfg.Seed)
	if err != nil {
		return Result{}, err
	}
	chk := &check.Control{Nodes: cfg.Nodes, Budget: cfg.Budget}
	m := &measure{nodes: cfg.Nodes, healed: cfg.Faults.healed(), recovery: -1}
	sinks := proc.Sinks{chk, m}
	if cfg.Sink != nil {
		sinks = append(sinks, cfg.Sink)
	}
	res, err := sim.Run(sim.Config{
		Seed:    cfg.Seed,
		Horizon: cfg.Horizon,
		Sink:    sinks,
		Net: sim.Network{Delay: cfg.Delay, Crashes: cfg.Faults.Crashes, Restarts: cfg.Faults.Restarts,
			Cuts: cfg.Faults.Cuts, Pauses: cfg.Faults.Pauses},
	}, &algo.Problem{}, nodes)
	if err != nil {
		return Result{}, err
	}
	m.close(cfg.Horizon, cfg.Nodes)
	return Result{
		Seed: cfg.Seed, Nodes: cfg.Nodes, Faults: cfg.Faults, End: cfg.Horizon,
		Views: len(m.epochs), LastEpoch: m.last, Served: m.views, Serving: m.serving, Unserved: m.unserved,
		Healed: m.healed, Recovery: m.recovery,
		Messages: res.Messages, Dropped: res.Dropped, Events: m.events,
		Findings: chk.Violations, First: chk.First,
	}, nil
}

// measure follows the events for the run's measures.
type measure struct {
	events   int
	epochs   map[uint64]int // epoch -> index in views
	views    []View
	servedBy map[[2]uint64]bool // (epoch, node) pairs seen
	last     uint64
	since    []proc.Time // per node: serving since (−1: not serving)
	serving  []proc.Time
	count    int       // nodes serving now
	idle     proc.Time // no node serving since
	unserved proc.Time
	// Recovery: the plane's nodes, the tick the faults healed, each
	// node's epoch served (0: none), and the answer (−1: not yet).
	nodes    int
	healed   proc.Time
	epochOf  []uint64
	recovery proc.Time
}

// majority reports whether a majority of the nodes serve one epoch.
func (m *measure) majority() bool {
	count := map[uint64]int{}
	for _, e := range m.epochOf {
		if e != 0 {
			if count[e]++; 2*count[e] > m.nodes {
				return true
			}
		}
	}
	return false
}

// recover notes the first instant from healed on when a majority serves.
func (m *measure) recover(t proc.Time) {
	if m.recovery < 0 && m.healed >= 0 && t >= m.healed && m.majority() {
		m.recovery = t - m.healed
	}
}

func (m *measure) Event(e proc.Event) {
	m.events++
	if e.P < 0 {
		return
	}
	if m.healed >= 0 && e.Time >= m.healed {
		// The state before the first event at or after the heal is the
		// state at the heal: a majority serving through it recovered at
		// once.
		m.recover(m.healed)
	}
	defer m.recover(e.Time)
	p := int(e.P)
	m.epochOf = dense.Grow(m.epochOf, p)
	switch e.Kind {
	case proc.EvView:
		m.epochOf[p] = e.Epoch
	case proc.EvFence, proc.EvCrash, proc.EvRestart:
		m.epochOf[p] = 0
	}
	for len(m.since) <= p {
		m.since = append(m.since, -1)
	}
	m.serving = dense.Grow(m.serving, p)
	switch e.Kind {
	case proc.EvView:
		if m.epochs == nil {
			m.epochs, m.servedBy = map[uint64]int{}, map[[2]uint64]bool{}
		}
		i, ok := m.epochs[e.Epoch]
		if !ok {
			i = len(m.views)
			m.epochs[e.Epoch] = i
			m.views = append(m.views, View{Epoch: e.Epoch, Members: slices.Clone(e.Members), From: e.Time})
		}
		if k := [2]uint64{e.Epoch, uint64(p)}; !m.servedBy[k] {
			m.servedBy[k] = true
			m.views[i].Nodes++
		}
		m.last = max(m.last, e.Epoch)
		if m.since[p] < 0 {
			m.start(p, e.Time)
		}
	case proc.EvFence, proc.EvCrash, proc.EvRestart:
		if m.since[p] >= 0 {
			m.stop(p, e.Time)
		}
	}
}

func (m *measure) start(p int, t proc.Time) {
	if m.count == 0 {
		m.unserved += t - m.idle
	}
	m.count++
	m.since[p] = t
}

func (m *measure) stop(p int, t proc.Time) {
	m.serving[p] += t - m.since[p]
	m.since[p] = -1
	if m.count--; m.count == 0 {
		m.idle = t
	}
}

// close ends the measures at the horizon.
func (m *measure) close(end proc.Time, nodes int) {
	if m.healed >= 0 && m.healed <= end {
		m.recover(m.healed) // no event came after the heal
	}
	for p := range m.since {
		if m.since[p] >= 0 {
			m.stop(p, end)
		}
	}
	if m.count == 0 {
		m.unserved += end - m.idle
	}
	m.serving = dense.Grow(m.serving, nodes-1)
}

// Summary is a sweep over seeds.
type Summary struct {
	Nodes int `json:"nodes"`
	Runs  int `json:"runs"`
	// Faults, Views: totals over the runs; Unserved: the mean share of
	// the run with no node serving.
	Faults   int     `json:"faults"`
	Views    int     `json:"views"`
	Unserved float64 `json:"unserved_share"`
	// MaxRecovery is the longest Recovery; NotRecovered the runs in which
	// no majority served again after the faults healed (by the end).
	MaxRecovery  proc.Time `json:"max_recovery"`
	NotRecovered int       `json:"not_recovered"`
	// Findings: the runs with at least one finding, and the first of them.
	Failed      int     `json:"failed_runs"`
	Findings    int     `json:"findings"`
	FirstFailed *Result `json:"first_failed,omitempty"`
}

// Sweep runs cfg for each seed (cfg.Seed is replaced) on up to workers
// goroutines (0: one per CPU), calling each (if set) with every result in
// seed order once all have run, and ended (if set) from the workers as
// each run ends, with the runs ended so far.
func Sweep(cfg Config, seeds []uint64, workers int, each func(Result), ended func(n int)) (Summary, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]Result, len(seeds))
	errs := make([]error, len(seeds))
	next := make(chan int)
	var wg sync.WaitGroup
	var done atomic.Int64
	for range min(workers, len(seeds)) {
		wg.Go(func() {
			for i := range next {
				c := cfg
				c.Seed, c.Sink = seeds[i], nil
				results[i], errs[i] = Run(c)
				if n := done.Add(1); ended != nil {
					ended(int(n))
				}
			}
		})
	}
	for i := range seeds {
		next <- i
	}
	close(next)
	wg.Wait()
	sum := Summary{Nodes: cfg.Nodes, Runs: len(seeds)}
	for i, r := range results {
		if errs[i] != nil {
			return sum, fmt.Errorf("seed %d: %w", seeds[i], errs[i])
		}
		if each != nil {
			each(r)
		}
		sum.Faults += r.Faults.Count()
		sum.Views += r.Views
		sum.Unserved += float64(r.Unserved) / float64(r.End) / float64(len(seeds))
		switch {
		case r.Healed >= 0 && r.Recovery < 0:
			sum.NotRecovered++
		case r.Healed >= 0:
			sum.MaxRecovery = max(sum.MaxRecovery, r.Recovery)
		}
		if r.Findings > 0 {
			sum.Failed++
			sum.Findings += r.Findings
			if sum.FirstFailed == nil {
				sum.FirstFailed = &results[i]
			}
		}
	}
	return sum, nil
}

// RandomFaults draws a fault schedule for n nodes over a run of horizon
// ticks: one to four faults, each starting in the first half of the run
// and lasting up to a fifth of it, so that the run heals (but for crashes
// for good) with at least three tenths of it left to recover in, each one
// of
//
//	crash, then restart   a node down for a while, back on its data
//	fast restart          a kill -9 and a restart in one tick
//	crash for good        a node fail-stops (a minority of them in all)
//	pause                 a node stopped (SIGSTOP) for a while
//	isolation             a node cut from every other, both ways
//	one-way cut           A→B dropped while B→A flows
//	non-transitive cut    A–B cut both ways while both reach the others
//	two fast restarts     two nodes killed and restarted in the same tick
//	full restart          every node down at once, back one after another
//	                      within a tenth of a lease of each other
//
// Every fault draws from rng alone, so a seed gives one schedule.
func RandomFaults(rng *rand.Rand, n int, horizon proc.Time) Faults {
	var f Faults
	span := func() (proc.Time, proc.Time) {
		start := horizon/10 + proc.Time(rng.Int64N(int64(max(1, horizon/2-horizon/10))))
		return start, start + 1 + proc.Time(rng.Int64N(int64(max(1, horizon/5))))
	}
	node := func() proc.ID { return proc.ID(rng.IntN(n)) }
	pair := func() (proc.ID, proc.ID) {
		a := node()
		b := (a + 1 + proc.ID(rng.IntN(n-1))) % proc.ID(n)
		return a, b
	}
	gone := map[proc.ID]bool{} // crashed for good
	for range 1 + rng.IntN(4) {
		switch k := rng.IntN(9); {
		case k == 0:
			p := node()
			if gone[p] {
				continue
			}
			down, up := span()
			f.Crashes = append(f.Crashes, sim.Crash{P: p, At: down})
			f.Restarts = append(f.Restarts, sim.Restart{P: p, At: up})
		case k == 1:
			p := node()
			if gone[p] {
				continue
			}
			at, _ := span()
			f.Restarts = append(f.Restarts, sim.Restart{P: p, At: at})
		case k == 2:
			p := node()
			if 2*(len(gone)+1) >= n || gone[p] {
				continue // a majority stays
			}
			gone[p] = true
			at, _ := span()
			f.Crashes = append(f.Crashes, sim.Crash{P: p, At: at})
		case k == 3:
			start, end := span()
			f.Pauses = append(f.Pauses, sim.Pause{P: node(), Start: start, End: end})
		case k == 4 && n > 1:
			p := node()
			start, end := span()
			for q := range proc.ID(n) {
				if q != p {
					f.Cuts = append(f.Cuts, sim.Cut{From: p, To: q, Start: start, End: end}, sim.Cut{From: q, To: p, Start: start, End: end})
				}
			}
		case k == 5 && n > 1:
			a, b := pair()
			start, end := span()
			f.Cuts = append(f.Cuts, sim.Cut{From: a, To: b, Start: start, End: end})
		case k == 6 && n > 1:
			a, b := pair()
			start, end := span()
			f.Cuts = append(f.Cuts, sim.Cut{From: a, To: b, Start: start, End: end}, sim.Cut{From: b, To: a, Start: start, End: end})
		case k == 7 && n > 1:
			a, b := pair()
			at, _ := span()
			f.Restarts = append(f.Restarts, sim.Restart{P: a, At: at}, sim.Restart{P: b, At: at})
		case k == 8:
			down, up := span()
			for p := range proc.ID(n) {
				f.Crashes = append(f.Crashes, sim.Crash{P: p, At: down})
				f.Restarts = append(f.Restarts, sim.Restart{P: p, At: up + proc.Time(rng.Int64N(Lease/10))})
			}
		}
	}
	// A restart of a node crashed for good is no fault of the schedule.
	f.Restarts = slices.DeleteFunc(f.Restarts, func(r sim.Restart) bool { return gone[r.P] })
	return f
}
