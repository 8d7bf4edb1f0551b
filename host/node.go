package host

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport"
)

// inputKind is what a process is asked to handle.
type inputKind uint8

const (
	inStart   inputKind = iota
	inDeliver           // a message
	inFire              // a timer the process armed
	inCall              // the application: Host.Call, Host.CallAfter
)

type input struct {
	kind  inputKind
	from  proc.ID
	msg   proc.Message
	timer proc.Timer
	call  func(proc.Env)
}

// node hosts one process: its mailbox, the goroutine that empties it, and
// the proc.Env the process sees. Everything below the mailbox is touched by
// that goroutine only, so the algorithm needs no locks.
//
// The goroutine runs only while the mailbox has inputs: put starts it,
// and it ends once it finds the mailbox empty. A process that waits (an
// idle semaphore of a service, a user thinking) costs its state and its
// mailbox, not a goroutine and its stack; at most one goroutine runs a
// process at a time (running, under mu), so its inputs are still handled
// one at a time and in order.
type node struct {
	h      *Host
	id     proc.ID
	p      proc.Process
	follow Follow
	rnd    *rand.Rand

	mu      sync.Mutex
	q       []input // guarded by mu
	running bool    // guarded by mu: a goroutine handles the mailbox
	shut    bool    // guarded by mu: the node is finished, inputs are dropped
	spare   []input

	stop     chan struct{} // closed by Remove
	ended    chan struct{} // closed once the node is finished (shut, no goroutine)
	crashReq atomic.Bool
	crashed  chan struct{} // closed once EvCrash is on the stream

	dead bool // crashed, or failed by a panic (the goroutine's own)

	// Counts, written by the goroutine, read by Stats at any time.
	delivered atomic.Int64
	inputs    atomic.Int64
	kindsMu   sync.Mutex
	kinds     []string
	count     []int64
}

var _ proc.Env = (*node)(nil)

// put appends to the mailbox, and starts the goroutine if none runs. It
// never blocks on the process, so a sender cannot wait on a receiver that
// waits on it.
func (n *node) put(in input) {
	n.mu.Lock()
	if n.shut {
		n.mu.Unlock()
		n.h.settle()
		return
	}
	n.q = append(n.q, in)
	start := !n.running
	n.running = true
	n.mu.Unlock()
	if start {
		go n.loop()
	}
}

// wake starts the goroutine, if none runs, with no input: it looks at a
// crash asked for.
func (n *node) wake() {
	n.mu.Lock()
	start := !n.running && !n.shut
	n.running = true
	n.mu.Unlock()
	if start {
		go n.loop()
	}
}

// finish ends a node whose process was removed or whose host closed, and
// waits until its goroutine (if one runs) has ended: that goroutine
// finishes it itself, between two inputs.
func (n *node) finish() {
	n.mu.Lock()
	if !n.running && !n.shut {
		n.shut = true
		left := len(n.q)
		n.q = nil
		n.mu.Unlock()
		for range left {
			n.h.settle()
		}
		close(n.ended)
		return
	}
	n.mu.Unlock()
	<-n.ended
}

// deliver is the node's transport.Handler: with Config.Inline, a message
// for an idle process is handled here, on the transport's goroutine;
// otherwise, and when the process is busy, it goes to the mailbox.
func (n *node) deliver(from proc.ID, m proc.Message) {
	in := input{kind: inDeliver, from: from, msg: m}
	if !n.h.cfg.Inline {
		n.put(in)
		return
	}
	n.mu.Lock()
	if n.shut || n.running || len(n.q) > 0 || n.stopping() {
		n.mu.Unlock()
		n.put(in)
		return
	}
	// running, as a goroutine of its own would: inputs put meanwhile
	// queue behind this one, and finish waits for it.
	n.running = true
	n.mu.Unlock()
	n.crashIfAsked()
	n.handle(in)
	n.h.settle()
	n.mu.Lock()
	if len(n.q) == 0 && !n.stopping() {
		n.running = false
		n.mu.Unlock()
		return
	}
	// Inputs came meanwhile, or the process is being removed (finish
	// waits for the loop to finish it): a goroutine of its own takes
	// over, as running says.
	n.mu.Unlock()
	go n.loop()
}

func (n *node) isCrashed() bool {
	select {
	case <-n.crashed:
		return true
	default:
		return false
	}
}

// stopping reports whether the goroutine must leave.
func (n *node) stopping() bool {
	select {
	case <-n.h.done:
		return true
	case <-n.stop:
		return true
	default:
		return false
	}
}

// lingers is how many times a process's goroutine yields, finding its
// mailbox empty, before it ends.
const lingers = 2

