package runtime

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"allot/algo"
	"allot/proc"
)

// inputKind is what a process is asked to handle.
type inputKind uint8

const (
	inStart   inputKind = iota
	inDeliver           // a message
	inFire              // a timer the process armed
	inWake              // the workload: request, or leave the critical section
)

type input struct {
	kind  inputKind
	from  proc.ID
	msg   proc.Message
	timer proc.Timer
}

// phase of a user in the workload cycle.
type phase uint8

const (
	thinking phase = iota
	waiting        // asked, not yet answered
	using          // in its critical section / holding a unit
)

// node hosts one process: its mailbox, the goroutine that empties it, and
// the proc.Env the process sees. Everything below the mailbox is touched by
// that goroutine only, so the algorithm needs no locks.
type node struct {
	r    *run
	id   proc.ID
	p    proc.Process
	a    proc.Allocator // nil for helper processes
	rnd  *rand.Rand     // the algorithm's source
	wrnd *rand.Rand     // the workload's source (users only)

	mu     sync.Mutex
	q      []input       // guarded by mu
	signal chan struct{} // "q is not empty" (capacity 1)
	spare  []input

	// The workload cycle and the counters (the loop goroutine only; read
	// by Run after the goroutine has ended).
	phase     phase
	made      int
	unit      int32
	req       proc.Request
	delivered int64
	inputs    int64
	kinds     []string
	count     []int64
}

var _ proc.Env = (*node)(nil)

// put appends to the mailbox. It never blocks on the process, so a sender
// cannot wait on a receiver that waits on it.
func (n *node) put(in input) {
	n.mu.Lock()
	n.q = append(n.q, in)
	n.mu.Unlock()
	select {
	case n.signal <- struct{}{}:
	default:
	}
}

// deliver is the node's transport Handler.
func (n *node) deliver(from proc.ID, m proc.Message) {
	n.put(input{kind: inDeliver, from: from, msg: m})
}

// loop handles the mailbox's inputs one at a time until the run stops.
func (n *node) loop() {
	defer n.r.wg.Done()
	defer func() {
		if v := recover(); v != nil {
			n.r.halt(StopError, fmt.Errorf("runtime: seed %d: process %d at tick %d: panic: %v", n.r.cfg.Seed, n.id, n.r.now(), v))
		}
	}()
	for {
		select {
		case <-n.r.stopped:
			return
		case <-n.signal:
		}
		n.mu.Lock()
		batch := n.q
		n.q = n.spare[:0]
		n.mu.Unlock()
		for i := range batch {
			if n.r.halted() {
				return
			}
			n.handle(batch[i])
			batch[i] = input{} // let the message go
			n.r.done()
		}
		n.spare = batch
	}
}

func (n *node) handle(in input) {
	n.inputs++
	switch in.kind {
	case inStart:
		n.p.Start(n)
	case inDeliver:
		n.delivered++
		if n.r.cfg.TraceMessages {
			n.r.emit(proc.Event{Kind: proc.EvDeliver, P: n.id, Peer: in.from, Msg: in.msg.Kind()})
		}
		n.p.Deliver(n, in.from, in.msg)
	case inFire:
		n.p.Fire(n, in.timer)
	case inWake:
		n.wake()
	}
}

// wake moves the user one step along the workload cycle, as the simulator
// does: think → request → (enter) → critical section → exit → think.
func (n *node) wake() {
	pb := n.r.pb
	switch n.phase {
	case thinking:
		n.req = n.nextRequest()
		n.phase = waiting
		n.made++
		if pb.Kind == algo.Pool {
			n.r.emit(proc.Event{Kind: proc.EvAcquire, P: n.id})
		} else {
			n.r.emit(proc.Event{Kind: proc.EvRequest, P: n.id, Res: n.req.Res})
		}
		n.a.Request(n, n.req)
	case using:
		n.phase = thinking
		// The exit is emitted before Release sends anything, so no other
		// process can enter on what this one gives back before the stream
		// shows it left.
		if pb.Kind == algo.Pool {
			n.r.emit(proc.Event{Kind: proc.EvRelease, P: n.id, Unit: n.unit})
		} else {
			n.r.emit(proc.Event{Kind: proc.EvExit, P: n.id})
		}
		n.a.Release(n)
		n.thinkThenAsk()
	}
}

