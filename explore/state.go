package explore

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/proc"
)

// flight is a message in flight.
type flight struct {
	from, to proc.ID
	m        proc.Message
	h        uint64 // fingerprint of (from, to, m)
	serial   int32  // replays only: the send's number (not fingerprinted)
}

// armed is a timer armed and not yet fired.
type armed struct {
	p proc.ID
	t proc.Timer
	h uint64 // fingerprint of (p, t)
}

// checkers are the event-stream checkers of one path: the safety checker
// of the problem's kind and, with crashes, the failure-locality one. They
// are copied with the state, not fingerprinted: fed only by events, on a
// path without a violation they hold what the users' phases already say.
type checkers struct {
	safety interface {
		proc.Sink
		report() *check.Report
	}
	loc *check.Locality
}

type exclusion struct{ check.Exclusion }
type pool struct{ check.Pool }
type quota struct{ check.Quota }

func (c *exclusion) report() *check.Report { return &c.Report }
func (c *pool) report() *check.Report      { return &c.Report }
func (c *quota) report() *check.Report     { return &c.Report }

func (c *checkers) Event(e proc.Event) {
	c.safety.Event(e)
	if c.loc != nil {
		c.loc.Event(e)
	}
}

// violations is the number of safety violations seen on the path, and the
// first one's description.
func (c *checkers) violations() (int, string) {
	if r := c.safety.report(); r.Violations > 0 {
		return r.Violations, r.First[0]
	}
	return 0, ""
}

// state is one global state: every process, the network, the timers, the
// application's users. Successors share what did not change with their
// parent (the processes that did not move), so nothing here is mutated
// once the state is built.
type state struct {
	procs   []proc.Process
	ph      []uint64   // per process: fingerprint of its state and random source
	rng     []rand.PCG // per process: the seeded source Env.Rand draws from
	users   []app.User
	wake    []bool // a wake-up is pending for the user
	crashed []bool
	net     []flight // in send order (FIFO: per link, the first is the head)
	timers  []armed
	chk     *checkers
	depth   int32
}

// input kinds.
const (
	inDeliver uint8 = iota + 1
	inFire
	inWake
	inCrash
)

// choice is one enabled input of a state.
type choice struct {
	kind uint8
	i    int     // index into net or timers
	p    proc.ID // wake, crash: the process
}

// label names a choice independently of where it sits in the state's
// slices: the same input in two states has the same label (fairness,
// replay).
func (s *state) label(c choice) uint64 {
	switch c.kind {
	case inDeliver:
		return mix(s.net[c.i].h ^ 0x11)
	case inFire:
		return mix(s.timers[c.i].h ^ 0x22)
	}
	return mix(uint64(c.kind)<<40 | uint64(uint32(c.p)))
}

// choices lists the enabled inputs in a deterministic order: wake-ups,
// messages (for FIFO the head of each link; one of several equal messages),
// timers, crashes. Its kind says which kinds were enabled.
func (x *Explorer) choices(s *state, out []choice) []choice {
	out = out[:0]
	for u, w := range s.wake {
		if w {
			out = append(out, choice{kind: inWake, p: proc.ID(u)})
		}
	}
	seen := x.seen[:0]
	for i, f := range s.net {
		if slices.Contains(seen, f.h) {
			continue // an equal message is ahead of it (FIFO: its link has a head)
		}
		if x.cfg.FIFO {
			seen = append(seen, f.h) // equal messages on its link come after it
			head := true
			for _, g := range s.net[:i] {
				if g.from == f.from && g.to == f.to {
					head = false
					break
				}
			}
			if !head {
				continue
			}
		} else {
			seen = append(seen, f.h)
		}
		out = append(out, choice{kind: inDeliver, i: i, p: f.to})
	}
	seen = seen[:0]
	for i, t := range s.timers {
		if !slices.Contains(seen, t.h) {
			seen = append(seen, t.h)
			out = append(out, choice{kind: inFire, i: i, p: t.p})
		}
	}
	x.seen = seen
	for _, p := range x.cfg.Crash {
		if !s.crashed[p] {
			out = append(out, choice{kind: inCrash, p: p})
		}
	}
	return out
}

