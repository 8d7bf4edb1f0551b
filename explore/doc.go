// Package explore is allot's third driver: it checks every interleaving of
// a tiny instance. It runs the algorithms' own process code (the catalogue,
// algo/all), the application cycle of package app, and the event checkers
// of package check — no model of either — and searches breadth-first from
// the initial state, so the first violation it meets has a shortest path.
//
//	            initial state (every process started, every user's first wake-up pending)
//	                  │  choose one enabled input:
//	 wake-up of a user (request or exit) │ a message in flight │ an armed timer │ a crash
//	                  v
//	copy the moving process (deep), run the input through proc.Env / app.Cycle,
//	feed the events to the path's checkers, fingerprint the successor:
//	seen ──> a transition to a known state; new ──> the next BFS level
//
// # The state and its fingerprint
//
// A global state is every process's state, its random source, the users'
// cycles (app.User), the pending wake-ups, the messages in flight (a
// multiset on unordered channels; on FIFO channels each message with its
// place on its link), the armed timers (a multiset) and the crashed
// processes. The search keeps one 64-bit fingerprint per state, not the
// state: a deterministic deep hash of each process's Go value (a reflection
// walk through structs, slices, pointers and hosted subroutines; maps are
// hashed as sets of pairs, so their iteration order does not matter) and
// order-independent sums over the multisets. Memory the processes share
// (the problem, the graph, an algorithm's parameters) is read-only by the
// contract and left out. Only one BFS level of whole states is alive at a
// time; a successor shares every process that did not move with its parent
// and gets a deep copy of the one that moves. (DESIGN.md's explorer replays
// schedules from the initial state; copying the one moving process is
// cheaper than replaying a path per state, and only counterexamples are
// replayed.)
// Two distinct states collide with probability about n²/2⁶⁵ for n states
// (below 10⁻⁸ for a million). A collision can hide states; it cannot
// forge a violation: a counterexample is replayed from the initial state
// and must show the violation again, or the search fails with an error.
//
// # Time, timers and randomness
//
// There is no clock. A wake-up, a message and a timer are each enabled at
// every step from the moment they exist: think times, critical-section
// times and message delays are choices, so every order of the inputs is
// explored. A timer armed with Env.After(d, t) may fire at any step after
// it is armed, before or after anything else — the weakest assumption, so
// a safety property proved here holds whatever the durations and speeds.
// Env.Now is the number of steps taken (the trace's tick). A process that
// reads it may act on it, so once one does the search starts again with the
// step count in every fingerprint: equal states at different times are
// then never merged (sound, at the price of a state space that grows with
// depth and has no cycles). Of the catalogue, bidding, priority-bidding
// and broadcast-pool arm timers (broadcast-pool's retries back off for a
// random time and count attempts, so it too is explored to a depth bound),
// and only priority-bidding's granters read Now (to expire a winner's
// flag). For bidding:
//
//   - their exclusion is explored under every timing (the literal bidding
//     timeout, bidding/literal-timeout, breaks it in 12 steps);
//   - their progress is a probabilistic, timed claim (Reif and Spirakis:
//     a user wins a round with probability 1/(βkv) when rounds are long
//     enough against r_max/r_min) that an untimed search can neither prove
//     nor refute: with timers firing at any time, a round may end before
//     anyone answers, for ever;
//   - each user round increments a counter, so the state space is infinite:
//     they are explored to a depth bound (MaxDepth), and the verdict is "no
//     violation and no deadlock on any path of at most that many steps".
//
// Every other catalogue algorithm arms no timer and its exploration is
// complete: the verdict covers every execution of the instance.
//
// Processes draw from Env.Rand and users from their own stream, seeded
// exactly as the simulator seeds them (Config.Seed): on a given path the
// draws are determined, and the exploration covers every interleaving for
// that seed's draws, not every outcome of the draws. Explore several seeds
// to cover more (none of the exhaustively explored algorithms draws).
//
// # Properties
//
//   - Safety, on every transition: the problem's checker from package check
//     (Exclusion, Pool or Quota, the latter's end condition at states with
//     nothing left to do) fed by the path's events; an algorithm's own
//     assertion (a panic) is a violation too.
//   - Deadlock: a state with no enabled input while a live user waits.
//   - Every request answered on every fair path: each user makes at most
//     Config.Requests requests, so every infinite run ends in a cycle of the
//     state graph. A request stays open for ever on a weakly fair run exactly
//     when a cyclic component in which the user waits throughout takes, on
//     its own transitions, every input enabled in all of its states (see
//     liveness.go). The counterexample is then a lasso: a shortest path to
//     the component and a fair loop through it.
//   - Failure locality, with Config.Crash: each listed process may crash at
//     any step (or never). Where the run can go no further, or on a fair
//     cycle, the live users left waiting are starved; check.Locality,
//     fed by the path's events, measures their distance from the crashed
//     processes, which must not exceed Config.Locality (threshold: 2).
//
// Bounds: MaxDepth (path length), MaxStates, Timeout. Result.Complete says
// whether every reachable state was expanded; Result.Cut names the bound
// that stopped the search otherwise.
//
// There is no partial-order or symmetry reduction: every interleaving is
// expanded (only equal messages in flight, whose deliveries lead to the
// same state, are tried once). The instances are tiny on purpose.
//
// # Counterexamples
//
// A violation is replayed from the initial state along its path to give
// the events (the trace package's JSONL), a step list, and a replay in the
// simulator: step k happens at tick k when each message's delay, think
// time and critical-section time is scripted (dist's seq:...) and crashes
// are set at their step. For a path without timers the simulator then
// produces the very same events at the same ticks; a path with timers is
// not reproduced exactly (the simulator fires a timer when it is due).
//
// # Timed search
//
// RunTimed (timed.go) is a second search, for processes that keep time (a
// control plane: Raft ticks, leases), where letting any timer fire at any
// step would break every timing assumption on purpose: it keeps a clock,
// delivers a message within its delay window and fires a timer when it is
// due, takes every order of inputs the timing allows, lets listed
// processes crash and restart from what they persisted (proc.Durable) at
// any step, and rebuilds every state by replaying its path from the
// initial state (processes built on engines with funcs bound to their own
// state cannot be deep-copied).
package explore
