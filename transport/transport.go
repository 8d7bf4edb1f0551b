// Package transport is the contract between a real-time host (package
// host) and whatever carries its processes' messages: an in-memory network
// (transport/mem) in tests and benchmarks, nodes over gRPC
// (transport/grpc). The algorithms never see it; they send through their
// proc.Env, and the host hands each message to the transport.
//
//	host A (processes 0, 1)                         host B (processes 2, 3)
//	   Env.Send(2, m) ──> Send(0, 2, m) ──> link 0→2 ──> Handler of 2 ──> mailbox of 2
//	                      Register(0, h0)                Register(2, h2)
//	                      Register(1, h1)                Register(3, h3)
//
// A link is the one-way channel from one process to another. What a
// transport promises on a link is the network model the algorithms are
// proved for: reliable (every message arrives exactly once, however long
// the connection under it is down), and unordered or FIFO as the transport
// says (Ordered). A transport that runs over connections which can break
// must make them reliable itself: sequence numbers, acknowledgements, resend
// after reconnect and de-duplication (a lost fork deadlocks the dining
// philosophers, a duplicated one breaks exclusion).
//
// Every transport passes the one contract suite, package transporttest,
// including its FIFO checks when it is ordered and its cut-and-restore test
// when it can cut connections (Cutter).
package transport

import (
	"errors"
	"sync"

	"github.com/allot-dev/allot/proc"
)

// Handler receives the messages a transport delivers to one process. A
// transport calls it from goroutines of its own, concurrently for different
// processes and possibly for the same one (but, on an ordered transport,
// one message at a time per link, in send order); it must not block (the
// host's handler appends to the process's mailbox and returns).
type Handler func(from proc.ID, m proc.Message)

// Transport carries messages between processes.
//
//   - Register routes messages addressed to id to h, from now on. A second
//     registration of the same id is an error, as is any call after Close.
//   - Unregister stops delivery to id: once it returns h is not running
//     for id and will not be called again; messages still in flight to id
//     are dropped, and id may be registered again. Since it waits for
//     the handler, a handler must not unregister its own id.
//   - Send hands m over and returns: it never waits for the receiver and
//     never calls a Handler itself. A message to a registered process is
//     delivered exactly once, with its sender as from, unless the receiver
//     is unregistered or the transport closed first. On an Ordered
//     transport the messages of one link are delivered in send order.
//     Sending to a process the transport cannot route to is an error (not
//     ErrClosed); on a closed transport Send returns ErrClosed. A send to
//     a process that is not registered is an error where the transport
//     can know it (the in-memory one can; a node cannot know at once that
//     a process on another node is gone, and drops the message there).
//   - Close drops the messages still in flight; once it returns no Handler
//     is running and none will be called. It is idempotent.
//
// Messages are plain values that are never mutated after they are sent
// (proc.Message), so an in-process transport may pass them as they are; a
// network transport encodes them.
type Transport interface {
	Register(id proc.ID, h Handler) error
	Unregister(id proc.ID) error
	Send(from, to proc.ID, m proc.Message) error
	Close() error
	// Ordered reports whether every link is FIFO.
	Ordered() bool
}

// Cutter is a transport whose connections can be cut and restored, for
// tests of what the algorithms assume of channels. While the link between
// a and b is cut nothing crosses it either way; messages sent meanwhile
// wait, and every message is still delivered exactly once (in order on an
// ordered transport) once the link is restored. A network transport cuts
// the connection that carries the link (and with it every link that
// shares it).
type Cutter interface {
	Cut(a, b proc.ID)
	Restore(a, b proc.ID)
}

// ErrClosed is returned by a closed transport.
var ErrClosed = errors.New("transport closed")

// Endpoint is one registration of a Handler, for transports to keep in
// their tables. A message keeps the endpoint it was sent to, so one in
// flight to an id that unregistered is dropped even if the id registers
// again; Retire waits for a handler still running.
type Endpoint struct {
	h    Handler
	mu   sync.RWMutex // held for reading while h runs
	gone bool
}

// NewEndpoint registers h.
func NewEndpoint(h Handler) *Endpoint { return &Endpoint{h: h} }

// Deliver hands m to the handler unless the endpoint is retired.
func (e *Endpoint) Deliver(from proc.ID, m proc.Message) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if !e.gone {
		e.h(from, m)
	}
}

// Retire stops deliveries, once any running one has returned.
func (e *Endpoint) Retire() {
	e.mu.Lock()
	e.gone = true
	e.mu.Unlock()
}
