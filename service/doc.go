// Package service is an allot node: the Allot gRPC API for clients, the
// papers' algorithms hosted per view on the view's members, and the
// control plane that decides the views (package control, etcd-io/raft),
// persisted in the node's store (package service/store).
//
//	clients ──gRPC──> API handlers (api.go: Lock, Acquire; take.go: Take;
//	                  holders.go: Holders, from the session table;
//	                  sessions.go: the session table, keep-alives carrying
//	                  the node's lease; errors as codes; calls.go: the
//	                  same calls on a client's Calls stream)
//	                    ├─ records ──> replicator (primary.go: a session
//	                    │              recorded at the node's backup in
//	                    │              its view before each answer, in
//	                    │              order, on the Backup service;
//	                    │              moved by adopt)   ══> the backup
//	                    │ grants.go: a grant of a session, asked on a user
//	                    │ slot of this node, asked again in the next view;
//	                    │ names.go: a lock name's resource id in a view,
//	                    │ given by the name's home node; locks.go: the
//	                    │ lock's processes, made as first used
//	                    v
//	                  views (view.go: the view the node is in and its
//	                  instances, under one lock; space.go: a name from the
//	                  link parsed once into a space.Space; instance.go: one
//	                  host.Host per algorithm instance, key@EPOCH:MEMBERS
//	                  on the wire; the data plane, no consensus on a
//	                  grant's path)                    <══ links ══> other nodes
//	                    ^ adopt / serve / fence          │ events
//	                    │                                v
//	                  control host (ctl.go: ticks and    service/eventlog: the
//	                  steps control.Node, persists       node's event log
//	                  before it sends, hands its         (JSONL), read back by
//	                  changes over in order; the lease   service/verify in tests
//	                  for answers)     <══ Raft ══> other nodes
//	                    ├─ members ──> membership (members.go: the
//	                    │              members the log has, and the
//	                    │              link transport: the links above
//	                    │              follow them)
//	                    │
//	                  store (service/store: bbolt, fsynced: the log, the
//	                  hard state, the runs, the quota counts)
//
// service/internal/space types an instance's name: its key (the lock, a
// semaphore, a quota's view) and its view. The name stays a string only
// where one is required — the link transport's space on the wire and the
// event log's instance field, whose formats are contracts — and is parsed
// once where it comes in; a malformed name from a peer is a typed error.
// service/internal/names is a lock name's home in a view (rendezvous
// hashing over the members) and the question a node asks the home for
// the name's resource id, on the link space "names".
//
// A view's epoch is its position in the control log; a token is (epoch,
// Lamport counter of the grant). A node serves a view only under a lease;
// a view that leaves a run out waits until that run's lease has run out;
// a quota's view runs the controller on what the log's ledger leaves it,
// and a Take issues each permit within the node's chunk (package chunk's
// rule, shared with the data plane's model; ctl.go's chunks guards it
// and wakes the Takes waiting), so a node away holds back only its last
// report plus a chunk.
// docs/service.md says how, docs/failures.md what each fault costs.
//
// The membership is the control log's (members.go: the node's
// membership, which owns the link transport): a node's links follow it
// as members are added and removed, and the Admin gRPC service
// (admin.go, allot member) lists it and changes it through the leader. A
// node started with a node list the log has moved past refuses to run
// (ErrStaleMembership); a removed one stops (ErrRemoved).
//
// Sessions outlive their node (backup.go says how, and what it does not
// cover): a session's node records it, and each grant before answering
// it, at its backup, the next member in the view (primary.go: an ordered
// queue per backup, over the node's own Backup gRPC service,
// internal/backuppb); when a view leaves the node's run out, the backup
// adopts the sessions in adopt (ctl.go), before it reports ready, and
// asks their grants again with their tokens. A call of a session at its
// backup is UNAVAILABLE with reason SESSION_MOVING: the client moves.
// The sessions' lease rule (when a keep-alive moves the deadline, what a
// record asks the backup to keep, an adopter's deadline), the backup's
// records and what a view change does with them, and the queue of
// deadlines are the pure package session's (Lease, Keeper, Expiry): this
// package drives them in real time, with the locks, goroutines and
// records on the wire. So it drives package lockname's table of a
// view's name ids (names.go) and package users' count of the node's
// users of the lock's or a large semaphore's instance (locks.go: how
// many it makes, at which ids, when a request waits for a user given
// back or is refused at the limit) and package chunk's counts of the
// node's permits within its chunk (ctl.go's chunks: when a Take's next
// permit may be asked, what the node has on disk), each shared with the
// data plane's model (package dataplane).
//
// node.go builds a node, starts it and shuts it down; the Node's fields
// are grouped by role, each group under its own lock: the views, the
// session table, the control host, the membership and its links, the
// replicator. The node acts on its sessions only within its lease
// (expiry.go): past it, its backup may have them.
// The node's parts do not hold the *Node: each is handed the role it
// needs of it, an interface defined next to the part, as the
// algorithms are handed a proc.Env — the control host a changeTaker
// (ctl.go: the control node's changes, a lost log) and the membership
// as a memberFollower (the members the log has, its own removal), the
// membership the control host as a memberLog (members.go), the
// replicator the membership as a peerReader (where its backup is) and
// the session table as a sessionLister (primary.go), an instance its
// instanceDeps and the lease as a leaseReader (instance.go), the Admin
// API the membership as a memberLister and the control host as a
// memberCtl (admin.go), the health service a servingReader, the
// metrics' collectors a placeReader, a linkReader, sentCounters and an
// objectCounter (ops.go, metrics.go, refresh.go);
// TestNoNodeBackPointers keeps it so. The control host's lock and the
// keeper's (backup.go) and the views' (view.go) are taken by their own
// methods only — the node asks the host for a semaphore's units, a
// proposal, a Take's hold on the issuing lock, the keeper for a view's
// take-over and a stop, and the views for an instance (built on first
// use), a grant's answer taken only while its view is the node's
// (answerIn), the current view's instances — TestPartsLockThemselves
// keeps that so.
// clock.go is the Lamport clock of the fencing counters. Beside the API,
// on the same server (ops.go): grpc.health.v1, SERVING only while the
// node serves its view under its lease and is not draining; server
// reflection; and the Prometheus metrics (metrics.go, ops.go: the node's
// requests, view, links and grants, the gRPC server's calls, the Go
// runtime and the process).
// Session and grant ids stay below 2^53 (ids.go).
//
// The checkers of the nodes' event logs (service/verify: Logs, Partial,
// the holders across views) are for tests and the chaos harness: the node
// does not link them (internal/layers holds it to that). status.go serves
// /status; cluster.go is the cluster file, secure.go who may call what
// on a cluster with mTLS, links.go the carrier of the links between
// nodes (Serve splits the node's one port between gRPC and the links'
// own connections), space.go the names the links hand over, parsed once.
//
// Beside the handlers: validate.go checks a request's input against the
// documented limits (MaxNameBytes, MaxLockNames, units, n) and the node's
// (Config.MaxSessions, MaxSemaphores; MaxLocks in grants.go); errors.go gives each error a code
// and, where a code means more than one thing, a google.rpc.ErrorInfo
// reason (api/allot/v1's Reason constants: an older client keeps reading
// the code as before); semaphores.go says which algorithm serves a
// semaphore (below a node's slots in units the cluster's, on the fixed
// slots; from there on central-pool over users made per request, as the
// lock's), records a semaphore's units in the control log on its first
// use, so that every node refuses other units, and holds the node to its
// most semaphores in use;
// expiry.go ends the sessions whose lease ran out, from one goroutine;
// refresh.go asks for a refresh, a view of the same members, once the
// node's idle instances pass a threshold: the view change collects what
// nobody holds, and forgets the units of the semaphores nobody holds.
package service
