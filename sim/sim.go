// Package sim is allot's deterministic discrete-event simulator. It runs the
// algorithms' state machines (package proc) on a simulated network and
// drives each user through the application's cycle (package app, the same
// for every driver)
//
//	think ──> request ──> (algorithm) ──> enter ──> critical section ──> exit ──┐
//	  ^                                                                         │
//	  └─────────────────────────────────────────────────────────────────────────┘
//
// Config keeps the network model (Net: delays, FIFO or unordered links,
// crashes, processing cost, speeds) apart from the workload (Work, an
// app.Workload: think and critical-section times, request sets).
//
// Everything happens on one goroutine in (time, sequence) order, so a seed
// reproduces a run bit for bit. The simulator owns time, the network model
// (a delay distribution; unordered channels, where every message draws its
// own delay, or FIFO links, where no message overtakes another on a link),
// faults (fail-stop crashes; restarts from persisted state, cut links and
// paused processes: see faults.go), process speeds (which scale a
// process's local timers) and an optional processing cost (ticks a process
// is busy per input).
//
// Events go to the configured proc.Sink in execution order; checkers and
// metrics read only them.
package sim

import (
	"fmt"
	"math/rand/v2"
	"unsafe"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
)

// Crash is a fail-stop crash of process P at tick At.
type Crash struct {
	P  proc.ID
	At proc.Time
}

// Speed scales the local timers of processes: a timer of d local ticks
// armed by p at now fires after Duration(p, now, d) ticks.
type Speed interface {
	Duration(p proc.ID, now, d proc.Time) proc.Time
}

// Config is one simulation run: the network model, the application's
// workload, and when to stop. The zero value of every field means
// something: no delay, unordered channels, no processing cost, speed 1, no
// crashes, no think or critical-section time, run to quiescence.
type Config struct {
	Seed uint64
	Net  Network      // how messages travel and processes fail
	Work app.Workload // what the users ask for and how long they take
	// Requests stops the run once this many requests have been answered
	// (0: no limit). Horizon stops it at that tick (0: no limit).
	Requests int
	Horizon  proc.Time
	// Drain, with Requests, changes what happens once Requests answers
	// are reached: users make no new requests, and the run goes on until
	// the open ones are answered, nothing is left to do, or no open
	// request has been answered for the drain window: Drain ticks, or four
	// times the longest wait answered so far if that is longer (a slow
	// algorithm is not cut short for being slow). Requests still open then
	// are reported open; only a quiescent run proves them starved.
	Drain proc.Time
	Sink  proc.Sink
	// TraceMessages adds EvSend and EvDeliver events to the stream.
	TraceMessages bool
	// Progress, when set, is called now and then with the number of
	// answered requests and of requests made (with Drain, once Requests
	// answers are reached, the run ends when the two meet: what a
	// progress line estimates the time left from): every 65536 inputs,
	// and every 256 answers for algorithms whose inputs are slow (central
	// on complete:5000 handles 60000 inputs in all, for seconds).
	Progress func(served, asked int, now proc.Time)
}

// Network is the simulated network and the processes' own pace.
type Network struct {
	Delay dist.Dist // per-message delay
	FIFO  bool      // no overtaking on a link
	// Cost is how many ticks a process is busy handling one input; inputs
	// arriving meanwhile wait. Messages sent while handling leave when it
	// is done.
	Cost proc.Time
	// SendCost is how many ticks each message sent occupies the sender:
	// with Cost and SendCost both 1 a process takes one step per receive
	// and one per send (the synchronous step model of Rhee §2, §6). The
	// messages of one input leave one after another.
	SendCost proc.Time
	Speed    Speed // nil: every process at speed 1
	Crashes  []Crash
	// Restarts, Cuts and Pauses extend fail-stop crashes (see Restart,
	// Cut and Pause).
	Restarts []Restart
	Cuts     []Cut
	Pauses   []Pause
}

