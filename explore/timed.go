package explore

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"time"

	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/proc"
)

// Timed explores processes that keep time (a control plane: Raft's ticks,
// leases), where the untimed search of Run would let any timer fire before
// any message and so break every timing assumption on purpose. There is a
// clock, and the search covers every order of the inputs that the timing
// allows:
//
//   - a message sent at t arrives in [t+MinDelay, t+MaxDelay];
//   - a timer armed at t for d ticks fires at t+d exactly;
//   - at each step, the next input is any message whose earliest arrival
//     is not after the deadline (the earliest of every timer's firing and
//     every message's latest arrival), delivered at that earliest moment
//     or now if later, or a timer due at the deadline;
//   - a process of Crash may crash at any step (once), losing its armed
//     timers and the messages on their way to it; a process of Restart,
//     once crashed, may come back at any later step (once) from what it
//     persisted (proc.Durable).
//
// A message is delivered as early as the order chosen allows: two runs
// that differ only in a message arriving a few ticks later inside its
// window, with nothing else in between, are one path here. The search
// covers every order of events, not every delay.
//
// There is no deep copy: a process built on an engine with funcs bound to
// its own state (etcd-io/raft's RawNode) cannot be cloned by reflection.
// Every state is rebuilt by replaying its path from the initial state
// (DESIGN.md's explorer), and the replay is checked against the
// fingerprint recorded when the state was first reached: processes that
// do not replay the same (a random source outside Env.Rand) stop the
// search with an error. The fingerprint is the deep hash of every process,
// the clock, the messages in flight and the armed timers (multisets), the
// crash and restart state and the checker's state.
//
// Time and event order grow without end in a control plane, so a search is
// bounded by MaxDepth, MaxTime (no input after that tick), MaxStates or
// Timeout; Complete says whether it expanded every state within MaxTime
// and MaxDepth, and Cut names the bound that stopped it otherwise.
type TimedConfig struct {
	// Build makes the processes in their initial state; called for every
	// replay.
	Build func() ([]proc.Process, error)
	// Judge makes a fresh checker of the events and its report.
	Judge func() (proc.Sink, *check.Report)
	// Seed seeds each process's Env.Rand, as the simulator does.
	Seed               uint64
	MinDelay, MaxDelay proc.Time
	Crash, Restart     []proc.ID
	// Warmup, when set, first runs the schedule that takes the earliest
	// input each time (no crash) until Warmup returns true of the events
	// so far, and explores from there: the faults then strike a running
	// plane rather than one still electing its first leader.
	Warmup func([]proc.Event) bool
	// WarmupLimit bounds the warm-up in steps (0: 100000).
	WarmupLimit int
	// Script are faults the warm-up takes at fixed ticks, each before
	// its first input at or after At: the search then starts from a
	// state the faults have already struck (a crash a lease before the
	// view change that follows it, which no search reaches step by step
	// from the crash: a lease is hundreds of steps). A scripted crash or
	// restart is the process's one crash or restart; a process that
	// crashed in the warm-up may still restart at any step of the search
	// if it is in Restart.
	Script []Scripted
	// WarmupTo, when set, runs the warm-up on (after Warmup holds and
	// every scripted fault struck) until its next input is at or after
	// this tick.
	WarmupTo proc.Time
	// Marks, when set, makes a fresh Marker for every replay: it sees
	// every event of the path, the warm-up's included, and
	// TimedResult.Marked counts, by mark, the states first reached by a
	// path on which the mark's count grew after the warm-up.
	Marks func() Marker
	// Unhashed names struct fields ("import/path.Type.field") that are
	// not state: a process keeps them but never lets them decide
	// anything, and they differ between replays (etcd-io/raft's
	// randomizedElectionTimeout, drawn from crypto/rand, is one when the
	// process campaigns on its own seeded timer and never lets Raft's
	// election timer run out). A name that matches no field reached is
	// an error.
	Unhashed  []string
	MaxDepth  int
	MaxTime   proc.Time
	MaxStates int
	Timeout   time.Duration
	Progress  func(Progress)
}

