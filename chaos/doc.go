// Package chaos runs a cluster of allot serve processes under faults and
// checks, from the nodes' event logs and the clients' histories alone,
// that nothing unsafe happened and that every client is served again once
// the faults stop.
//
//	seeded faults ─┬─ kill -9 ──────> client processes ──┐
//	               ├─ abandon ───────> client goroutines ─┤ each through proxies of its own
//	               ├─ cut, hold down > client proxies <───┘
//	               └─ cut, hold down > node proxies: node i ── proxy ──> node k
//
//	clients ── read-modify-write with their tokens ──> store
//	clients ──> histories    nodes ──> event logs
//	Check(histories, event logs, faults) ──> violations, stalls
//
// The run: Config.Nodes allot serve processes on loopback, each dialling
// every other through a Proxy of its own (allot serve --peer-addrs), so a
// node↔node link can be cut (every connection closed) or held down (new
// connections refused: a partition of one node). Clients are goroutines
// in groups, each group with its own connections (through proxies) to
// every node, and client processes (the test binary again, running
// RunClientProcess), each with its own proxies. Every client runs
// operations one at a time on overlapping sets of Resources (Lock), on
// two semaphores and on one quota, and records each invocation and
// outcome, with the tokens it got, in its history. While it holds a lock
// it does a read-modify-write of each resource on the Store, a register
// that refuses a token below the largest it has seen.
//
// The faults (Faults), drawn one at a time from Config.Seed with random
// gaps and durations, so a seed replays its schedule: kill -9 of a client
// process (a new one takes its place; the killed one's leases expire);
// a client goroutine that stops renewing its session while it holds a
// lock, pauses past its lease, then writes with its stale token (a GC
// pause); every connection of a node↔node link cut; every link of one
// node held down for 0.2–2s; one client group's connections to one node
// held down for 0.1–1.5s; kill -9 of a node process, restarted after
// 0.2–2s (Faults.NodeKill). Faults.LongPartition, off by default, holds a
// node's links down well past the nodes' --suspect, so that it is surely
// taken for dead; the default partitions outlast --suspect (1s) now and
// then anyway.
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
//     permits acknowledged;
//   - every client alive after the faults stop completes an operation
//     within Config.Bound;
//   - the nodes' event logs pass service.Verify (exclusion, the pool, the
//     quota's budget and waste, token order, every request answered).
//
// It also measures the stall after each fault: from the fault's end until
// every client it touched has completed an operation again (a client cut
// off touches its own group; every other fault touches every client), and
// the same figure from fault-free instants of the calm phase, which is
// what contention alone costs. Faults follow each other closely, so a
// stall may include the next fault's.
//
// go test ./chaos runs one minute (TestChaos); go test ./chaos -run Soak
// -soak 10m -timeout 20m runs as long as asked (a test flag, not a
// subcommand: the harness needs the test binary as its client process).
// Every run logs its seed, and a failing one the flag that replays its
// fault schedule (-seed); -faults picks the kinds, -every the mean gap,
// -suspect the nodes' --suspect, -nodekill=false leaves out node crashes, -dir keeps
// the logs, histories and fault schedule.
package chaos