// Result is what the driver itself saw. Safety and fairness are the
// checkers' business; they read the event stream.
type Result struct {
	End       proc.Time // the tick of the last handled input
	Requests  int       // requests made
	Served    int       // requests answered (enter, grant, permit or reject)
	Open      int       // live users waiting for an answer at the end
	Quiescent bool      // the run ended because nothing was left to do
	// Deadlock: quiescent with open requests at live users.
	Deadlock  bool
	Messages  int64            // messages sent
	ByKind    map[string]int64 // messages sent, by kind
	Delivered int64            // messages delivered to live processes
	Dropped   int64            // messages lost on a cut link
	Inputs    int64            // inputs handled (starts, deliveries, timers, calls)
}

// pstate is what the driver knows of any process; only kept when faults
// or a processing cost make it needed.
type pstate struct {
	crashed bool
	busy    proc.Time // busy handling (or paused) until this tick
	inc     uint32    // incarnation: how many times it restarted
	// reborn is the process a restart brings back, made from what the
	// crashed one persisted.
	reborn proc.Process
}

// Sim is one run in progress. It is the proc.Env of the process it is
// currently running.
type Sim struct {
	cfg   Config
	pb    *algo.Problem
	procs []proc.Process
	app   *app.Cycle
	users []app.User   // app.Users, kept here to spare the hot path a load
	st    []pstate     // nil when no process can crash or be busy
	rng   []*rand.Rand // per process, for algorithms; made on first use
	net   *rand.Rand   // message delays
	q     queue
	cur   proc.ID
	now   proc.Time
	stop  bool
	// draining: Requests answers were reached, no new requests; the run
	// ends at drainEnd unless another answer extends it.
	draining bool
	drainEnd proc.Time
	longest  proc.Time // the longest answered wait
	sent     proc.Time // messages sent while handling the current input
	touched  byte      // sink of touch's loads
	warm     int       // inputs ahead already touched
	res      Result
	kinds    []string // message kinds seen, parallel to counts
	count    []int64
	fifo     map[uint64]proc.Time // FIFO: last arrival time per link
	shown    int                  // Served>>8 at the last Progress call
}

// Run simulates procs (users first, as algo.Algorithm.Build returns them)
// on problem pb. A panic inside an algorithm is returned as an error naming
// the seed.
func Run(cfg Config, pb *algo.Problem, procs []proc.Process) (res Result, err error) {
	if len(procs) < pb.Users {
		return res, fmt.Errorf("sim: %d processes for %d users", len(procs), pb.Users)
	}
	if err := cfg.Net.validate(procs, pb.Users); err != nil {
		return res, err
	}
	// A scripted distribution starts over in every run.
	cfg.Net.Delay, cfg.Work.Think, cfg.Work.CS = cfg.Net.Delay.Fresh(), cfg.Work.Think.Fresh(), cfg.Work.CS.Fresh()
	s := &Sim{
		cfg:   cfg,
		pb:    pb,
		procs: procs,
		app:   app.New(pb, cfg.Work, cfg.Seed),
		rng:   make([]*rand.Rand, len(procs)),
		net:   rand.New(rand.NewPCG(cfg.Seed, 0x6e6574)),
	}
	s.users = s.app.Users
	for u := 0; u < pb.Users; u++ {
		if _, ok := procs[u].(proc.Allocator); !ok {
			return res, fmt.Errorf("sim: user %d (%T) does not take requests", u, procs[u])
		}
	}
	if cfg.Net.faulty() || cfg.Net.Cost > 0 || cfg.Net.SendCost > 0 {
		s.st = make([]pstate, len(procs))
	}
	if cfg.Net.FIFO {
		s.fifo = map[uint64]proc.Time{}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("sim: seed %d: process %d at tick %d: panic: %v", cfg.Seed, s.cur, s.now, r)
		}
	}()
	s.run()
	s.res.ByKind = make(map[string]int64, len(s.kinds))
	for i, k := range s.kinds {
		s.res.ByKind[k] = s.count[i]
	}
	return s.res, nil
}

