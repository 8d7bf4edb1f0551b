// Package mem is the in-memory transport: the network of a real-time run
// inside one program, for tests and benchmarks. Each message waits a delay
// drawn from a distribution (in ticks) before it is handed to its receiver;
// links are unordered, as in the simulator's default network, or FIFO.
//
//	Send(from, to, m) ──> draw a delay ──> timer ──> link from→to ──> Handler of to
//	                                                 one message at a time;
//	                                                 FIFO: in sequence order;
//	                                                 cut: held until restored
//
// Every message draws its own delay. On an unordered link a message is
// delivered as soon as its delay is over, so messages overtake each other.
// On a FIFO link messages carry sequence numbers and a reorder buffer holds
// a message whose delay is over until the one sent before it on the link
// has been delivered. A link may be cut (Cut) and restored (Restore): while
// cut, messages wait on it, and none is lost.
package mem

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/internal/timers"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport"
)

// DefaultTick is the real duration of a tick when none is configured.
const DefaultTick = time.Millisecond

// Config configures an in-memory transport.
type Config struct {
	Delay dist.Dist     // each message's delay in ticks
	FIFO  bool          // no overtaking on a link
	Tick  time.Duration // the real duration of a tick (0: DefaultTick)
	Seed  uint64        // seeds the delay draws
}

// Mem is an in-memory transport.
type Mem struct {
	cfg    Config
	timers *timers.Set

	mu     sync.Mutex
	rnd    *rand.Rand
	eps    map[proc.ID]*transport.Endpoint
	links  map[[2]proc.ID]*link
	cut    map[[2]proc.ID]bool // by (lower id, higher id)
	closed bool
}

var (
	_ transport.Transport = (*Mem)(nil)
	_ transport.Cutter    = (*Mem)(nil)
)

type message struct {
	seq uint64
	to  *transport.Endpoint
	m   proc.Message
}

// link is the channel from one process to another. Guarded by Mem.mu.
type link struct {
	from, to proc.ID
	arrived  []message          // unordered: delay over, not yet delivered
	ready    map[uint64]message // FIFO: delay over, by sequence number
	sent     uint64             // FIFO: sequence numbers given out
	next     uint64             // FIFO: the next one to deliver
	busy     bool               // a goroutine is delivering on the link
}

// New returns an in-memory transport.
func New(cfg Config) *Mem {
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	return &Mem{
		cfg:    cfg,
		timers: timers.New(),
		rnd:    rand.New(rand.NewPCG(cfg.Seed, 0x6e6574)),
		eps:    map[proc.ID]*transport.Endpoint{},
		links:  map[[2]proc.ID]*link{},
		cut:    map[[2]proc.ID]bool{},
	}
}

// Ordered implements transport.Transport.
func (t *Mem) Ordered() bool { return t.cfg.FIFO }

// Register implements transport.Transport.
func (t *Mem) Register(id proc.ID, h transport.Handler) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return transport.ErrClosed
	}
	if _, dup := t.eps[id]; dup {
		return fmt.Errorf("transport: process %d registered twice", id)
	}
	t.eps[id] = transport.NewEndpoint(h)
	return nil
}

// Unregister implements transport.Transport.
func (t *Mem) Unregister(id proc.ID) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return transport.ErrClosed
	}
	ep, ok := t.eps[id]
	delete(t.eps, id)
	t.mu.Unlock()
	if !ok {
		return fmt.Errorf("transport: process %d is not registered", id)
	}
	ep.Retire() // waits for a handler running for id
	return nil
}

// Send implements transport.Transport.
func (t *Mem) Send(from, to proc.ID, m proc.Message) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return transport.ErrClosed
	}
	ep, ok := t.eps[to]
	if !ok {
		t.mu.Unlock()
		return fmt.Errorf("transport: send of %s from %d to unknown process %d", m.Kind(), from, to)
	}
	l := t.link(from, to)
	delay := time.Duration(t.cfg.Delay.Draw(t.rnd)) * t.cfg.Tick
	msg := message{to: ep, m: m}
	if t.cfg.FIFO {
		msg.seq = l.sent
		l.sent++
	}
	t.mu.Unlock()
	// Even a zero delay goes through a timer: delivery is never on the
	// sender's goroutine, so a handler cannot run inside Send.
	if !t.timers.After(delay, func() { t.arrive(l, msg) }) {
		return transport.ErrClosed
	}
	return nil
}

func (t *Mem) link(from, to proc.ID) *link {
	k := [2]proc.ID{from, to}
	l := t.links[k]
	if l == nil {
		l = &link{from: from, to: to}
		if t.cfg.FIFO {
			l.ready = map[uint64]message{}
		}
		t.links[k] = l
	}
	return l
}

// arrive is a message's timer: its delay is over.
func (t *Mem) arrive(l *link, m message) {
	t.mu.Lock()
	if t.cfg.FIFO {
		l.ready[m.seq] = m
	} else {
		l.arrived = append(l.arrived, m)
	}
	t.drain(l)
}

// drain delivers what link l may deliver now, unless another goroutine is
// already doing so. Called with t.mu held; returns with it released.
func (t *Mem) drain(l *link) {
	if l.busy {
		t.mu.Unlock()
		return
	}
	l.busy = true
	for !t.closed && !t.cut[pair(l.from, l.to)] {
		var m message
		if t.cfg.FIFO {
			var ok bool
			if m, ok = l.ready[l.next]; !ok {
				break
			}
			delete(l.ready, l.next)
			l.next++
		} else {
			if len(l.arrived) == 0 {
				break
			}
			m = l.arrived[0]
			l.arrived[0] = message{}
			l.arrived = l.arrived[1:]
		}
		t.mu.Unlock()
		m.to.Deliver(l.from, m.m)
		t.mu.Lock()
	}
	l.busy = false
	t.mu.Unlock()
}

func pair(a, b proc.ID) [2]proc.ID {
	if a > b {
		a, b = b, a
	}
	return [2]proc.ID{a, b}
}

// Cut implements transport.Cutter: nothing crosses between a and b until
// Restore.
func (t *Mem) Cut(a, b proc.ID) {
	t.mu.Lock()
	t.cut[pair(a, b)] = true
	t.mu.Unlock()
}

// Restore implements transport.Cutter: what waited on the link is
// delivered.
func (t *Mem) Restore(a, b proc.ID) {
	t.mu.Lock()
	delete(t.cut, pair(a, b))
	ls := []*link{t.links[[2]proc.ID{a, b}], t.links[[2]proc.ID{b, a}]}
	t.mu.Unlock()
	for _, l := range ls {
		if l != nil {
			// Not on the caller's goroutine: Restore must not run handlers.
			t.timers.After(0, func() {
				t.mu.Lock()
				t.drain(l)
			})
		}
	}
}

// Close implements transport.Transport.
func (t *Mem) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.timers.Close()
	return nil
}
