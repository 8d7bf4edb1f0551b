// Package service is an allot node: the Allot gRPC API for clients, the
// papers' algorithms hosted per view on the view's members, and the
// control plane that decides the views (package control, etcd-io/raft),
// persisted in the node's store (package service/store).
//
//	clients ──gRPC──> API handlers (api.go: Lock, Acquire; take.go: Take;
//	                  sessions.go: sessions, keep-alives carrying the node's
//	                  lease; errors as codes)
//	                    │ grants.go: a grant of a session, asked on a user
//	                    │ slot of this node, asked again in the next view
//	                    v
//	                  instances (instance.go, space.go: one host.Host per
//	                  algorithm instance of a view, key@EPOCH:MEMBERS; the
//	                  data plane, no consensus on a grant's path)
//	                                                   <══ links ══> other nodes
//	                    ^ adopt / serve / fence
//	                    │
//	                  control host (ctl.go: ticks and steps control.Node,
//	                  persists before it sends, hands its changes over in
//	                  order; the lease for answers)     <══ Raft ══> other nodes
//	                    │
//	                  store (service/store: bbolt, fsynced: the log, the
//	                  hard state, the runs, the quota counts)
//
// A view's epoch is its position in the control log; a token is (epoch,
// Lamport counter of the grant). A node serves a view only under a lease;
// a view that leaves a run out waits until that run's lease has run out;
// a quota's view runs the controller on what the log's ledger leaves it,
// and a Take issues each permit within the node's chunk (ctl.go: chunks),
// so a node away holds back only its last report plus a chunk.
// docs/service.md says how, docs/failures.md what each fault costs.
//
// The membership is the control log's (members.go): a node's links
// follow it as members are added and removed, and the Admin gRPC service
// (admin.go, allot member) lists it and changes it through the leader. A
// node started with a node list the log has moved past refuses to run
// (ErrStaleMembership); a removed one stops (ErrRemoved).
//
// node.go builds a node, starts it and shuts it down. Beside the API, on the same server (ops.go): grpc.health.v1, SERVING
// only while the node serves its view under its lease and is not
// draining; server reflection; and the Prometheus metrics (metrics.go,
// ops.go: the node's requests, view, links and grants, the gRPC server's
// calls, the Go runtime and the process). Session and grant ids stay
// below 2^53 (ids.go).
//
// Verify and its helpers (verify.go, holders.go) read the nodes' event
// logs for tests and the chaos harness; the daemon does not use them.
package service
