// Package proc is the contract between allot's algorithms and the drivers
// that run them (the simulator, the explorer, the real-time host).
//
// An algorithm is a pure, deterministic state machine. It never reads a
// clock, opens a socket, starts a goroutine or touches global randomness: it
// reacts to inputs and acts only through the Env it is handed.
//
//	         driver (sim | explore | host)
//	Start ──┐   Deliver ──┐   Fire ──┐   Request/Release ──┐
//	        v             v          v                     v
//	+-------------------- Process (algorithm) ---------------------+
//	|  state: forks, queues, counters ...   (no I/O, no time)      |
//	+---------------------------------------------------------------+
//	        |             |          |                     |
//	   env.Send      env.After   env.Rand()            env.Emit
//	   (message)     (timer)     (seeded)     (enter, grant, permit ...)
//
// Inputs:
//   - Start, once, before anything else;
//   - Deliver, a message from another process;
//   - Fire, a timer the process armed with Env.After;
//   - Request and Release, the application's calls (Allocator).
//
// Outputs go through Env: messages, timers and semantic events. Events are
// the one source of truth for checking and measuring: checkers and metrics
// read the event stream and never an algorithm's internals.
//
// # Who emits what
//
// The driver is the application: it emits Request/Acquire when it calls
// Allocator.Request, Exit/Release when it calls Allocator.Release, and Crash
// when it crashes a process. The algorithm emits what only it knows: Enter
// (exclusive), Grant (pool), Permit, Reject and Exhausted (quota).
//
// # Composition
//
// An algorithm may host another one as a subroutine (Rhee's modular
// algorithm runs any exclusion algorithm this way). The parent hands the
// subroutine a SubEnv: what the subroutine sends travels wrapped in a
// Wrapped message, the timers it arms come back as WrappedTimer, and the
// events it emits go to the parent's SubEvent instead of the application.
// The parent unwraps with Route. A Shift translates the subroutine's ids
// when the parent adds processes of its own among them, and Host runs a
// subroutine's helper process (a coordinator) as a process of the run. See
// ExampleSubEnv.
package proc

import "math/rand/v2"

// ID names a process. Processes of a run are numbered 0..n-1.
type ID int32

// None is the ID of no process.
const None ID = -1

// Time is simulated or real time in integer ticks.
type Time int64

// ResID names a resource: for a dining (conflict) graph, an edge id; for a
// dynamic workload, one of the resources 0..m-1.
type ResID int32

// Message is a plain value sent between processes: no pointers into another
// process's state, no funcs, no channels. A message is never mutated after it
// is sent. Kind names the message type for per-kind counts; it should return
// a constant.
type Message interface{ Kind() string }

// Timer is the value a process arms with Env.After and gets back in Fire.
// Like a message it is a plain value; an algorithm uses its own types.
type Timer any

// Env is everything a process may do. A driver hands a process an Env on
// every input; the process must not keep it past the call.
type Env interface {
	// Self is the id of the process being run.
	Self() ID
	// Now is the current time in ticks.
	Now() Time
	// Send sends m to process to. Channels are reliable; whether they are
	// FIFO is the driver's network model.
	Send(to ID, m Message)
	// After arms a timer that fires after d ticks of this process's local
	// time (a driver may scale it by the process's speed). There is no
	// cancellation: an algorithm ignores stale timers itself.
	After(d Time, t Timer)
	// Rand is this process's own seeded random source.
	Rand() *rand.Rand
	// Emit records a semantic event. The driver fills in Time and P.
	Emit(e Event)
}

// Process is an algorithm's state machine at one process.
type Process interface {
	Start(env Env)
	Deliver(env Env, from ID, m Message)
	Fire(env Env, t Timer)
}

// Durable is a process with state that outlives a crash (a Raft log and
// its hard state, written before the messages that depend on them leave).
// A driver that restarts a crashed process (a kill -9 followed by a new
// process on the same data) asks the crashed one for Restarted at the
// instant of the crash, discards it, and Starts the process returned when
// the restart comes: whatever the process kept only in memory — its
// volatile state, its armed timers, the messages it had not handled — is
// lost; what it persisted is all that remains.
//
// A process that is not Durable can only fail-stop.
type Durable interface {
	Process
	// Restarted returns a new process built only from what this one has
	// persisted so far. It must share no mutable memory with this one.
	Restarted() Process
}

// Request is an application's request.
//
//	exclusive: Res names the resources wanted, all at once;
//	pool:      one unit of the pool (Res is empty);
//	quota:     one permit (Res is empty).
type Request struct {
	Res []ResID
}

// Allocator is a process that serves its application. The driver calls
// Request only when the previous request has been answered and released,
// and Release only after the process has emitted Enter (exclusive) or Grant
// (pool). Quota permits are consumed, never released.
type Allocator interface {
	Process
	Request(env Env, r Request)
	Release(env Env)
}

// Queued is an Allocator that can tell, of its open request, whether it
// waits behind another user: known once the algorithm has placed the
// request (false until then, and between requests), behind when another
// user is ahead of it for some of its resources, so that it is granted
// only after that user moves on. It is an observation of the process's
// state, called on the process's goroutine between inputs, and changes
// nothing: a try that must not wait behind a holder asks it instead of
// guessing with a timer.
type Queued interface {
	Allocator
	Behind() (known, behind bool)
}