// thinkThenAsk schedules the user's next request, if it has one left.
func (n *node) thinkThenAsk() {
	if c := n.r.cfg.PerUser; c > 0 && n.made >= c {
		return
	}
	n.schedule(n.r.cfg.Think.Draw(n.wrnd))
}

// schedule wakes the user after d ticks.
func (n *node) schedule(d proc.Time) {
	n.arm(d, input{kind: inWake})
}

// arm puts in into the mailbox after d ticks.
func (n *node) arm(d proc.Time, in input) {
	n.r.pending.Add(1)
	if !n.r.timers.after(time.Duration(d)*n.r.cfg.Tick, func() { n.put(in) }) {
		n.r.done() // the run is stopping
	}
}

func (n *node) nextRequest() proc.Request {
	if n.r.cfg.Next != nil {
		return n.r.cfg.Next(n.id, n.wrnd)
	}
	if n.r.pb.Kind == algo.Exclusive {
		return proc.Request{Res: n.r.pb.MaxSets[n.id]}
	}
	return proc.Request{}
}

// Self implements proc.Env.
func (n *node) Self() proc.ID { return n.id }

// Now implements proc.Env: real elapsed ticks since the run started.
func (n *node) Now() proc.Time { return n.r.now() }

// Rand implements proc.Env.
func (n *node) Rand() *rand.Rand { return n.rnd }

// Send implements proc.Env.
func (n *node) Send(to proc.ID, m proc.Message) {
	if to < 0 || int(to) >= len(n.r.nodes) {
		panic(fmt.Sprintf("send of %s to nonexistent process %d", m.Kind(), to))
	}
	n.countKind(m.Kind())
	if n.r.cfg.TraceMessages {
		n.r.emit(proc.Event{Kind: proc.EvSend, P: n.id, Peer: to, Msg: m.Kind()})
	}
	n.r.pending.Add(1)
	if err := n.r.tr.Send(n.id, to, m); err != nil {
		n.r.done()
		if !n.r.halted() {
			panic(fmt.Sprintf("send of %s to %d: %v", m.Kind(), to, err))
		}
	}
}

func (n *node) countKind(k string) {
	for i := range n.kinds {
		if n.kinds[i] == k {
			n.count[i]++
			return
		}
	}
	n.kinds = append(n.kinds, k)
	n.count = append(n.count, 1)
}

// After implements proc.Env.
func (n *node) After(d proc.Time, t proc.Timer) {
	if d < 0 {
		panic(fmt.Sprintf("timer armed %d ticks in the past", d))
	}
	n.arm(d, input{kind: inFire, timer: t})
}

// Emit implements proc.Env: the algorithm's own events (enter, grant,
// permit, reject, exhausted) also move the user along its cycle.
func (n *node) Emit(e proc.Event) {
	e.P = n.id
	n.r.emit(e)
	if n.a == nil {
		return
	}
	switch e.Kind {
	case proc.EvEnter, proc.EvGrant:
		if n.phase != waiting {
			return // a broken algorithm; the checkers will say so
		}
		n.phase = using
		n.unit = e.Unit
		n.schedule(n.r.cfg.CS.Draw(n.wrnd))
	case proc.EvPermit, proc.EvReject:
		if n.phase != waiting {
			return
		}
		n.phase = thinking
		n.thinkThenAsk()
	default:
		return
	}
	if s := n.r.served.Add(1); n.r.cfg.Requests > 0 && s >= int64(n.r.cfg.Requests) {
		n.r.halt(StopRequests, nil)
	}
}
