// Package chaos runs a cluster of allot serve processes under faults and
// checks, from the nodes' event logs and the clients' histories alone,
// that nothing unsafe happened and that every client is served again once
// the faults stop.
//
//	seeded faults ─┬─ kill -9 ──────> client processes ──┐
//	               ├─ abandon ───────> client goroutines ─┤ each through proxies of its own
//	               ├─ cut, hold down > client proxies <───┘
//	               ├─ cut, hold down > node proxies: node i ── proxy ──> node k
//	               ├─ kill -9, SIGSTOP bursts > node processes
//	               └─ CPU hogs ──────> the machine
//
//	clients ── read-modify-write with their tokens ──> store
//	clients ──> histories    nodes ──> event logs
//	Check(histories, event logs, faults) ──> violations, stalls
//
// The run: Config.Nodes allot serve processes on loopback, each dialling
// every other through a Proxy of its own (allot serve --peer-addrs), so a
// node↔node link can be cut (every connection closed), held down (new
// connections refused: a partition of one node) or held silent (every
// connection open, nothing forwarded, one way or both). When allot serve
// takes --data-dir (its --help says), every node has one of its own under
// Config.Dir that outlives its restarts; the harness tests the service as
// a black box, so it runs against a service that keeps no data too. Clients
// are goroutines in groups, each group with its own connections (through
// proxies) to every node, on sessions of Config.TTL (2s), and client
// processes (the test binary again, running RunClientProcess), each with
// its own proxies, on sessions of the client's default TTL (10s). Every
// client runs operations one at a time on overlapping sets of Resources
// (Lock), on two semaphores and on one quota, and records each invocation
// and outcome, with the tokens it got, in its history. While it holds a
// lock it does a read-modify-write of each resource on the Store, a
// register that refuses a token below the largest it has seen.
//
// The faults (Faults), drawn from Config.Seed with random gaps and
// durations, one at a time, in rounds that hold every kind once in a
// seeded order, so a seed replays its schedule and a run of two minutes
// sees every kind:
//
//   - client-kill: kill -9 of a client process (a new one takes its
//     place; the killed one's leases expire);
//   - abandon: a client goroutine stops renewing its session while it
//     holds a lock, pauses past its lease, then writes with its stale
//     token (a GC pause);
//   - link-cut: every connection of a node↔node link closed;
//   - partition: every link of one node held down for 0.2–2s;
//   - client-cut: one client group's connections to one node held down
//     for 0.1–1.5s;
//   - node-kill: kill -9 of a node process, restarted after 0.2–2s;
//   - drop: a node↔node link silent both ways for 0.5–4s, its
//     connections open; then it flows on, or (half the drops) the
//     connections are reset on one side and left open and silent on the
//     other, a reset seen by one side only;
//   - drop-oneway: the same, one way: A's bytes to B held, B's to A
//     flowing;
//   - bridge: a non-transitive partition: the link A–B silent both ways
//     for 0.5–4s while both reach every other node;
//   - pause: SIGSTOP of a node process for 1s–Config.MaxPause (30s;
//     log-uniform), then SIGCONT;
//   - fast-restart: kill -9 of a node process, back on its data dir
//     10–60ms later, before anyone can suspect it;
//   - kill-two, kill-all: kill -9 of two nodes or of every node at once,
//     back together on their data dirs after 0.2–2s;
//   - busy: Config.Hogs (4) processes spinning on the CPU beside the
//     nodes and the clients for 1–5s, a loaded machine (killed at the
//     fault's end; each also ends by itself a second later);
//   - stutter: a node process stopped and let go (SIGSTOP, SIGCONT) over
//     and over for 1–5s, stops of 10–90ms with runs of 5–50ms between:
//     a node starved of the CPU in bursts shorter than any timeout;
//   - long-partition (off by default): every link of one node held down
//     well past the nodes' --suspect.
//
// A node that is not ready again after its restart ends the faults and
// fails the run (Fault.Err): the service's failure, not the harness's.
//
// The checker (Check) reads only the histories, the nodes' event logs and
// the fault schedule as it happened:
//
//   - exclusion: per resource (and per semaphore unit), the intervals in
//     which clients held it — from the answer of the grant to the
//     invocation of its release, cut short at the moment the client may
//     have lost it (its session's Done, its abandonment, its kill) — never
//     overlap. A grant answered after its session's Done is not held.
//     Overlap after a holder lost its lease is the lease-expiry window,
//     where only the token protects the resource;
//   - tokens per resource strictly increase along those intervals;
//   - the store loses no acknowledged write: no two acknowledged writes
//     wrote the same version of a key;
//   - at most R holders of a semaphore of R units at once, at most M quota
//     permits acknowledged over the whole run, across restarts of every
//     node (the budget is the cluster's for its whole life);
//   - every client alive after the faults stop completes an operation
//     within Config.Bound;
//   - a client that keeps its session alive is never told it expired: an
//     answer ErrSessionExpired less than the session's TTL after the
//     sending of its last keep-alive answered (the history records both)
//     is a violation, unless the faults meanwhile made two nodes or more
//     unreachable (its node and its backup may have been lost together:
//     the histories cannot tell which nodes those are). A Done closed as
//     soon is counted apart: the client's own deadline, its node's lease
//     when no node answered;
//   - the nodes' event logs pass verify.Logs (package service/verify:
//     exclusion, the pool, the quota's budget and waste, token order,
//     every request answered but those still waiting in an instance a
//     node closed at its shutdown, which are reported apart).
//
// It also measures the stall after each fault: from the fault's end until
// every client it touched has completed an operation again (a client cut
// off touches its own group; every other fault touches every client), and
// the same figure from fault-free instants of the calm phase, which is
// what contention alone costs. Faults follow each other closely, so a
// stall may include the next fault's. And within each fault that lasts,
// the longest time in which no client at all completed an operation: 0
// when the rest of the cluster served on, the fault's length when it
// stopped.
//
// go test ./chaos runs two minutes (TestChaos: a round of every kind of
// fault takes about a minute with the default --suspect of 3s, more on a
// loaded machine, for a node killed is ready again one to four leases
// after its restart); go test ./chaos -run Soak -soak 10m -timeout 20m
// runs as long as asked (a test flag, not a
// subcommand: the harness needs the test binary as its client process).
// Every run logs its seed, and a failing one the flag that replays its
// fault schedule (-seed); -faults picks the kinds (all: every one),
// -allot a binary to test instead of the module's, -every the mean gap,
// -suspect the nodes' --suspect (default the service's), -hogs the CPU
// hogs of a busy fault, -maxpause the longest SIGSTOP,
// -procttl the client processes' TTL, -nodekill=false leaves out node
// crashes, -dir keeps the logs, histories and fault schedule.
//
// Against an allot serve without --data-dir (the view protocol before
// the Raft control plane), TestChaos and TestSoak inject by default only
// the faults that service was built for (LegacyFaults), on sessions of
// Config.TTL alone: it fails the others (docs/failures.md says how, with
// seeds), and -faults all injects them.
package chaos