// TimedResult is what a timed search found.
type TimedResult struct {
	States int   `json:"states"`
	Edges  int64 `json:"transitions"`
	Depth  int   `json:"depth"`
	// Warmup is the number of steps of the fixed prefix, and WarmupEnd
	// its tick.
	Warmup    int       `json:"warmup_steps"`
	WarmupEnd proc.Time `json:"warmup_end"`
	Complete  bool      `json:"complete"`
	Cut       string    `json:"cut,omitempty"`
	// Crashes and Restarts count the transitions that crashed or
	// restarted a process (the faults were taken, not only offered).
	Crashes  int64 `json:"crash_transitions"`
	Restarts int64 `json:"restart_transitions"`
	// Marked counts the states by Marks' names (none without Marks).
	Marked     map[string]int  `json:"marked,omitempty"`
	Violations int             `json:"violations"`
	Counter    *Counterexample `json:"counterexample,omitempty"`
	Seconds    float64         `json:"wall_seconds"`
}

// Scripted is a fault at a fixed tick: process P crashes, or (Restart)
// comes back from what it persisted.
type Scripted struct {
	P       proc.ID
	At      proc.Time
	Restart bool
}

// Marker counts what a path has reached, by name ("adopted": how many
// sessions a node adopted so far), from its events.
type Marker interface {
	proc.Sink
	Marks() map[string]int
}

// tmsg is a message in flight.
type tmsg struct {
	from, to    proc.ID
	m           proc.Message
	early, late proc.Time
}

// ttimer is an armed timer.
type ttimer struct {
	p   proc.ID
	due proc.Time
	t   proc.Timer
}

// tchoice is one enabled input.
type tchoice struct {
	kind byte // 'm' deliver msgs[i], 't' fire timers[i], 'c' crash p, 'r' restart p
	i    int
	p    proc.ID
	at   proc.Time // a scripted fault's tick (the clock moves on to it)
}

// tstate is a global state being replayed; it is the proc.Env of the
// process it runs.
type tstate struct {
	cfg       *TimedConfig
	now       proc.Time
	procs     []proc.Process
	reborn    []proc.Process
	crashed   []bool
	crashes   []bool // the process has crashed once
	restarts  []bool // the process has restarted once
	msgs      []tmsg
	timers    []ttimer
	rng       []*rand.Rand
	cur       proc.ID
	judge     proc.Sink
	report    *check.Report
	marker    Marker
	events    []proc.Event // kept when collect is set
	collect   bool
	steps     []Step
	panicText string
}

func (s *tstate) Self() proc.ID    { return s.cur }
func (s *tstate) Now() proc.Time   { return s.now }
func (s *tstate) Rand() *rand.Rand { return s.rng[s.cur] }
func (s *tstate) After(d proc.Time, t proc.Timer) {
	s.timers = append(s.timers, ttimer{p: s.cur, due: s.now + d, t: t})
}
func (s *tstate) Send(to proc.ID, m proc.Message) {
	if to < 0 || int(to) >= len(s.procs) {
		panic(fmt.Sprintf("send of %s to nonexistent process %d", m.Kind(), to))
	}
	if s.crashed[to] {
		return // lost: a process down receives nothing, and its next run starts without it
	}
	s.msgs = append(s.msgs, tmsg{from: s.cur, to: to, m: m, early: s.now + s.cfg.MinDelay, late: s.now + s.cfg.MaxDelay})
}
func (s *tstate) Emit(e proc.Event) {
	e.P = s.cur
	s.emit(e)
}

func (s *tstate) emit(e proc.Event) {
	e.Time = s.now
	s.judge.Event(e)
	if s.marker != nil {
		s.marker.Event(e)
	}
	if s.collect {
		s.events = append(s.events, e)
		if n := len(s.steps); n > 0 {
			s.steps[n-1].Events = append(s.steps[n-1].Events, describeEvent(e))
		}
	}
}

