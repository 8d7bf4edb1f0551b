package host

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/internal/timers"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport"
	"github.com/allot-dev/allot/transport/mem"
)

// Crash is a fail-stop crash of process P at tick At of a run.
type Crash struct {
	P  proc.ID
	At proc.Time
}

// Network is the network model of a run on the in-memory transport, as in
// the simulator: each message's delay, FIFO or unordered links, and
// crashes.
type Network struct {
	Delay   dist.Dist // per-message delay (in-memory transport only)
	FIFO    bool      // no overtaking on a link (in-memory transport only)
	Crashes []Crash
}

// RunConfig is one closed-world run in real time: the network model, the
// application's workload, and when to stop. Durations are in ticks, as in
// the simulator; Tick says how long a tick really is.
type RunConfig struct {
	Tick time.Duration // real duration of one tick (0: DefaultTick)
	Seed uint64        // seeds the processes', the users' and the delays' random sources
	Net  Network
	// Transport carries the messages; Run closes it on return. Nil: an
	// in-memory transport with Net.Delay and Net.FIFO, which must be zero
	// when a transport is given.
	Transport transport.Transport
	Work      app.Workload
	// Requests stops the run once this many requests have been answered (0:
	// no limit). Processes still handling an input finish it, so Served may
	// end a little above Requests.
	Requests int
	// Sink receives the events, one at a time, in an order consistent with
	// causality.
	Sink proc.Sink
	// TraceMessages adds EvSend and EvDeliver events to the stream.
	TraceMessages bool
}

// Stop says why a run ended.
type Stop uint8

const (
	StopRequests  Stop = iota + 1 // RunConfig.Requests answered
	StopQuiescent                 // nothing left to happen
	StopContext                   // the context was cancelled or its deadline passed
	StopError                     // a process panicked or a send failed
)

func (s Stop) String() string {
	switch s {
	case StopRequests:
		return "requests"
	case StopQuiescent:
		return "quiescent"
	case StopContext:
		return "context"
	case StopError:
		return "error"
	}
	return fmt.Sprintf("stop(%d)", uint8(s))
}

// Result is what the driver itself saw; safety and fairness are the
// checkers' business.
type Result struct {
	Stop      Stop
	End       proc.Time     // elapsed ticks when the run stopped
	Elapsed   time.Duration // elapsed real time
	Requests  int           // requests made
	Served    int           // requests answered (enter, grant, permit or reject)
	Open      int           // live users waiting for an answer at the end
	Quiescent bool          // the run ended because nothing was left to do
	// Deadlock: quiescent with open requests at live users.
	Deadlock  bool
	Messages  int64            // messages sent
	ByKind    map[string]int64 // messages sent, by kind
	Delivered int64            // messages handled by a live receiver
	Inputs    int64            // inputs handled (starts, deliveries, timers, calls)
}

// Run runs procs (users first, as algo.Algorithm.Build returns them) on
// problem pb in real time on one Host, with the application cycle of
// package app driving the users, until cfg.Requests requests are answered,
// nothing is left to happen, or ctx is done. It returns once every
// goroutine it started has ended. A panic inside an algorithm or a send the
// transport refuses stops the run and is returned as an error; a cancelled
// context is a normal stop (Result.Stop says so).
//
// "Nothing left to happen" is detected exactly with a Pending count shared
// by the host (every message, timer, wake-up and call is counted from its
// creation until it is handled or dropped); a scheduled crash counts too,
// so a run does not end quiet before its crashes. Quiescence with open
// requests at live users is a deadlock, reported as in the simulator.
func Run(ctx context.Context, cfg RunConfig, pb *algo.Problem, procs []proc.Process) (Result, error) {
	// A scripted distribution starts over in every run.
	cfg.Net.Delay, cfg.Work.Think, cfg.Work.CS = cfg.Net.Delay.Fresh(), cfg.Work.Think.Fresh(), cfg.Work.CS.Fresh()
	tr, err := cfg.transport(pb, procs)
	if err != nil {
		return Result{}, err
	}
	defer tr.Close()
	r := &runner{cfg: cfg, pb: pb, pending: NewPending(), stopped: make(chan struct{}), users: make([]proc.Allocator, pb.Users)}
	r.h, err = New(Config{
		Transport: tr, Tick: cfg.Tick, Seed: cfg.Seed, Sink: cfg.Sink, TraceMessages: cfg.TraceMessages,
		Pending: r.pending, OnError: func(err error) { r.halt(StopError, err) },
	})
	if err != nil {
		return Result{}, err
	}
	r.app = app.New(pb, cfg.Work, cfg.Seed)
	crashes := timers.New()
	// Hold the count while setting up, so the world cannot look quiet
	// before every process and user has been given its first input.
	r.pending.Add(1)
	for i, p := range procs {
		id := proc.ID(i)
		var follow Follow
		if i < pb.Users {
			r.users[i] = p.(proc.Allocator) // checked by transport()
			follow = func(env proc.Env, e proc.Event) { r.answer(env, id, e) }
		}
		if err := r.h.Add(id, p, follow); err != nil {
			r.halt(StopError, err)
			break
		}
	}
	for u := range r.users {
		r.h.Call(proc.ID(u), func(proc.Env) { r.app.Begin(r, proc.ID(u)) })
	}
	// The crashes happen in the order of their ticks (the schedule's
	// order among equal ones): each is armed once the one before is on
	// the stream. Armed all at once, two callbacks overdue on a loaded
	// machine ran in either order.
	order := slices.Clone(cfg.Net.Crashes)
	slices.SortStableFunc(order, func(a, b Crash) int { return cmp.Compare(a.At, b.At) })
	start := time.Now()
	var arm func(i int)
	arm = func(i int) {
		if i == len(order) {
			return
		}
		c := order[i]
		r.pending.Add(1)
		if !crashes.After(time.Until(start.Add(time.Duration(c.At)*r.h.Tick())), func() {
			defer r.pending.Done()
			if err := r.h.Crash(c.P); err != nil && !errors.Is(err, ErrClosed) {
				r.halt(StopError, err)
				return
			}
			arm(i + 1)
		}) {
			r.pending.Done()
		}
	}
	arm(0)
	r.pending.Done()
	select {
	case <-ctx.Done():
		r.halt(StopContext, nil)
	case <-r.pending.Quiet():
		r.halt(StopQuiescent, nil)
	case <-r.stopped:
	}
	// The processes leave after the input they are handling; the timers
	// stop and wait for their callbacks. Nothing runs after.
	crashes.Close()
	r.h.Close()
	tr.Close()
	return r.result(), r.err
}

