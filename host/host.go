package host

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/allot-dev/allot/internal/timers"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport"
)

// DefaultTick is the real duration of a tick when none is configured. Go's
// timers on an idle Linux machine fire about a millisecond late at best, so
// shorter ticks compress the schedule rather than sharpen it.
const DefaultTick = time.Millisecond

// Config is one host.
type Config struct {
	// Transport carries the messages of the hosted processes. The host
	// registers each process it hosts and unregisters it when the process
	// is removed or the host closed; it never closes the transport.
	Transport transport.Transport
	Tick      time.Duration // real duration of one tick (0: DefaultTick)
	// Epoch is tick 0 (zero: when New is called). Hosts that write one
	// event stream share an epoch.
	Epoch time.Time
	Seed  uint64 // seeds the processes' random sources (as the simulator does)
	// Sink receives the events of the hosted processes, one at a time.
	Sink proc.Sink
	// TraceMessages adds EvSend and EvDeliver events to the stream.
	TraceMessages bool
	// Pending, when set, counts the inputs of a closed world (see Pending).
	Pending *Pending
	// Direct delivers a message between two processes of this host
	// straight into the receiver's mailbox instead of through the
	// transport: one goroutine hand-off and the transport's tables less
	// per message. Only for a transport that hands such messages over
	// at once and in order anyway (a node's, whose processes share it);
	// the in-memory transport's delays and cuts would not apply to them.
	Direct bool
	// Inline handles a message the transport delivers to an idle process
	// (no input queued, none being handled) on the goroutine that
	// delivers it, instead of on a goroutine started for it: no hand-off,
	// and no new goroutine whose stack grows again. For a transport whose
	// delivering goroutines may run a process's step and wait for it (a
	// node's link readers); the process's own sends never handle inline
	// (with Direct they are queued), so steps do not nest.
	Inline bool
	// OnError is told of what goes wrong inside the host: a send the
	// transport refuses, a panic in a process (which then stops handling
	// inputs). Nil: the errors are only kept for Err.
	OnError func(error)
}

// Follow is told of every event a hosted process emits (as stamped), on the
// process's goroutine, after the event is on the stream: the application follows the
// answers to its requests through it.
type Follow func(env proc.Env, e proc.Event)

// Errors of the host's methods.
var (
	ErrClosed  = errors.New("host: closed")
	ErrCrashed = errors.New("host: process crashed")
	ErrUnknown = errors.New("host: no such process")
)

// Host runs some processes in real time. Its methods may be called from
// any goroutine, except that Crash, Remove and Close wait for process
// goroutines to reach a point between two inputs, so a process's own
// inputs (a Call, a Follow) must not call them on itself (Crash, Remove)
// or on its host (Close): hand them to another goroutine.
type Host struct {
	cfg    Config
	epoch  time.Time
	timers *timers.Set
	done   chan struct{} // closed by Close

	mu      sync.Mutex
	nodes   map[proc.ID]*node
	closed  bool
	retired Stats // the counts of removed processes
	err     error

	sinkMu sync.Mutex // serialises the event stream
}

// New returns a host with no process.
func New(cfg Config) (*Host, error) {
	if cfg.Transport == nil {
		return nil, errors.New("host: no transport")
	}
	if cfg.Tick < 0 {
		return nil, fmt.Errorf("host: negative tick %v", cfg.Tick)
	}
	if cfg.Tick == 0 {
		cfg.Tick = DefaultTick
	}
	h := &Host{cfg: cfg, epoch: cfg.Epoch, timers: timers.New(), done: make(chan struct{}), nodes: map[proc.ID]*node{}}
	if h.epoch.IsZero() {
		h.epoch = time.Now()
	}
	return h, nil
}

// Now is the host's time: the ticks elapsed since the epoch.
func (h *Host) Now() proc.Time { return proc.Time(time.Since(h.epoch) / h.cfg.Tick) }

// Tick is the real duration of a tick.
func (h *Host) Tick() time.Duration { return h.cfg.Tick }