// describe is a choice in words, for step lists.
func (s *state) describe(c choice) string {
	switch c.kind {
	case inDeliver:
		f := s.net[c.i]
		return fmt.Sprintf("deliver %s %d→%d %+v", f.m.Kind(), f.from, f.to, f.m)
	case inFire:
		t := s.timers[c.i]
		return fmt.Sprintf("fire timer %+v at %d", t.t, t.p)
	case inWake:
		switch s.users[c.p].Phase {
		case app.Thinking:
			return fmt.Sprintf("user %d requests", c.p)
		case app.Using:
			return fmt.Sprintf("user %d exits", c.p)
		}
		return fmt.Sprintf("wake user %d", c.p)
	}
	return fmt.Sprintf("crash process %d", c.p)
}

// stepper is the proc.Env and app.Driver of one step: it builds the
// successor state n while the input runs.
type stepper struct {
	x     *Explorer
	n     *state
	cur   proc.ID
	now   proc.Time
	extra proc.Sink // the replay's observer
	rec   *schedule // the replay's record of delays, for the simulator
	rnd   *rand.Rand
}

func (e *stepper) Self() proc.ID { return e.cur }

// Now is the number of steps taken. A process that reads it may act on
// it, so from then on the fingerprints hold it too (Explorer.timed).
func (e *stepper) Now() proc.Time {
	e.x.nowRead = true
	return e.now
}

func (e *stepper) Rand() *rand.Rand {
	if e.rnd == nil {
		e.rnd = rand.New(&e.n.rng[e.cur])
	}
	return e.rnd
}

func (e *stepper) Send(to proc.ID, m proc.Message) {
	if to < 0 || int(to) >= len(e.n.procs) {
		panic(fmt.Sprintf("send of %s to nonexistent process %d", m.Kind(), to))
	}
	if e.extra != nil {
		e.emit(proc.Event{Kind: proc.EvSend, P: e.cur, Peer: to, Msg: m.Kind()})
	}
	serial := e.rec.send(e.now)
	if e.n.crashed[to] {
		return // lost: a crashed process receives nothing
	}
	h := e.x.w.hash(m)
	h = mix(h ^ uint64(uint32(e.cur))<<32 ^ uint64(uint32(to)))
	e.n.net = append(e.n.net, flight{from: e.cur, to: to, m: m, h: h, serial: serial})
}

func (e *stepper) After(d proc.Time, t proc.Timer) {
	if d < 0 {
		panic(fmt.Sprintf("timer armed %d ticks in the past", d))
	}
	e.rec.timer()
	h := mix(e.x.w.hash(t) ^ uint64(uint32(e.cur)))
	e.n.timers = append(e.n.timers, armed{p: e.cur, t: t, h: h})
}

func (e *stepper) Emit(ev proc.Event) {
	ev.P = e.cur
	e.emit(ev)
	if int(ev.P) < len(e.n.users) {
		if _, answered := e.x.cycle(e.n).Answer(e, ev.P, ev, 0); answered && e.n.users[ev.P].Phase == app.Thinking {
			e.capped(ev.P)
		}
	}
}

// capped records, for the simulator's replay, the think time the simulator
// draws where the cycle asks for none: once a user made its last request
// (the simulator caps requests in total, not per user), it thinks for
// longer than the replay lasts.
func (e *stepper) capped(u proc.ID) {
	if !e.n.wake[u] {
		e.rec.schedule(u, e.now, false)
	}
}

func (e *stepper) emit(ev proc.Event) {
	ev.Time = e.now
	if ev.Kind != proc.EvSend && ev.Kind != proc.EvDeliver {
		e.n.chk.Event(ev)
	}
	if e.extra != nil {
		e.extra.Event(ev)
	}
}

// Observe implements app.Driver.
func (e *stepper) Observe(ev proc.Event) { e.emit(ev) }

