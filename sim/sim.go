// Package sim is allot's deterministic discrete-event simulator. It runs the
// algorithms' state machines (package proc) on a simulated network and
// drives each user through the workload cycle
//
//	think ──> request ──> (algorithm) ──> enter ──> critical section ──> exit ──┐
//	  ^                                                                         │
//	  └─────────────────────────────────────────────────────────────────────────┘
//
// Everything happens on one goroutine in (time, sequence) order, so a seed
// reproduces a run bit for bit. The simulator owns time, the network model
// (a delay distribution; unordered channels, where every message draws its
// own delay, or FIFO links, where no message overtakes another on a link),
// fail-stop crashes, process speeds (which scale a process's local timers)
// and an optional processing cost (ticks a process is busy per input).
//
// Events go to the configured proc.Sink in execution order; checkers and
// metrics read only them.
package sim

import (
	"fmt"
	"math/rand/v2"
	"unsafe"

	"allot/algo"
	"allot/dist"
	"allot/proc"
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

// Config is one simulation run. The zero value of every field means
// something: no delay, no think time, no critical-section time, unordered
// channels, no processing cost, speed 1, no crashes, run to quiescence.
type Config struct {
	Seed  uint64
	Delay dist.Dist // per-message delay
	FIFO  bool      // no overtaking on a link
	Think dist.Dist // between a user's exit and its next request
	CS    dist.Dist // time in the critical section (pool: holding a unit)
	// CSTime, when set, replaces CS: the critical-section time of user u
	// for request r.
	CSTime func(u proc.ID, r proc.Request, rnd *rand.Rand) proc.Time
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
	// Requests stops the run once this many requests have been answered
	// (0: no limit). Horizon stops it at that tick (0: no limit).
	Requests int
	Horizon  proc.Time
	// Drain, with Requests, changes what happens once Requests answers
	// are reached: users make no new requests, and the run goes on until
	// the open ones are answered, nothing is left to do, or the drain
	// window has passed: Drain ticks, or four times the longest wait
	// answered so far if that is longer (a slow algorithm is not called
	// starving for being slow). Requests still open then are starved.
	Drain proc.Time
	// Next returns user u's next request. Nil: the user's whole MaxSet
	// (dining) for exclusive problems, an empty request otherwise.
	Next func(u proc.ID, rnd *rand.Rand) proc.Request
	// Join, when set, is the tick at which user u makes its first request
	// (after its first think time); users may thus appear during a run.
	Join func(u proc.ID) proc.Time
	// PerUser caps the requests each user makes (0: no cap). With a cap a
	// fault-free run ends quiescent, and every request must be answered.
	PerUser int
	Sink    proc.Sink
	// TraceMessages adds EvSend and EvDeliver events to the stream.
	TraceMessages bool
	// Progress, when set, is called now and then with the number of
	// answered requests.
	Progress func(served int, now proc.Time)
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
	Inputs    int64            // inputs handled (starts, deliveries, timers, calls)
}

// phase of a user in the workload cycle.
type phase uint8

const (
	thinking phase = iota
	waiting        // asked, not yet answered
	using          // in its critical section / holding a unit
)

// user is a user's place in the workload cycle, with the random source
// its workload draws from, kept together for cache locality.
type user struct {
	phase phase
	made  int32     // requests made
	unit  int32     // pool: the unit held
	asked proc.Time // when the open request was made
	req   proc.Request
	src   rand.PCG // the user's workload draws
}

// rnd is a random source drawing from u's own stream. Kept out of the
// record (it would push it past one cache line); it stays on the stack
// unless handed to Next or CSTime.
func (u *user) rnd() *rand.Rand { return rand.New(&u.src) }

// pstate is what the driver knows of any process; only kept when crashes
// or a processing cost make it needed.
type pstate struct {
	crashed bool
	busy    proc.Time // busy handling until this tick
}

// Sim is one run in progress. It is the proc.Env of the process it is
// currently running.
type Sim struct {
	cfg   Config
	pb    *algo.Problem
	procs []proc.Process
	users []user
	st    []pstate     // nil when no process can crash or be busy
	rng   []*rand.Rand // per process, for algorithms; made on first use
	net   *rand.Rand   // message delays
	q     queue
	cur   proc.ID
	now   proc.Time
	stop  bool
	// draining: Requests answers were reached, no new requests; the run
	// ends at drainEnd.
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
}

// Run simulates procs (users first, as algo.Algorithm.Build returns them)
// on problem pb. A panic inside an algorithm is returned as an error naming
// the seed.
func Run(cfg Config, pb *algo.Problem, procs []proc.Process) (res Result, err error) {
	if len(procs) < pb.Users {
		return res, fmt.Errorf("sim: %d processes for %d users", len(procs), pb.Users)
	}
	for _, c := range cfg.Crashes {
		if c.P < 0 || int(c.P) >= len(procs) || c.At < 0 {
			return res, fmt.Errorf("sim: crash %d@%d: no such process or tick", c.P, c.At)
		}
	}
	s := &Sim{
		cfg:   cfg,
		pb:    pb,
		procs: procs,
		users: make([]user, pb.Users),
		rng:   make([]*rand.Rand, len(procs)),
		net:   rand.New(rand.NewPCG(cfg.Seed, 0x6e6574)),
	}
	for u := range s.users {
		us := &s.users[u]
		us.src.Seed(cfg.Seed, uint64(u)<<1|1)
		if _, ok := procs[u].(proc.Allocator); !ok {
			return res, fmt.Errorf("sim: user %d (%T) does not take requests", u, procs[u])
		}
		if cfg.Next == nil && pb.Kind == algo.Exclusive {
			us.req = proc.Request{Res: pb.MaxSets[u]}
		}
	}
	if len(cfg.Crashes) > 0 || cfg.Cost > 0 || cfg.SendCost > 0 {
		s.st = make([]pstate, len(procs))
	}
	if cfg.FIFO {
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
	for _, c := range s.cfg.Crashes {
		s.q.push(local(c.At, c.P, itemCrash, nil))
	}
	for p := range s.procs {
		s.cur = proc.ID(p)
		s.res.Inputs++
		s.procs[p].Start(s)
	}
	for u := 0; u < s.pb.Users; u++ {
		at := s.cfg.Think.Draw(s.users[u].rnd())
		if s.cfg.Join != nil {
			at += s.cfg.Join(proc.ID(u))
		}
		s.q.push(local(at, proc.ID(u), itemWake, nil))
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
			if st.crashed {
				continue
			}
			if it.kind() != itemCrash {
				if st.busy > it.at {
					it.at = st.busy
					s.q.push(it)
					continue
				}
				st.busy = it.at + s.cfg.Cost
			}
		}
		s.cur = it.to
		s.sent = 0
		s.res.End = it.at
		if it.kind() != itemCrash {
			s.res.Inputs++
		}
		switch it.kind() {
		case itemDeliver:
			s.res.Delivered++
			if s.cfg.TraceMessages {
				s.emit(proc.Event{Kind: proc.EvDeliver, P: it.to, Peer: it.from, Msg: it.payload.(proc.Message).Kind()})
			}
			s.procs[it.to].Deliver(s, it.from, it.payload.(proc.Message))
		case itemFire:
			s.procs[it.to].Fire(s, it.payload)
		case itemWake:
			s.wake(it.to)
		case itemCrash:
			st.crashed = true
			s.emit(proc.Event{Kind: proc.EvCrash, P: it.to})
		}
		if s.cfg.Progress != nil && s.res.Inputs&(1<<16-1) == 0 {
			s.cfg.Progress(s.res.Served, s.now)
		}
	}
	for u := range s.users {
		if s.users[u].phase == waiting && (s.st == nil || !s.st[u].crashed) {
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
			s.touched += byte(s.users[p].phase)
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

// wake moves user u one step along the workload cycle.
func (s *Sim) wake(u proc.ID) {
	st := &s.users[u]
	a := s.procs[u].(proc.Allocator)
	switch st.phase {
	case thinking:
		if s.draining {
			return
		}
		if s.cfg.Next != nil {
			st.req = s.cfg.Next(u, st.rnd())
		}
		st.phase = waiting
		st.asked = s.now
		st.made++
		s.res.Requests++
		if s.pb.Kind == algo.Pool {
			s.emit(proc.Event{Kind: proc.EvAcquire, P: u})
		} else {
			s.emit(proc.Event{Kind: proc.EvRequest, P: u, Res: st.req.Res})
		}
		a.Request(s, st.req)
	case using:
		st.phase = thinking
		if s.pb.Kind == algo.Pool {
			s.emit(proc.Event{Kind: proc.EvRelease, P: u, Unit: st.unit})
		} else {
			s.emit(proc.Event{Kind: proc.EvExit, P: u})
		}
		a.Release(s)
		s.thinkThenAsk(u, st)
	}
}

// thinkThenAsk schedules user u's next request, if it has one left.
func (s *Sim) thinkThenAsk(u proc.ID, st *user) {
	if s.cfg.PerUser > 0 && int(st.made) >= s.cfg.PerUser {
		return
	}
	s.q.push(local(s.now+s.cfg.Think.Draw(st.rnd()), u, itemWake, nil))
}

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
	depart := s.now + s.cfg.Cost
	if s.cfg.SendCost > 0 {
		s.sent++
		depart += s.cfg.SendCost * s.sent
		if s.st != nil {
			s.st[s.cur].busy = max(s.st[s.cur].busy, depart)
		}
	}
	at := depart + s.cfg.Delay.Draw(s.net)
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
	if s.cfg.Speed != nil {
		d = s.cfg.Speed.Duration(s.cur, s.now, d)
	}
	s.q.push(local(s.now+s.cfg.Cost+d, s.cur, itemFire, t))
}

// Emit implements proc.Env: the algorithm's own events (enter, grant,
// permit, reject, exhausted) also move the user along its cycle.
func (s *Sim) Emit(e proc.Event) {
	e.P = s.cur
	s.emit(e)
	if int(e.P) >= s.pb.Users {
		return
	}
	st := &s.users[e.P]
	if e.Served() && st.phase == waiting {
		s.longest = max(s.longest, s.now-st.asked)
	}
	switch e.Kind {
	case proc.EvEnter, proc.EvGrant:
		if st.phase != waiting {
			return // a broken algorithm; the checkers will say so
		}
		st.phase = using
		st.unit = e.Unit
		s.res.Served++
		s.q.push(local(s.now+s.csTime(e.P, st), e.P, itemWake, nil))
	case proc.EvPermit, proc.EvReject:
		if st.phase != waiting {
			return
		}
		st.phase = thinking
		s.res.Served++
		s.thinkThenAsk(e.P, st)
	default:
		return
	}
	if s.cfg.Requests > 0 && s.res.Served >= s.cfg.Requests {
		switch {
		case s.cfg.Drain == 0:
			s.stop = true
		case !s.draining:
			s.draining, s.drainEnd = true, s.now+max(s.cfg.Drain, 4*s.longest)
			fallthrough
		default:
			if s.res.Served == s.res.Requests {
				s.stop = true
			}
		}
	}
}

func (s *Sim) csTime(u proc.ID, st *user) proc.Time {
	if s.cfg.CSTime != nil {
		return s.cfg.CSTime(u, st.req, st.rnd())
	}
	return s.cfg.CS.Draw(st.rnd())
}