// Record puts an event of the application (request, exit, acquire,
// release) on the stream, stamped with the current tick. Called on the
// process's goroutine (in a Call or a Follow), it is in causal order with
// the process's own events and sends.
func (h *Host) Record(e proc.Event) { h.record(e) }

// record stamps e, puts it on the stream and returns it as stamped.
func (h *Host) record(e proc.Event) proc.Event {
	if h.cfg.Sink == nil {
		e.Time = h.Now()
		return e
	}
	// Stamping under the lock keeps times non-decreasing along the stream;
	// each process emits in program order, before the sends its events
	// cause, so the stream is consistent with causality.
	h.sinkMu.Lock()
	e.Time = h.Now()
	h.cfg.Sink.Event(e)
	h.sinkMu.Unlock()
	return e
}

// fail reports an error.
func (h *Host) fail(err error) {
	h.mu.Lock()
	h.err = errors.Join(h.err, err)
	h.mu.Unlock()
	if h.cfg.OnError != nil {
		h.cfg.OnError(err)
	}
}

// Err returns the errors reported so far (joined), or nil.
func (h *Host) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

func (h *Host) pend() {
	if h.cfg.Pending != nil {
		h.cfg.Pending.Add(1)
	}
}

func (h *Host) settle() {
	if h.cfg.Pending != nil {
		h.cfg.Pending.Done()
	}
}

// Add hosts process p as id: the host registers it with the transport,
// gives it a mailbox, a goroutine and an Env, and hands it Start as its
// first input. follow may be nil.
func (h *Host) Add(id proc.ID, p proc.Process, follow Follow) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return ErrClosed
	}
	if _, dup := h.nodes[id]; dup {
		return fmt.Errorf("host: process %d added twice", id)
	}
	n := &node{
		h: h, id: id, p: p, follow: follow,
		rnd:     rand.New(rand.NewPCG(h.cfg.Seed, uint64(id)<<1)),
		stop:    make(chan struct{}),
		ended:   make(chan struct{}),
		crashed: make(chan struct{}),
	}
	if err := h.cfg.Transport.Register(id, n.deliver); err != nil {
		return fmt.Errorf("host: %w", err)
	}
	h.nodes[id] = n
	h.pend()
	n.put(input{kind: inStart})
	return nil
}

// hosted is process id's node if this host hosts it, else nil.
func (h *Host) hosted(id proc.ID) *node {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.nodes[id]
}

func (h *Host) node(id proc.ID) (*node, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	n := h.nodes[id]
	if n == nil {
		return nil, fmt.Errorf("%w: %d", ErrUnknown, id)
	}
	return n, nil
}

// Call runs f on process id's goroutine, as its next input after those
// already in its mailbox: the application's calls (Request, Release) go
// through it. A call to a crashed process is an error; one that reaches a
// process after it crashed is dropped.
func (h *Host) Call(id proc.ID, f func(env proc.Env)) error {
	return h.CallAfter(id, -1, f)
}

// CallAfter runs f on process id's goroutine after d ticks (a negative d
// queues it at once).
func (h *Host) CallAfter(id proc.ID, d proc.Time, f func(env proc.Env)) error {
	n, err := h.node(id)
	if err != nil {
		return err
	}
	if n.isCrashed() {
		return fmt.Errorf("%w: %d", ErrCrashed, id)
	}
	in := input{kind: inCall, call: f}
	if d < 0 {
		h.pend()
		n.put(in)
	} else {
		n.arm(d, in)
	}
	return nil
}

// Crash crashes process id (fail-stop): between two inputs, EvCrash goes on
// the stream and the process handles nothing more; what reaches it later is
// dropped. Crash returns once the crash is on the stream. Crashing a
// crashed process does nothing.
func (h *Host) Crash(id proc.ID) error {
	n, err := h.node(id)
	if err != nil {
		return err
	}
	n.crashReq.Store(true)
	n.wake()
	select {
	case <-n.crashed:
		return nil
	case <-n.ended:
		select {
		case <-n.crashed:
			return nil
		default:
			return ErrClosed
		}
	}
}