func (s *Sim) run() {
	for _, c := range s.cfg.Net.Crashes {
		s.q.push(local(c.At, c.P, itemCrash, nil))
	}
	for _, r := range s.cfg.Net.Restarts {
		s.q.push(local(r.At, r.P, itemRestart, nil))
	}
	for _, p := range s.cfg.Net.Pauses {
		s.q.push(local(p.Start, p.P, itemPause, p.End))
		s.q.push(local(p.End, p.P, itemResume, p.End))
	}
	for p := range s.procs {
		s.cur = proc.ID(p)
		s.res.Inputs++
		s.procs[p].Start(s)
	}
	for u := 0; u < s.pb.Users; u++ {
		s.app.Begin(s, proc.ID(u))
	}
	for !s.stop {
		it, ok := s.q.pop()
		if !ok {
			s.res.Quiescent = true
			break
		}
		if s.warm--; s.warm <= 0 {
			s.warm = s.touch(s.q.ahead(touchBatch))
		}
		if s.cfg.Horizon > 0 && it.at > s.cfg.Horizon || s.draining && it.at > s.drainEnd {
			break
		}
		s.now = it.at
		var st *pstate
		if s.st != nil {
			st = &s.st[it.to]
			if st.crashed && it.kind() != itemRestart {
				continue
			}
			if k := it.kind(); k != itemCrash && k != itemRestart && k != itemPause && k != itemResume {
				if st.busy > it.at {
					it.at = st.busy
					s.q.push(it)
					continue
				}
				st.busy = it.at + s.cfg.Net.Cost
			}
		}
		s.cur = it.to
		s.sent = 0
		s.res.End = it.at
		if k := it.kind(); k != itemCrash && k != itemPause && k != itemResume {
			s.res.Inputs++
		}
		switch it.kind() {
		case itemDeliver:
			if s.cfg.Net.Cuts != nil && s.cut(it.from, it.to, it.at) {
				s.res.Dropped++
				continue
			}
			s.res.Delivered++
			if s.cfg.TraceMessages {
				s.emit(proc.Event{Kind: proc.EvDeliver, P: it.to, Peer: it.from, Msg: it.payload.(proc.Message).Kind()})
			}
			s.procs[it.to].Deliver(s, it.from, it.payload.(proc.Message))
		case itemFire:
			t := it.payload
			if armed, ok := t.(incTimer); ok {
				if armed.inc != st.inc {
					continue // armed before a restart: lost with the process
				}
				t = armed.t
			}
			s.procs[it.to].Fire(s, t)
		case itemWake:
			s.wake(it.to)
		case itemCrash:
			s.crash(st)
		case itemRestart:
			s.restart(st)
		case itemPause:
			st.busy = max(st.busy, it.payload.(proc.Time))
			s.emit(proc.Event{Kind: proc.EvPause, P: it.to})
		case itemResume:
			// Only the end of the pause in effect (a later one may
			// overlap it, a restart ends it early).
			if st.busy == it.payload.(proc.Time) {
				s.emit(proc.Event{Kind: proc.EvResume, P: it.to})
			}
		}
		if s.cfg.Progress != nil && (s.res.Inputs&(1<<16-1) == 0 || s.res.Served>>8 != s.shown) {
			s.shown = s.res.Served >> 8
			s.cfg.Progress(s.res.Served, s.res.Requests, s.now)
		}
	}
	for u := range s.app.Users {
		if s.app.Users[u].Phase == app.Waiting && (s.st == nil || !s.st[u].crashed) {
			s.res.Open++
		}
	}
	s.res.Deadlock = s.res.Quiescent && s.res.Open > 0
}

// touch loads the first bytes of the state of the processes the next
// inputs go to, and of their user records, and returns how many inputs it
// covered. In a large population every input lands at a random process and
// the simulator waits on memory; independent loads issued together overlap
// their cache misses, so a batch of inputs pays for about one.
func (s *Sim) touch(next []item) int {
	var data [touchBatch]unsafe.Pointer
	for i := range next {
		p := next[i].to
		// A non-empty interface is (type, data): data points at the
		// process's state.
		data[i] = (*[2]unsafe.Pointer)(unsafe.Pointer(&s.procs[p]))[1]
		if int(p) < len(s.users) {
			s.touched += byte(s.users[p].Phase)
		}
	}
	for i := range next {
		if data[i] != nil { // a nil pointer process fails when called, not here
			s.touched += *(*byte)(data[i])
		}
	}
	return max(1, len(next))
}

const touchBatch = 8

// wake moves user u one step along the application's cycle.
func (s *Sim) wake(u proc.ID) {
	if s.users[u].Phase == app.Thinking && !s.draining {
		s.res.Requests++
	}
	// Asserted here, not kept in a slice of its own: procs[u] is already
	// in cache (touch loads it), a second per-user array would not be.
	s.app.Wake(s, s, s.procs[u].(proc.Allocator), u, s.now, !s.draining)
}

