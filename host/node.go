package host

import (
	"errors"
	"fmt"
	"math/rand/v2"
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
type node struct {
	h      *Host
	id     proc.ID
	p      proc.Process
	follow Follow
	rnd    *rand.Rand

	mu     sync.Mutex
	q      []input // guarded by mu
	shut   bool    // guarded by mu: the goroutine has ended, inputs are dropped
	signal chan struct{}
	spare  []input

	stop     chan struct{} // closed by Remove
	ended    chan struct{} // closed when the goroutine ends
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

// put appends to the mailbox. It never blocks on the process, so a sender
// cannot wait on a receiver that waits on it.
func (n *node) put(in input) {
	n.mu.Lock()
	if n.shut {
		n.mu.Unlock()
		n.h.settle()
		return
	}
	n.q = append(n.q, in)
	n.mu.Unlock()
	n.wake()
}

func (n *node) wake() {
	select {
	case n.signal <- struct{}{}:
	default:
	}
}

// deliver is the node's transport.Handler.
func (n *node) deliver(from proc.ID, m proc.Message) {
	n.put(input{kind: inDeliver, from: from, msg: m})
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

// loop handles the mailbox's inputs one at a time until the process is
// removed or the host closed.
func (n *node) loop() {
	defer n.h.wg.Done()
	defer close(n.ended)
	var batch []input
	i := 0 // batch[i:] is still to handle
	defer func() {
		// Count off what will never be handled; from now on put drops.
		n.mu.Lock()
		n.shut = true
		left := len(batch) - i + len(n.q)
		n.q = nil
		n.mu.Unlock()
		for range left {
			n.h.settle()
		}
	}()
	for {
		n.crashIfAsked()
		select {
		case <-n.h.done:
			return
		case <-n.stop:
			return
		case <-n.signal:
		}
		n.mu.Lock()
		batch, i = n.q, 0
		n.q = n.spare[:0]
		n.mu.Unlock()
		for i < len(batch) {
			if n.stopping() {
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
			r.deliver(n.id, m)
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