// Crashed reports whether process id has crashed.
func (h *Host) Crashed(id proc.ID) bool {
	h.mu.Lock()
	n := h.nodes[id]
	h.mu.Unlock()
	return n != nil && n.isCrashed()
}

// Remove stops hosting process id: it is unregistered from the transport,
// its goroutine ends after its current input, and what is left in its
// mailbox is dropped. Its timers fire into nothing.
func (h *Host) Remove(id proc.ID) error {
	h.mu.Lock()
	n := h.nodes[id]
	switch {
	case h.closed:
		h.mu.Unlock()
		return ErrClosed
	case n == nil:
		h.mu.Unlock()
		return fmt.Errorf("%w: %d", ErrUnknown, id)
	}
	delete(h.nodes, id)
	h.mu.Unlock()
	err := h.cfg.Transport.Unregister(id)
	close(n.stop)
	n.finish()
	h.mu.Lock()
	h.retired.add(n.stats())
	h.mu.Unlock()
	if err != nil && !errors.Is(err, transport.ErrClosed) {
		return fmt.Errorf("host: %w", err)
	}
	return nil
}

// Close stops every hosted process after its current input, stops the
// pending timers and unregisters the processes; once it returns no
// goroutine of the host is running. It does not close the transport. It is
// idempotent.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	close(h.done)
	nodes := slices.Collect(maps.Values(h.nodes))
	h.mu.Unlock()
	h.timers.Close()
	for _, n := range nodes {
		n.finish()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for id := range h.nodes {
		// A closed transport has forgotten everyone already.
		if err := h.cfg.Transport.Unregister(id); err != nil && !errors.Is(err, transport.ErrClosed) {
			return fmt.Errorf("host: %w", err)
		}
	}
	return nil
}

// Stats are the host's counts.
type Stats struct {
	Messages  int64            // messages sent
	ByKind    map[string]int64 // messages sent, by kind
	Delivered int64            // messages handled by a live receiver
	Inputs    int64            // inputs handled (starts, deliveries, timers, calls)
}

func (s *Stats) add(o Stats) {
	s.Messages += o.Messages
	s.Delivered += o.Delivered
	s.Inputs += o.Inputs
	for k, c := range o.ByKind {
		if s.ByKind == nil {
			s.ByKind = map[string]int64{}
		}
		s.ByKind[k] += c
	}
}

// Stats adds up the counts of every process the host has hosted. While
// processes run it is a snapshot (each count exact, the sum taken one
// process after another); once the host is closed it is final.
func (h *Host) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := Stats{ByKind: map[string]int64{}}
	s.add(h.retired)
	for _, n := range h.nodes {
		s.add(n.stats())
	}
	return s
}

// Pending counts the inputs of a closed world, so that its end can be
// detected exactly: every input is counted from the moment it is created
// (a process added, a message sent, a timer armed, a call queued) until it
// has been handled or dropped. Inputs are only created while another is
// handled, or by the world's owner, so once the owner has made its own
// calls, a count of zero is quiescence: nothing can happen any more. All
// the hosts of the world share one Pending, and every process they send to
// must be hosted by one of them. A message the transport drops (one in
// flight to a process removed meanwhile) is never counted down, so a world
// that removes processes is not judged quiescent.
type Pending struct {
	n     atomic.Int64
	once  sync.Once
	quiet chan struct{}
}

// NewPending returns a count of zero that has not been quiet yet.
func NewPending() *Pending { return &Pending{quiet: make(chan struct{})} }

// Add counts d more inputs. An owner that creates inputs from outside the
// world holds one count meanwhile, so the world cannot look quiet while it
// is being set up.
func (p *Pending) Add(d int64) { p.n.Add(d) }

// Done counts one input off.
func (p *Pending) Done() {
	if p.n.Add(-1) == 0 {
		p.once.Do(func() { close(p.quiet) })
	}
}

// Quiet is closed the first time the count falls to zero.
func (p *Pending) Quiet() <-chan struct{} { return p.quiet }