// Schedule implements app.Driver: a wake-up is an input enabled from now
// on, whatever its delay (time is a choice, not a clock).
func (e *stepper) Schedule(u proc.ID, _ proc.Time) {
	e.n.wake[u] = true
	// Called by Answer (the user is now in its critical section: a cs
	// time) or by Begin and Wake (thinking: a think time).
	e.rec.schedule(u, e.now, e.n.users[u].Phase == app.Using)
}

// cycle is the application over the users of state n.
func (x *Explorer) cycle(n *state) *app.Cycle {
	c := *x.app
	c.Users = n.users
	return &c
}

// step returns the successor of s by choice c. extra, if set, sees the
// step's events (with send and deliver).
func (x *Explorer) step(s *state, c choice, extra proc.Sink, rec *schedule) (n *state, err error) {
	n = &state{
		procs:   slices.Clone(s.procs),
		ph:      slices.Clone(s.ph),
		rng:     slices.Clone(s.rng),
		users:   slices.Clone(s.users),
		wake:    slices.Clone(s.wake),
		crashed: s.crashed,
		net:     make([]flight, 0, len(s.net)+4),
		timers:  s.timers,
		chk:     x.w.clone(s.chk).(*checkers),
		depth:   s.depth + 1,
	}
	e := &stepper{x: x, n: n, cur: c.p, now: proc.Time(n.depth), extra: extra, rec: rec}
	rec.take(s, c, e.now)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("process %d panicked: %v", e.cur, r)
		}
	}()
	var m proc.Message
	var from proc.ID
	switch c.kind {
	case inDeliver:
		n.net = append(n.net, s.net[:c.i]...)
		n.net = append(n.net, s.net[c.i+1:]...)
		m, from = s.net[c.i].m, s.net[c.i].from
	default:
		n.net = append(n.net, s.net...)
	}
	var t proc.Timer
	if c.kind == inFire {
		t = s.timers[c.i].t
		n.timers = slices.Delete(slices.Clone(s.timers), c.i, c.i+1)
	}
	if c.kind == inCrash {
		n.crashed = slices.Clone(s.crashed)
		n.crashed[c.p] = true
		n.net = slices.DeleteFunc(n.net, func(f flight) bool { return f.to == c.p })
		n.timers = slices.DeleteFunc(slices.Clone(s.timers), func(a armed) bool { return a.p == c.p })
		if int(c.p) < len(n.wake) {
			n.wake[c.p] = false
		}
		e.emit(proc.Event{Kind: proc.EvCrash, P: c.p})
		return n, nil
	}
	n.timers = slices.Clip(n.timers) // the step appends to its own copy
	p := x.w.clone(s.procs[c.p]).(proc.Process)
	n.procs[c.p] = p
	switch c.kind {
	case inDeliver:
		if extra != nil {
			e.emit(proc.Event{Kind: proc.EvDeliver, P: c.p, Peer: from, Msg: m.Kind()})
		}
		p.Deliver(e, from, m)
	case inFire:
		p.Fire(e, t)
	case inWake:
		n.wake[c.p] = false
		using := n.users[c.p].Phase == app.Using
		x.cycle(n).Wake(e, e, p.(proc.Allocator), c.p, 0, true)
		if using {
			e.capped(c.p)
		}
	}
	n.ph[c.p] = x.procHash(n, c.p)
	return n, nil
}

func (x *Explorer) procHash(n *state, p proc.ID) uint64 {
	return mix(x.w.hash(n.procs[p]) ^ x.w.hash(n.rng[p]) + uint64(p)*k1)
}

