// Package users is a node's accounting of its users of one lazy instance
// — the view's lock instance, or a large semaphore's — and the rule that
// decides, from it, what a request does: pure (no lock, no goroutine, no
// channel, no clock), like package session and lockname below the
// drivers.
//
// A lazy instance runs its algorithm on a problem of many users
// (lockRange) and makes a user process only when a request of the node
// needs one (the service's locks.go). A node places the users it makes
// at ids rank + N·k, its own share of the view (user u is on member
// u mod N), and reuses a user once its request is given back. Lazy
// counts them and decides:
//
//   - a request that finds no idle user (the driver keeps its idle ones:
//     it takes one of them first) makes the next user (Make), unless the
//     node has its most users (Config.MaxLocks for the lock, MaxSessions
//     for a large semaphore), all busy;
//   - there, it waits for a user given back that is not idle yet (Claim:
//     an Unlock is answered before its give-back is recorded at the
//     backup and the release runs), if one is not already waited for by
//     another request; else it is refused (Full: the service's
//     RESOURCE_EXHAUSTED, NODE_LIMIT; the model's NodeLimit);
//   - a regrant (a grant held in an earlier view, asked again in the new
//     one) makes a user past the most: the node is ready in the view only
//     once its held grants are asked again, and a node that adopted a
//     lost node's sessions holds their grants beside its own. Only the
//     ids' limit (lockRange) bounds it; past it, it waits for an idle
//     user as a refused request would have, however long that takes;
//   - a user going idle is kept only while the node has at most its most
//     users alive (Keep; else Dropped), so that the users made past it
//     for regrants go as their grants go back, whatever requests took
//     the idle ones meanwhile.
//
// Why a package of its own: the service (service/locks.go: grab,
// givenBack, idleAgain, putBack, unclaim) and the data plane's model
// (package dataplane: Node.ask, unqueue, free) each kept a copy of this
// rule, in step by hand, and the model's verdicts hold of the service
// only while the two agree. Written once, they are the same in both.
// What is the driver's stays with it: where its idle users are (the
// service's channel of slots, the model's list of ids), who waits and
// how (the service's goroutines on that channel, the model's queue of
// grants), making the process itself, and the lock that guards a Lazy
// (the service's instance mutex; the model has one goroutine).
//
//	request, no idle user ─> Ask(regrant) ─> Make id ─> (process made) Made
//	                                      └> Claim: wait for an idle user ─> (wait over) Unclaim
//	                                      └> Full: refused (a regrant: wait for an idle user)
//	Unlock answered ───────> GivenBack(id): on its way back, claimable
//	user going idle ───────> Keep(): kept, or Dropped
//	user idle and taken, or dropped ─> Returned(id): not on its way back any more
package users