// initial builds the processes and starts them.
func (cfg *TimedConfig) initial(collect bool) (*tstate, error) {
	procs, err := cfg.Build()
	if err != nil {
		return nil, err
	}
	n := len(procs)
	s := &tstate{cfg: cfg, procs: procs, reborn: make([]proc.Process, n), crashed: make([]bool, n),
		crashes: make([]bool, n), restarts: make([]bool, n), rng: make([]*rand.Rand, n), collect: collect}
	s.judge, s.report = cfg.Judge()
	if cfg.Marks != nil {
		s.marker = cfg.Marks()
	}
	for p := range procs {
		s.rng[p] = rand.New(rand.NewPCG(cfg.Seed, uint64(p)<<1))
	}
	err = s.guard(func() {
		for p := range procs {
			s.cur = proc.ID(p)
			procs[p].Start(s)
		}
	})
	return s, err
}

// errPanic marks a process's panic (an assertion): a violation.
var errPanic = errors.New("panic")

func (s *tstate) guard(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.panicText = fmt.Sprintf("process %d at tick %d: panic: %v", s.cur, s.now, r)
			err = errPanic
		}
	}()
	f()
	return nil
}

// choices lists the enabled inputs in a deterministic order.
func (s *tstate) choices() []tchoice {
	deadline := proc.Time(-1)
	for _, m := range s.msgs {
		if deadline < 0 || m.late < deadline {
			deadline = m.late
		}
	}
	for _, t := range s.timers {
		if deadline < 0 || t.due < deadline {
			deadline = t.due
		}
	}
	var cs []tchoice
	within := func(t proc.Time) bool { return s.cfg.MaxTime == 0 || t <= s.cfg.MaxTime }
	for i, m := range s.msgs {
		if m.early <= deadline && within(max(s.now, m.early)) {
			cs = append(cs, tchoice{kind: 'm', i: i})
		}
	}
	for i, t := range s.timers {
		if t.due == deadline && within(t.due) {
			cs = append(cs, tchoice{kind: 't', i: i})
		}
	}
	if len(cs) == 0 && deadline >= 0 {
		return nil // the next input is past MaxTime: no fault either, the path ends
	}
	for p := range s.procs {
		switch {
		case !s.crashes[p] && slices.Contains(s.cfg.Crash, proc.ID(p)):
			cs = append(cs, tchoice{kind: 'c', p: proc.ID(p)})
		case s.crashed[p] && !s.restarts[p] && slices.Contains(s.cfg.Restart, proc.ID(p)):
			cs = append(cs, tchoice{kind: 'r', p: proc.ID(p)})
		}
	}
	return cs
}

// take runs input c.
func (s *tstate) take(c tchoice) error {
	switch c.kind {
	case 'm':
		m := s.msgs[c.i]
		s.msgs = slices.Delete(s.msgs, c.i, c.i+1)
		s.now = max(s.now, m.early)
		s.cur = m.to
		s.step("t=%d: deliver %s %d→%d", s.now, m.m.Kind(), m.from, m.to)
		return s.guard(func() { s.procs[m.to].Deliver(s, m.from, m.m) })
	case 't':
		t := s.timers[c.i]
		s.timers = slices.Delete(s.timers, c.i, c.i+1)
		s.now = t.due
		s.cur = t.p
		s.step("t=%d: timer %T at %d", s.now, t.t, t.p)
		return s.guard(func() { s.procs[t.p].Fire(s, t.t) })
	case 'c':
		s.now = max(s.now, c.at)
		s.cur = c.p
		s.step("t=%d: crash %d", s.now, c.p)
		s.crashed[c.p], s.crashes[c.p] = true, true
		if d, ok := s.procs[c.p].(proc.Durable); ok && s.cfg.mayRestart(c.p) {
			s.reborn[c.p] = d.Restarted()
		}
		s.msgs = slices.DeleteFunc(s.msgs, func(m tmsg) bool { return m.to == c.p })
		s.timers = slices.DeleteFunc(s.timers, func(t ttimer) bool { return t.p == c.p })
		s.emit(proc.Event{Kind: proc.EvCrash, P: c.p})
		return nil
	default: // 'r'
		s.now = max(s.now, c.at)
		s.cur = c.p
		s.step("t=%d: restart %d", s.now, c.p)
		s.procs[c.p], s.reborn[c.p] = s.reborn[c.p], nil
		s.crashed[c.p], s.restarts[c.p] = false, true
		s.emit(proc.Event{Kind: proc.EvRestart, P: c.p})
		return s.guard(func() { s.procs[c.p].Start(s) })
	}
}