// loop handles the mailbox's inputs one at a time until it is empty (the
// goroutine ends, and put starts another for the next input), the process
// is removed or the host closed (it finishes the node).
func (n *node) loop() {
	growStack()
	var batch []input
	i := 0    // batch[i:] is still to handle
	idle := 0 // times the mailbox was found empty in a row
	stopped := func() {
		// Count off what will never be handled; from now on put drops.
		n.mu.Lock()
		n.shut, n.running = true, false
		left := len(batch) - i + len(n.q)
		n.q = nil
		n.mu.Unlock()
		for range left {
			n.h.settle()
		}
		close(n.ended)
	}
	for {
		n.crashIfAsked()
		n.mu.Lock()
		// Under mu: finish, called once the stop is closed, sees either
		// this goroutine gone (and finishes the node itself) or running
		// still (and waits for this check to see the stop).
		if n.stopping() {
			n.mu.Unlock()
			stopped()
			return
		}
		if len(n.q) == 0 {
			if idle < lingers {
				// An answer is often on its way: a goroutine kept
				// a moment costs less than a new one (and its
				// stack grown again).
				n.mu.Unlock()
				idle++
				runtime.Gosched()
				continue
			}
			n.running = false
			n.mu.Unlock()
			return
		}
		idle = 0
		batch, i = n.q, 0
		n.q = n.spare[:0]
		n.mu.Unlock()
		for i < len(batch) {
			if n.stopping() {
				stopped()
				return
			}
			n.crashIfAsked()
			n.handle(batch[i])
			batch[i] = input{} // let the message go
			i++
			n.h.settle()
		}
		n.spare = batch
	}
}

// growStack grows the goroutine's stack at once to what a process's
// input takes. A goroutine starts with a small stack, and an algorithm's
// step with the sends it makes (the transport, the codec, another
// process's mailbox) outgrows it two or three times, each time copied
// frame by frame: a tenth of a service node's CPU under load
// (docs/service.md, *Where the time goes*). Grown here, with one frame
// on the stack, the copy is of almost nothing.
//
//go:noinline
func growStack() {
	var pad [growBy]byte
	keep(pad[:])
}

// growBy is the frame growStack puts on the stack: the stack grows to
// the next power of two above it, 8 KiB, which a step and its sends fit
// in (W3's profile shows no growth past it).
const growBy = 6 << 10

//go:noinline
func keep([]byte) {}

// crashIfAsked performs a crash Host.Crash asked for, between two inputs.
func (n *node) crashIfAsked() {
	if !n.crashReq.Load() || n.isCrashed() {
		return
	}
	n.dead = true
	n.h.Record(proc.Event{Kind: proc.EvCrash, P: n.id})
	close(n.crashed)
}

func (n *node) handle(in input) {
	if n.dead {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			n.dead = true
			n.h.fail(fmt.Errorf("host: seed %d: process %d at tick %d: panic: %v", n.h.cfg.Seed, n.id, n.h.Now(), v))
		}
	}()
	n.inputs.Add(1)
	switch in.kind {
	case inStart:
		n.p.Start(n)
	case inDeliver:
		n.delivered.Add(1)
		if n.h.cfg.TraceMessages {
			n.h.Record(proc.Event{Kind: proc.EvDeliver, P: n.id, Peer: in.from, Msg: in.msg.Kind()})
		}
		n.p.Deliver(n, in.from, in.msg)
	case inFire:
		n.p.Fire(n, in.timer)
	case inCall:
		in.call(n)
	}
}

// arm puts in into the mailbox after d ticks.
func (n *node) arm(d proc.Time, in input) {
	n.h.pend()
	if !n.h.timers.After(time.Duration(d)*n.h.cfg.Tick, func() { n.put(in) }) {
		n.h.settle() // the host is closing
	}
}

func (n *node) stats() Stats {
	n.kindsMu.Lock()
	defer n.kindsMu.Unlock()
	s := Stats{Delivered: n.delivered.Load(), Inputs: n.inputs.Load(), ByKind: make(map[string]int64, len(n.kinds))}
	for i, k := range n.kinds {
		s.ByKind[k] = n.count[i]
		s.Messages += n.count[i]
	}
	return s
}

// Self implements proc.Env.
func (n *node) Self() proc.ID { return n.id }

// Now implements proc.Env: real elapsed ticks since the host's epoch.
func (n *node) Now() proc.Time { return n.h.Now() }

// Rand implements proc.Env.
func (n *node) Rand() *rand.Rand { return n.rnd }

// Send implements proc.Env. A send the transport refuses is reported to
// the host's OnError; the process goes on (as on a real network, where
// the message would be lost).
func (n *node) Send(to proc.ID, m proc.Message) {
	n.countKind(m.Kind())
	if n.h.cfg.TraceMessages {
		n.h.Record(proc.Event{Kind: proc.EvSend, P: n.id, Peer: to, Msg: m.Kind()})
	}
	n.h.pend()
	if n.h.cfg.Direct {
		// A receiver removed meanwhile has shut its mailbox, which
		// drops the message as the transport would.
		if r := n.h.hosted(to); r != nil {
			r.put(input{kind: inDeliver, from: n.id, msg: m})
			return
		}
	}
	if err := n.h.cfg.Transport.Send(n.id, to, m); err != nil {
		n.h.settle()
		if errors.Is(err, transport.ErrClosed) && n.stopping() {
			return // the run is over
		}
		n.h.fail(fmt.Errorf("host: process %d at tick %d: send of %s to %d: %w", n.id, n.h.Now(), m.Kind(), to, err))
	}
}

func (n *node) countKind(k string) {
	n.kindsMu.Lock()
	defer n.kindsMu.Unlock()
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

// Emit implements proc.Env: the event goes on the stream, then to the
// process's Follow.
func (n *node) Emit(e proc.Event) {
	e.P = n.id
	e = n.h.record(e)
	if n.follow != nil {
		n.follow(n, e)
	}
}