// Observe implements app.Driver.
func (s *Sim) Observe(e proc.Event) { s.emit(e) }

// Schedule implements app.Driver.
func (s *Sim) Schedule(u proc.ID, d proc.Time) { s.q.push(local(s.now+d, u, itemWake, nil)) }

// emit stamps e and hands it to the sink.
func (s *Sim) emit(e proc.Event) {
	e.Time = s.now
	if s.cfg.Sink != nil {
		s.cfg.Sink.Event(e)
	}
}

// Self implements proc.Env.
func (s *Sim) Self() proc.ID { return s.cur }

// Now implements proc.Env.
func (s *Sim) Now() proc.Time { return s.now }

// Rand implements proc.Env.
func (s *Sim) Rand() *rand.Rand {
	if s.rng[s.cur] == nil {
		s.rng[s.cur] = rand.New(rand.NewPCG(s.cfg.Seed, uint64(s.cur)<<1))
	}
	return s.rng[s.cur]
}

// Send implements proc.Env.
func (s *Sim) Send(to proc.ID, m proc.Message) {
	if to < 0 || int(to) >= len(s.procs) {
		panic(fmt.Sprintf("send of %s to nonexistent process %d", m.Kind(), to))
	}
	s.countKind(m.Kind())
	if s.cfg.TraceMessages {
		s.emit(proc.Event{Kind: proc.EvSend, P: s.cur, Peer: to, Msg: m.Kind()})
	}
	if s.cfg.Net.Cuts != nil && s.cut(s.cur, to, s.now) {
		s.res.Dropped++
		return
	}
	depart := s.now + s.cfg.Net.Cost
	if s.cfg.Net.SendCost > 0 {
		s.sent++
		depart += s.cfg.Net.SendCost * s.sent
		if s.st != nil {
			s.st[s.cur].busy = max(s.st[s.cur].busy, depart)
		}
	}
	at := depart + s.cfg.Net.Delay.Draw(s.net)
	if s.fifo != nil {
		link := uint64(uint32(s.cur))<<32 | uint64(uint32(to))
		at = max(at, s.fifo[link])
		s.fifo[link] = at
	}
	s.q.push(item{at: at, to: to, from: s.cur, payload: m})
}

func (s *Sim) countKind(k string) {
	for i := range s.kinds {
		if s.kinds[i] == k {
			s.count[i]++
			s.res.Messages++
			return
		}
	}
	s.kinds = append(s.kinds, k)
	s.count = append(s.count, 1)
	s.res.Messages++
}

// After implements proc.Env.
func (s *Sim) After(d proc.Time, t proc.Timer) {
	if d < 0 {
		panic(fmt.Sprintf("timer armed %d ticks in the past", d))
	}
	if s.cfg.Net.Speed != nil {
		d = s.cfg.Net.Speed.Duration(s.cur, s.now, d)
	}
	if s.cfg.Net.Restarts != nil {
		t = incTimer{s.st[s.cur].inc, t}
	}
	s.q.push(local(s.now+s.cfg.Net.Cost+d, s.cur, itemFire, t))
}

// Emit implements proc.Env: the algorithm's own events (enter, grant,
// permit, reject, exhausted) also move the user along its cycle.
func (s *Sim) Emit(e proc.Event) {
	e.P = s.cur
	s.emit(e)
	if int(e.P) >= s.pb.Users {
		return
	}
	wait, answered := s.app.Answer(s, e.P, e, s.now)
	if !answered {
		return
	}
	s.longest = max(s.longest, wait)
	s.res.Served++
	if s.cfg.Requests > 0 && s.res.Served >= s.cfg.Requests {
		switch {
		case s.cfg.Drain == 0:
			s.stop = true
		default:
			// Every answer extends the drain: it ends only once no open
			// request has been answered for the window, so a long queue
			// that is being served is never cut short.
			s.draining, s.drainEnd = true, s.now+max(s.cfg.Drain, 4*s.longest)
			if s.res.Served == s.res.Requests {
				s.stop = true
			}
		}
	}
}