// transport checks the configuration and returns the run's transport.
func (cfg *RunConfig) transport(pb *algo.Problem, procs []proc.Process) (transport.Transport, error) {
	switch {
	case cfg.Tick < 0:
		return nil, fmt.Errorf("host: negative tick %v", cfg.Tick)
	case cfg.Requests < 0 || cfg.Work.PerUser < 0:
		return nil, fmt.Errorf("host: negative request limit")
	case len(procs) < pb.Users:
		return nil, fmt.Errorf("host: %d processes for %d users", len(procs), pb.Users)
	case cfg.Transport != nil && (cfg.Net.Delay != dist.Dist{} || cfg.Net.FIFO):
		return nil, fmt.Errorf("host: Net.Delay and Net.FIFO configure the in-memory transport; a given transport has its own")
	}
	for u := 0; u < pb.Users; u++ {
		if _, ok := procs[u].(proc.Allocator); !ok {
			return nil, fmt.Errorf("host: user %d (%T) does not take requests", u, procs[u])
		}
	}
	for _, c := range cfg.Net.Crashes {
		if c.P < 0 || int(c.P) >= len(procs) || c.At < 0 {
			return nil, fmt.Errorf("host: crash %d@%d: no such process or tick", c.P, c.At)
		}
	}
	tr := cfg.Transport
	if tr == nil {
		tick := cfg.Tick
		if tick == 0 {
			tick = DefaultTick
		}
		tr = mem.New(mem.Config{Delay: cfg.Net.Delay, FIFO: cfg.Net.FIFO, Tick: tick, Seed: cfg.Seed})
	}
	if pb.FIFO && !tr.Ordered() {
		tr.Close()
		return nil, fmt.Errorf("host: the problem assumes FIFO links and the transport is unordered")
	}
	return tr, nil
}

// runner is one run in progress; it is the application's app.Driver.
type runner struct {
	cfg     RunConfig
	pb      *algo.Problem
	h       *Host
	app     *app.Cycle
	users   []proc.Allocator
	pending *Pending
	served  atomic.Int64

	once    sync.Once
	stopped chan struct{}
	stop    Stop
	err     error
	end     proc.Time
	elapsed time.Duration
}

// halt stops the run; the first reason wins.
func (r *runner) halt(why Stop, err error) {
	r.once.Do(func() {
		r.stop, r.err = why, err
		r.elapsed = time.Since(r.h.epoch)
		r.end = proc.Time(r.elapsed / r.h.Tick())
		close(r.stopped)
	})
}

func (r *runner) halted() bool {
	select {
	case <-r.stopped:
		return true
	default:
		return false
	}
}

// Observe implements app.Driver.
func (r *runner) Observe(e proc.Event) { r.h.Record(e) }

// Schedule implements app.Driver: the wake-up is an input of the user's own
// process, so the cycle's state of user u is only touched on u's goroutine.
func (r *runner) Schedule(u proc.ID, d proc.Time) {
	r.h.CallAfter(u, d, func(env proc.Env) {
		r.app.Wake(r, env, r.users[u], u, env.Now(), !r.halted())
	})
}

// answer follows an event user u's process emitted.
func (r *runner) answer(env proc.Env, u proc.ID, e proc.Event) {
	if _, ok := r.app.Answer(r, u, e, e.Time); !ok {
		return
	}
	if s := r.served.Add(1); r.cfg.Requests > 0 && s >= int64(r.cfg.Requests) {
		r.halt(StopRequests, nil)
	}
}

func (r *runner) result() Result {
	st := r.h.Stats()
	res := Result{
		Stop:      r.stop,
		End:       r.end,
		Elapsed:   r.elapsed,
		Quiescent: r.stop == StopQuiescent,
		Messages:  st.Messages,
		ByKind:    st.ByKind,
		Delivered: st.Delivered,
		Inputs:    st.Inputs,
	}
	res.Requests, res.Served = r.app.Totals()
	for u := range r.app.Users {
		if r.app.Users[u].Phase == app.Waiting && !r.h.Crashed(proc.ID(u)) {
			res.Open++
		}
	}
	res.Deadlock = res.Quiescent && res.Open > 0
	return res
}
