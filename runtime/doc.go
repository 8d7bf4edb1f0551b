// Package runtime runs allot's algorithms in real time: one goroutine per
// hosted process, real timers, and a Transport that carries the messages.
// It runs the very same process code (proc.Process, proc.Allocator) as the
// simulator, which is what shows the contract is free of I/O: an algorithm
// cannot tell the two drivers apart.
//
//	              Run(ctx, Config, problem, processes)
//	                           │ one node per process
//	       ┌───────────────────┴────────────────────┐
//	       v                                        v
//	node p                                   node q
//	mailbox (a queue, never blocks)          mailbox <───────────────┐
//	   │ one input at a time                    │                    │
//	goroutine: Start | Deliver | Fire |      goroutine ...           │
//	           wake (Request, Release)                               │
//	   │ proc.Env                                                    │ Handler
//	   ├─ Send(q, m) ──> Transport (Mem: each message its own delay) ┘
//	   ├─ After(d, t) ─> real timer ─> p's own mailbox (Fire; the workload's wakes too)
//	   └─ Emit(e) ─────> sink mutex ─> proc.Sink (check, metrics, trace)
//
// Each process has a mailbox (a queue that never blocks the sender) and a
// goroutine that takes its inputs one at a time, so a process's state is
// only ever touched by its own goroutine and the algorithm needs no locks.
// The node is the process's proc.Env. Timers armed with Env.After, the
// workload's wake-ups and delivered messages all arrive as inputs in the
// mailbox; the application's calls (Allocator.Request and Release) are made
// on the process's own goroutine, like any other input.
//
// The workload cycle is the simulator's (sim.Sim): after a think time a
// user requests (the driver emits request), the algorithm emits enter, the
// user stays in its critical section for a drawn time, then the driver emits
// exit and calls Release. Durations are ticks; Config.Tick says how long a
// tick really is.
//
// # Events
//
// Events go to the Sink one at a time under a mutex and are stamped with the
// real elapsed ticks under that mutex, so times never decrease along the
// stream. Each process emits in program order, and emits an event before
// the messages it causes are sent (exit before Release), so the total order
// is consistent with causality: the checkers of package check read a
// real-time stream exactly as they read a simulated one.
//
// # Transports
//
// Transport is deliberately small: Register a Handler for a process id,
// Send(from, to, m), Close. Mem, the in-memory transport, delays each
// message by its own drawn delay (channels are unordered, as in the
// simulator's default network). A network transport (gRPC) is meant to be
// added beside it and must pass the same contract suite, package
// transporttest, as Mem does.
//
// # Stopping
//
// A run stops when Config.Requests requests are answered, when nothing is
// left to happen, or when the context is done; then the process goroutines
// leave after their current input, pending timers are stopped and the
// transport is closed, and Run returns only once every goroutine it started
// has ended. "Nothing left to happen" is detected exactly: every input is
// counted from its creation (a send, an armed timer, a scheduled wake-up)
// until it has been handled, and inputs are only created while another is
// handled, so a zero count is quiescence. Quiescence with open requests is
// a deadlock, reported as in the simulator. This needs every process of the
// run hosted by the one Run, which is the case with Mem.
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
//   - There is no processing cost, speed factor, crash or FIFO network
//     model: handling an input costs what it really costs, and the in-memory
//     transport is unordered only.
//   - A Requests limit is reached while other processes keep working for an
//     instant, so Served may end slightly above it.
package runtime
