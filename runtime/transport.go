package runtime

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"allot/dist"
	"allot/proc"
)

// Handler receives the messages a transport delivers to one process. A
// transport calls it from goroutines of its own, concurrently for different
// processes and possibly for the same one; it must not block (the driver's
// handler appends to the process's mailbox and returns).
type Handler func(from proc.ID, m proc.Message)

// Transport carries messages between processes. It is the only thing a
// network transport has to provide; every transport must pass the contract
// suite in package transporttest:
//
//   - Register routes messages addressed to id to h; a second registration of
//     the same id is an error.
//   - Send never waits for the receiver: it hands m over and returns. A
//     message to a registered process is delivered exactly once, unless the
//     transport is closed first, with its sender as from. The order of two
//     messages on the same link is not promised (channels are unordered).
//     Sending to an unknown process is an error; sending on a closed
//     transport returns ErrClosed.
//   - Close drops the messages still in flight; once it returns no Handler
//     is running and none will be called. It is idempotent.
//
// Messages are plain values that are never mutated after they are sent
// (proc.Message), so an in-process transport may pass them as they are; a
// network transport encodes them.
type Transport interface {
	Register(id proc.ID, h Handler) error
	Send(from, to proc.ID, m proc.Message) error
	Close() error
}

// ErrClosed is returned by Send on a closed transport.
var ErrClosed = errors.New("transport closed")

// MemConfig configures an in-memory transport.
type MemConfig struct {
	// Delay is each message's delay in ticks. Every message draws its own
	// delay, so messages on one link may overtake each other.
	Delay dist.Dist
	Tick  time.Duration // the real duration of a tick (0: DefaultTick)
	Seed  uint64        // seeds the delay draws
}

// Mem is an in-memory Transport: each message is handed to its receiver's
// Handler after a delay drawn from MemConfig.Delay, by a time.AfterFunc
// callback.
type Mem struct {
	tick   time.Duration
	delay  dist.Dist
	timers *timers

	mu       sync.Mutex
	rnd      *rand.Rand
	handlers map[proc.ID]Handler
	closed   bool
}

var _ Transport = (*Mem)(nil)

// NewMem returns an in-memory transport.
func NewMem(cfg MemConfig) *Mem {
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	return &Mem{
		tick:     cfg.Tick,
		delay:    cfg.Delay,
		timers:   newTimers(),
		rnd:      rand.New(rand.NewPCG(cfg.Seed, 0x6e6574)),
		handlers: map[proc.ID]Handler{},
	}
}

// Register implements Transport.
func (t *Mem) Register(id proc.ID, h Handler) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrClosed
	}
	if _, dup := t.handlers[id]; dup {
		return fmt.Errorf("transport: process %d registered twice", id)
	}
	t.handlers[id] = h
	return nil
}

// Send implements Transport.
func (t *Mem) Send(from, to proc.ID, m proc.Message) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return ErrClosed
	}
	h, ok := t.handlers[to]
	d := t.delay.Draw(t.rnd)
	t.mu.Unlock()
	if !ok {
		return fmt.Errorf("transport: send of %s from %d to unknown process %d", m.Kind(), from, to)
	}
	// Even a zero delay goes through a timer: delivery is never on the
	// sender's goroutine, so a handler cannot run inside Send.
	if !t.timers.after(time.Duration(d)*t.tick, func() { h(from, m) }) {
		return ErrClosed
	}
	return nil
}

// Close implements Transport.
func (t *Mem) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.timers.close()
	return nil
}
