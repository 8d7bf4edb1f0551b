package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"allot/algo"
	"allot/dist"
	"allot/proc"
)

// DefaultTick is the real duration of a tick when none is configured. Go's
// timers on an idle Linux machine fire about a millisecond late at best, so
// shorter ticks compress the schedule rather than sharpen it.
const DefaultTick = time.Millisecond

// Config is one real-time run. Durations are in ticks, as in the simulator;
// Tick says how long a tick really is.
type Config struct {
	Tick time.Duration // real duration of one tick (0: DefaultTick)
	Seed uint64        // seeds the processes' and the users' random sources

	// Transport carries the messages; Run registers every process with it
	// and closes it on return. Nil: an in-memory transport (NewMem) with
	// Delay, Tick and Seed.
	Transport Transport
	Delay     dist.Dist // per-message delay of the default transport

	Think dist.Dist // between a user's exit and its next request
	CS    dist.Dist // time in the critical section (pool: holding a unit)

	// Requests stops the run once this many requests have been answered (0:
	// no limit). Processes still handling an input finish it, so Served may
	// end a little above Requests.
	Requests int
	// PerUser caps the requests each user makes (0: no cap). With a cap a
	// fault-free run ends quiescent and every request must be answered.
	PerUser int
	// Next returns user u's next request (nil: the user's whole MaxSet for
	// exclusive problems, an empty request otherwise). It is called on u's
	// goroutine, for different users concurrently, with u's own source.
	Next func(u proc.ID, rnd *rand.Rand) proc.Request
	// Sink receives the events, one at a time, in a total order.
	Sink proc.Sink
	// TraceMessages adds EvSend and EvDeliver events to the stream.
	TraceMessages bool
}

// Stop says why a run ended.
type Stop uint8

const (
	StopRequests  Stop = iota + 1 // Config.Requests answered
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
	Open      int           // users waiting for an answer at the end
	Quiescent bool          // the run ended because nothing was left to do
	// Deadlock: quiescent with open requests.
	Deadlock  bool
	Messages  int64            // messages sent
	ByKind    map[string]int64 // messages sent, by kind
	Delivered int64            // messages handled by their receiver
	Inputs    int64            // inputs handled (starts, deliveries, timers, calls)
}

// Run runs procs (users first, as algo.Algorithm.Build returns them) on
// problem pb in real time, one goroutine per process, until cfg.Requests
// requests are answered, nothing is left to happen, or ctx is done. It
// returns once every goroutine it started has ended. A panic inside an
// algorithm stops the run and is returned as an error; a cancelled context
// is a normal stop (Result.Stop says so).
func Run(ctx context.Context, cfg Config, pb *algo.Problem, procs []proc.Process) (Result, error) {
	if cfg.Tick < 0 {
		return Result{}, fmt.Errorf("runtime: negative tick %v", cfg.Tick)
	}
	if cfg.Tick == 0 {
		cfg.Tick = DefaultTick
	}
	if cfg.Requests < 0 || cfg.PerUser < 0 {
		return Result{}, fmt.Errorf("runtime: negative request limit")
	}
	if len(procs) < pb.Users {
		return Result{}, fmt.Errorf("runtime: %d processes for %d users", len(procs), pb.Users)
	}
	tr := cfg.Transport
	if tr == nil {
		tr = NewMem(MemConfig{Delay: cfg.Delay, Tick: cfg.Tick, Seed: cfg.Seed})
	}
	r := &run{
		cfg:     cfg,
		pb:      pb,
		tr:      tr,
		timers:  newTimers(),
		stopped: make(chan struct{}),
		nodes:   make([]*node, len(procs)),
	}
	for i, p := range procs {
		n := &node{r: r, id: proc.ID(i), p: p, signal: make(chan struct{}, 1)}
		if i < pb.Users {
			a, ok := p.(proc.Allocator)
			if !ok {
				tr.Close()
				return Result{}, fmt.Errorf("runtime: user %d (%T) is not a proc.Allocator", i, p)
			}
			n.a = a
			n.wrnd = rand.New(rand.NewPCG(cfg.Seed, uint64(i)<<1|1))
		}
		n.rnd = rand.New(rand.NewPCG(cfg.Seed, uint64(i)<<1))
		r.nodes[i] = n
		if err := tr.Register(n.id, n.deliver); err != nil {
			tr.Close()
			return Result{}, fmt.Errorf("runtime: %w", err)
		}
	}
	r.start = time.Now()
	// Every input is counted from the moment it is created (a Start, a
	// send, an armed timer, a scheduled wake-up) until its process has
	// handled it. Inputs are only created while handling another one, so
	// the count reaches zero exactly when nothing can happen any more.
	r.pending.Add(int64(len(r.nodes)))
	for _, n := range r.nodes {
		n.put(input{kind: inStart})
	}
	for _, n := range r.nodes[:pb.Users] {
		n.schedule(cfg.Think.Draw(n.wrnd))
	}
	r.wg.Add(len(r.nodes))
	for _, n := range r.nodes {
		go n.loop()
	}
	select {
	case <-ctx.Done():
		r.halt(StopContext, nil)
	case <-r.stopped:
	}
	// The processes leave after the input they are handling; the timers and
	// the transport stop and wait for their callbacks. Nothing runs after.
	r.timers.close()
	tr.Close()
	r.wg.Wait()
	return r.result(), r.err
}

// run is one real-time run in progress.
type run struct {
	cfg    Config
	pb     *algo.Problem
	tr     Transport
	timers *timers
	nodes  []*node
	start  time.Time
	wg     sync.WaitGroup

	pending atomic.Int64 // inputs created and not yet handled
	served  atomic.Int64

	sinkMu sync.Mutex // serialises the event stream

	once    sync.Once
	stopped chan struct{}
	stop    Stop
	err     error
	end     time.Time
}

// halt stops the run; the first reason wins.
func (r *run) halt(why Stop, err error) {
	r.once.Do(func() {
		r.stop, r.err, r.end = why, err, time.Now()
		close(r.stopped)
	})
}

func (r *run) halted() bool {
	select {
	case <-r.stopped:
		return true
	default:
		return false
	}
}

// now is the elapsed time in ticks.
func (r *run) now() proc.Time { return proc.Time(time.Since(r.start) / r.cfg.Tick) }

// emit stamps e and hands it to the sink. Stamping under the lock keeps
// times non-decreasing along the stream; emitting in program order on each
// process, and before the sends an event causes, keeps the stream
// consistent with causality.
func (r *run) emit(e proc.Event) {
	if r.cfg.Sink == nil {
		return
	}
	r.sinkMu.Lock()
	e.Time = r.now()
	r.cfg.Sink.Event(e)
	r.sinkMu.Unlock()
}

// done marks one input handled.
func (r *run) done() {
	if r.pending.Add(-1) == 0 {
		r.halt(StopQuiescent, nil)
	}
}

func (r *run) result() Result {
	res := Result{
		Stop:      r.stop,
		Elapsed:   r.end.Sub(r.start),
		Served:    int(r.served.Load()),
		Quiescent: r.stop == StopQuiescent,
		ByKind:    map[string]int64{},
	}
	res.End = proc.Time(res.Elapsed / r.cfg.Tick)
	for _, n := range r.nodes {
		res.Requests += n.made
		res.Delivered += n.delivered
		res.Inputs += n.inputs
		for i, k := range n.kinds {
			res.ByKind[k] += n.count[i]
			res.Messages += n.count[i]
		}
		if n.a != nil && n.phase == waiting {
			res.Open++
		}
	}
	res.Deadlock = res.Quiescent && res.Open > 0
	return res
}