// mayRestart reports whether process p may come back after its crash.
func (cfg *TimedConfig) mayRestart(p proc.ID) bool {
	return slices.Contains(cfg.Restart, p) || slices.ContainsFunc(cfg.Script, func(f Scripted) bool { return f.P == p && f.Restart })
}

// step records an input of a collected path (only then formatted: most
// replays are not).
func (s *tstate) step(format string, args ...any) {
	if s.collect {
		s.steps = append(s.steps, Step{N: len(s.steps) + 1, Input: fmt.Sprintf(format, args...)})
	}
}

// earliest is the warm-up's choice: the input that happens first (a
// timer before a message due at the same tick), never a fault.
func (s *tstate) earliest(cs []tchoice) (tchoice, bool) {
	best, ok := tchoice{}, false
	for _, c := range cs {
		if c.kind != 'm' && c.kind != 't' {
			continue
		}
		if !ok || s.when(c) < s.when(best) {
			best, ok = c, true
		}
	}
	return best, ok
}

// fingerprint hashes the state.
func (s *tstate) fingerprint(w *walker) uint64 {
	var h hasher
	h.add(uint64(s.now))
	for p, pr := range s.procs {
		h.add(uint64(p))
		if s.crashed[p] {
			h.add(1)
			if s.reborn[p] != nil {
				h.add(w.hash(s.reborn[p]))
			}
		} else {
			h.add(w.hash(pr))
		}
		h.add(uint64(b2i(s.crashes[p]) | b2i(s.restarts[p])<<1))
	}
	var sum uint64
	for _, m := range s.msgs {
		var k hasher
		k.add(uint64(m.from))
		k.add(uint64(m.to))
		k.add(uint64(m.early))
		k.add(uint64(m.late))
		k.add(w.hash(m.m))
		sum += mix(uint64(k))
	}
	h.add(sum)
	sum = 0
	for _, t := range s.timers {
		var k hasher
		k.add(uint64(t.p))
		k.add(uint64(t.due))
		k.add(w.hash(t.t))
		sum += mix(uint64(k))
	}
	h.add(sum)
	h.add(w.hash(s.judge))
	return mix(uint64(h))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// texplorer is one timed search.
type texplorer struct {
	cfg    TimedConfig
	w      walker
	prefix []tchoice // the warm-up
}

// replay rebuilds the state at the end of path (choice indices after the
// warm-up).
func (x *texplorer) replay(path []int32, collect bool) (*tstate, error) {
	s, err := x.cfg.initial(collect)
	if err != nil {
		return s, err
	}
	x.w.freeze(anys(s.procs))
	for _, c := range x.prefix {
		if err := s.take(c); err != nil {
			return s, err
		}
	}
	for _, i := range path {
		cs := s.choices()
		if int(i) >= len(cs) {
			return s, fmt.Errorf("explore: replay diverged: %d inputs enabled, path takes the %dth", len(cs), i+1)
		}
		if err := s.take(cs[i]); err != nil {
			return s, err
		}
	}
	return s, nil
}

func anys(ps []proc.Process) []any {
	r := make([]any, len(ps))
	for i, p := range ps {
		r[i] = p
	}
	return r
}

type tnode struct {
	path []int32
	fp   uint64
}

// RunTimed explores cfg breadth-first, so the first violation found has a
// shortest path (after the warm-up), and stops there.
func RunTimed(cfg TimedConfig) (*TimedResult, error) {
	if cfg.Build == nil || cfg.Judge == nil {
		return nil, errors.New("explore: a timed search needs Build and Judge")
	}
	if cfg.MinDelay < 0 || cfg.MaxDelay < cfg.MinDelay {
		return nil, fmt.Errorf("explore: delays [%d, %d]: want 0 ≤ min ≤ max", cfg.MinDelay, cfg.MaxDelay)
	}
	if cfg.MaxDepth == 0 && cfg.MaxTime == 0 && cfg.MaxStates == 0 && cfg.Timeout == 0 {
		return nil, errors.New("explore: a timed search needs a bound (MaxDepth, MaxTime, MaxStates or Timeout): time never ends")
	}
	start := time.Now()
	x := &texplorer{cfg: cfg}
	res := &TimedResult{}
	s, err := x.warmup(res)
	if err != nil {
		return nil, err
	}
	if !s.report.OK() {
		return x.finish(res, nil, start, s.report.First[0])
	}
	var base map[string]int // the marks of the warm-up
	if s.marker != nil {
		base = maps.Clone(s.marker.Marks())
		res.Marked = map[string]int{}
	}
	seen := map[uint64]bool{s.fingerprint(&x.w): true}
	frontier := []tnode{{fp: s.fingerprint(&x.w)}}
	res.States = 1
	cut := ""
search:
	for depth := 0; len(frontier) > 0; depth++ {
		if cfg.MaxDepth > 0 && depth >= cfg.MaxDepth {
			cut = "max-depth"
			break
		}
		var next []tnode
		for _, n := range frontier {
			if cfg.Timeout > 0 && time.Since(start) > cfg.Timeout {
				cut = "timeout"
				break search
			}
			s, err := x.replay(n.path, false)
			if err != nil && err != errPanic {
				return nil, err
			}
			if fp := s.fingerprint(&x.w); fp != n.fp {
				return nil, fmt.Errorf("explore: replay diverged: the processes did not repeat themselves on the same inputs (a random source or a clock outside Env?)")
			}
			cs := s.choices()
			for k, c := range cs {
				if k > 0 {
					if s, err = x.replay(n.path, false); err != nil {
						return nil, err
					}
				}
				res.Edges++
				switch c.kind {
				case 'c':
					res.Crashes++
				case 'r':
					res.Restarts++
				}
				path := append(slices.Clip(n.path), int32(k))
				err := s.take(c)
				if err == errPanic || !s.report.OK() {
					what := s.panicText
					if err != errPanic {
						what = s.report.First[0]
					}
					res.Depth = depth + 1
					return x.finish(res, path, start, what)
				}
				if err != nil {
					return nil, err
				}
				fp := s.fingerprint(&x.w)
				if seen[fp] {
					continue
				}
				seen[fp] = true
				res.States++
				if s.marker != nil {
					for k, n := range s.marker.Marks() { // any order: it counts
						if n > base[k] {
							res.Marked[k]++
						}
					}
				}
				next = append(next, tnode{path: path, fp: fp})
				if cfg.MaxStates > 0 && res.States >= cfg.MaxStates {
					cut = "max-states"
					res.Depth = depth + 1
					break search
				}
			}
			if cfg.Progress != nil && res.Edges%1024 == 0 {
				cfg.Progress(Progress{States: res.States, Depth: depth, StatesPerSecond: float64(res.States) / time.Since(start).Seconds()})
			}
		}
		frontier = next
		if len(next) > 0 {
			res.Depth = depth + 1
		}
	}
	res.Complete, res.Cut = cut == "", cut
	return x.finish(res, nil, start, "")
}

// warmup runs the fixed prefix: the earliest input each time, and the
// scripted faults when due, until Warmup holds, every scripted fault
// struck and the clock reached WarmupTo.
func (x *texplorer) warmup(res *TimedResult) (*tstate, error) {
	cfg := &x.cfg
	s, err := cfg.initial(cfg.Warmup != nil)
	if err != nil {
		return nil, err
	}
	x.w.freeze(anys(s.procs))
	if x.w.unhashed, err = resolveUnhashed(anys(s.procs), cfg.Unhashed); err != nil {
		return nil, err
	}
	if cfg.Warmup == nil && len(cfg.Script) == 0 && cfg.WarmupTo == 0 {
		return s, nil
	}
	limit := cfg.WarmupLimit
	if limit == 0 {
		limit = 100000
	}
	script := slices.Clone(cfg.Script)
	slices.SortStableFunc(script, func(a, b Scripted) int { return int(a.At - b.At) })
	for {
		c, ok := s.earliest(s.choices())
		at := proc.Time(-1) // the next input's tick (-1: none)
		if ok {
			at = s.when(c)
		}
		if len(script) > 0 && (at < 0 || script[0].At <= at) {
			f := script[0]
			script = script[1:]
			fc := tchoice{kind: 'c', p: f.P, at: f.At}
			switch {
			case f.P < 0 || int(f.P) >= len(s.procs):
				return nil, fmt.Errorf("explore: scripted fault of process %d: no such process", f.P)
			case f.Restart && (!s.crashed[f.P] || s.restarts[f.P]):
				return nil, fmt.Errorf("explore: scripted restart of process %d at tick %d: it is not down then", f.P, f.At)
			case !f.Restart && s.crashes[f.P]:
				return nil, fmt.Errorf("explore: scripted crash of process %d at tick %d: it crashed once already", f.P, f.At)
			case f.Restart:
				fc.kind = 'r'
			}
			x.prefix = append(x.prefix, fc)
			if err := s.take(fc); err != nil {
				return nil, fmt.Errorf("explore: warm-up: %s", s.panicText)
			}
			continue
		}
		if (cfg.Warmup == nil || cfg.Warmup(s.events)) && len(script) == 0 && (at < 0 || at >= cfg.WarmupTo) {
			break
		}
		if !ok || len(x.prefix) >= limit {
			return nil, fmt.Errorf("explore: the warm-up did not reach its state in %d steps (tick %d)", len(x.prefix), s.now)
		}
		x.prefix = append(x.prefix, c)
		if err := s.take(c); err != nil {
			return nil, fmt.Errorf("explore: warm-up: %s", s.panicText)
		}
	}
	res.Warmup, res.WarmupEnd = len(x.prefix), s.now
	return s, nil
}

// when is the tick input c happens at.
func (s *tstate) when(c tchoice) proc.Time {
	if c.kind == 'm' {
		return max(s.now, s.msgs[c.i].early)
	}
	return s.timers[c.i].due
}

// finish fills the result; with a path, it replays the counterexample.
func (x *texplorer) finish(res *TimedResult, path []int32, start time.Time, what string) (*TimedResult, error) {
	res.Seconds = time.Since(start).Seconds()
	if what == "" {
		return res, nil
	}
	res.Violations = 1
	res.Complete, res.Cut = false, ""
	s, err := x.replay(path, true)
	if err != nil && err != errPanic {
		return nil, err
	}
	kind := Safety
	if err == errPanic {
		kind = Panic
	}
	steps := s.steps[len(x.prefix):]
	for i := range steps {
		steps[i].N = i + 1
	}
	res.Counter = &Counterexample{Kind: kind, What: what, Length: len(path), Loop: -1, Steps: steps, Events: s.events}
	return res, nil
}

// resolveUnhashed finds the fields named in names ("import/path.Type.field")
// among the types reachable from the roots' types.
func resolveUnhashed(roots []any, names []string) (map[reflect.Type]map[int]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	found := map[reflect.Type]map[int]bool{}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				if name := t.PkgPath() + "." + t.Name() + "." + f.Name; want[name] {
					if found[t] == nil {
						found[t] = map[int]bool{}
					}
					found[t][i] = true
					delete(want, name)
				}
				walk(f.Type)
			}
		}
	}
	for _, r := range roots {
		walk(reflect.TypeOf(r))
	}
	if len(want) > 0 {
		var missing []string
		for n := range want { // any order: sorted below
			missing = append(missing, n)
		}
		slices.Sort(missing)
		return nil, fmt.Errorf("explore: unhashed fields %v: no such field in the processes' types", missing)
	}
	return found, nil
}