// fingerprint hashes the whole state: processes, the multiset of messages
// in flight (for FIFO, each message with its place on its link), the
// multiset of armed timers, the users' cycles, pending wake-ups, crashes.
func (x *Explorer) fingerprint(s *state) uint64 {
	var sum uint64
	for p, h := range s.ph {
		sum += mix(h + uint64(p))
	}
	for i, f := range s.net {
		h := f.h
		if x.cfg.FIFO {
			pos := 0
			for _, g := range s.net[:i] {
				if g.from == f.from && g.to == f.to {
					pos++
				}
			}
			h += uint64(pos) * k2
		}
		sum += mix(h ^ 0x6d7367)
	}
	for _, t := range s.timers {
		sum += mix(t.h ^ 0x74696d)
	}
	var h hasher
	h.add(sum)
	if x.timed {
		h.add(uint64(s.depth))
	}
	h.add(x.w.hash(s.users))
	for u, w := range s.wake {
		if w {
			h.add(uint64(u) + 1)
		}
	}
	for p, c := range s.crashed {
		if c {
			h.add(uint64(p) + 1<<32)
		}
	}
	return mix(uint64(h))
}

// waiting is the set of live users with an open request.
func (s *state) waiting() []proc.ID {
	var out []proc.ID
	for u := range s.users {
		if s.users[u].Phase == app.Waiting && !s.crashed[u] {
			out = append(out, proc.ID(u))
		}
	}
	return out
}

// initial builds the initial state: every process started, every user's
// first wake-up pending.
func (x *Explorer) initial(extra proc.Sink, rec *schedule) (*state, error) {
	procs, err := x.cfg.Algorithm.Build(x.cfg.Problem)
	if err != nil {
		return nil, err
	}
	pb := x.cfg.Problem
	if len(procs) < pb.Users {
		return nil, fmt.Errorf("%d processes for %d users", len(procs), pb.Users)
	}
	for u := range pb.Users {
		if _, ok := procs[u].(proc.Allocator); !ok {
			return nil, fmt.Errorf("user %d (%T) does not take requests", u, procs[u])
		}
	}
	for _, p := range x.cfg.Crash {
		if p < 0 || int(p) >= len(procs) {
			return nil, fmt.Errorf("crash of process %d: %s runs processes 0..%d", p, x.cfg.Algorithm.Name, len(procs)-1)
		}
	}
	if x.w.frozen == nil {
		roots := make([]any, 0, len(procs)+2)
		for _, p := range procs {
			roots = append(roots, p)
		}
		// The problem is shared by every process and the checkers.
		roots = append(roots, pb, pb)
		x.w.freeze(roots)
		// Keep what was frozen alive: a freed address reused by a new,
		// private object would be taken for shared memory.
		x.roots = roots
	}
	s := &state{
		procs:   procs,
		ph:      make([]uint64, len(procs)),
		rng:     make([]rand.PCG, len(procs)),
		users:   slices.Clone(x.app.Users),
		wake:    make([]bool, pb.Users),
		crashed: make([]bool, len(procs)),
		chk:     &checkers{},
	}
	switch pb.Kind {
	case algo.Exclusive:
		s.chk.safety = &exclusion{}
	case algo.Pool:
		s.chk.safety = &pool{check.Pool{Units: pb.Units}}
	default:
		s.chk.safety = &quota{check.Quota{Budget: pb.Budget, Waste: pb.Waste}}
	}
	if len(x.cfg.Crash) > 0 && pb.Kind == algo.Exclusive && pb.Conflict != nil {
		s.chk.loc = &check.Locality{Graph: pb.Conflict}
	}
	for p := range s.rng {
		// The simulator's seeding: a path replays in sim with the same draws.
		s.rng[p] = *rand.NewPCG(x.cfg.Seed, uint64(p)<<1)
	}
	e := &stepper{x: x, n: s, extra: extra, rec: rec}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("process %d panicked at start: %v", e.cur, r)
		}
	}()
	for p := range procs {
		e.cur, e.rnd = proc.ID(p), nil
		procs[p].Start(e)
	}
	cyc := x.cycle(s)
	for u := range pb.Users {
		cyc.Begin(e, proc.ID(u))
	}
	s.timers = slices.Clip(s.timers)
	for p := range procs {
		s.ph[p] = x.procHash(s, proc.ID(p))
	}
	return s, nil
}
