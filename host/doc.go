// Package host runs allot's algorithms in real time: a long-lived host of
// some process ids, each with a mailbox, a goroutine, real timers and its
// proc.Env, whose messages travel over a transport.Transport. It runs the
// very same process code (proc.Process, proc.Allocator) as the simulator,
// which is what shows the contract is free of I/O: an algorithm cannot tell
// the two drivers apart.
//
//	        Host (some process ids; Add, Remove, Crash, Call over time)
//	                 │ one node per hosted process
//	   ┌─────────────┴───────────────────┐
//	   v                                 v
//	node p                            node q
//	mailbox (never blocks a sender)   mailbox <───────────────────────────┐
//	   │ one input at a time             │                                │
//	goroutine: Start | Deliver | Fire | Call (the application)            │
//	   │ proc.Env                                                         │ Handler
//	   ├─ Send(q, m) ──> transport.Transport (mem, or a network) ─────────┘
//	   ├─ After(d, t) ─> real timer ─> p's own mailbox (Fire)
//	   └─ Emit(e) ─────> stream lock ─> proc.Sink (check, metrics, trace) ─> Follow
//
// A process's state is only ever touched by its own goroutine, so the
// algorithm needs no locks. The goroutine runs only while the mailbox has
// inputs (one at a time: the next starts when an input comes to an empty
// mailbox), so a process waiting for nothing costs no goroutine: a service
// hosts thousands of idle processes at the cost of their state. Whatever the world does to a process arrives
// as an input in its mailbox: messages the transport delivers, timers it
// armed with Env.After, and the application's calls (Host.Call and
// Host.CallAfter run a function with the process's Env on its goroutine,
// which is how Allocator.Request and Release are made). The application
// follows the answers to its requests (enter, grant, permit, reject)
// through the Follow given to Host.Add. A host does not know where its
// application lives: in Run it is the cycle of package app, in a service
// it is a remote client's session.
//
// With Config.Direct, a message between two processes of the same host
// skips the transport and goes straight into the receiver's mailbox (a
// service's node does this: its transport would only hand the message to
// a goroutine of its own first). With Config.Inline, a message the
// transport delivers to an idle process is handled on the transport's
// goroutine (a node's link reader), which spares a goroutine started for
// it and its stack grown again; a busy process's inputs still queue, and
// are still handled one at a time and in order.
//
// Processes come and go: Add registers a process with the transport and
// starts it, Remove stops and unregisters it, Crash makes it fail-stop
// (between two inputs EvCrash goes on the stream; from then on it handles
// nothing, and what reaches it is dropped). Close stops them all.
//
// # Events
//
// Events go to the Sink one at a time under a lock and are stamped with the
// real elapsed ticks under that lock, so times never decrease along the
// stream. Each process emits in program order, and emits an event before
// the messages it causes are sent (the application's exit before Release),
// so the total order is consistent with causality: the checkers of package
// check read a real-time stream exactly as they read a simulated one.
//
// # Errors
//
// A send the transport refuses (an unknown destination, a closed
// transport) and a panic inside a process are errors, not panics of the
// host: they go to Config.OnError and Err. A process that panicked handles
// nothing more; the others go on.
//
// # Run: a closed world
//
// Run is the convenient closed-world runner for tests and benchmarks: one
// Host holds every process of a run on the in-memory transport (FIFO or
// unordered links, per-message delays, crashes at given ticks), the
// application cycle of package app drives the users with a workload, and
// the run stops when RunConfig.Requests requests are answered, when nothing
// is left to happen (a Pending count, exact), or when the context is done.
//
// # How it differs from the simulator
//
//   - Interleaving is nondeterministic: the Go scheduler, timer latency and
//     the transport decide the order of inputs, so a seed fixes the drawn
//     durations and the algorithms' random sources but not the run. A run
//     cannot be replayed; the checkers judge each stream as it comes.
//   - Time is real: Now is elapsed ticks, delays and timers are at least
//     their duration and often later (Go timers are about a millisecond
//     late on an idle machine; see DefaultTick).
//   - There is no processing cost or speed factor: handling an input costs
//     what it really costs. Crashes happen between two inputs of the
//     crashed process, at or a little after their tick, and in the
//     order of their ticks (the schedule's among equal ones), however
//     late a loaded machine runs them.
//   - A Requests limit is reached while other processes keep working for an
//     instant, so Served may end slightly above it; there is no drain
//     window.
package host
