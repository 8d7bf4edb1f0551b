// Package chunk is the rule that keeps a node's permits of each quota
// within its chunk, and the counts it keeps them by: pure (no lock, no
// goroutine, no channel, no clock), like packages session, lockname and
// users below the drivers.
//
// A quota's budget M is issued by the controller of each view; the
// control log's ledger counts, for each member of a view, its count when
// the view opened plus its last committed report, and holds back the
// quota's chunk C for it beyond that (control.State.Limit): a member the
// view loses may have issued up to C it never reported. The bound holds
// only while every node issues a permit only within that limit: its
// count on disk plus the permits it asked of the view's instance and has
// not settled yet (reserved) stays below the limit the log allows it in
// the view it serves. A node at its limit waits for its report to commit
// (the limit grows) or for the view to change. That is what Quotas
// keeps: the view its limits are of, each quota's limit, the count on
// disk, the reservations; Reserve is the check (no more than the limit,
// reserved plus counted, ever), Settle ends reservations (issued and on
// disk, or not issued), Set takes the limits of a view, and says whether
// any grew (a node wakes the requests waiting on its limit).
//
// Why a package of its own: the service (service/ctl.go: chunks, run by
// take.go's Take) and the data plane's model (package dataplane:
// Node.issue, permit, answerTake, unplace) each kept a copy of this
// arithmetic, in step by hand, and what the simulator checks of the
// model holds of the service only while the two agree. Written once,
// they are the same in both. What is the driver's stays with it: the
// service's mutex around a Quotas and its channel that wakes the Takes
// waiting, the store that writes the counts; the model's takes, its
// Out.Counts (the driver writes them) and its broken variant
// (dataplane.QuotaNoChunk: Overdraw).
//
//	Set(epoch, limits) ─> grew: wake the waiters
//	Reserve(epoch, q) ─> false: wait (a report to commit, a new view)
//	                  └> true: ask the instance ─> issued: Settle(q, 1, count on disk)
//	                                           └> not issued: Settle(q, 1, 0)
//
// Size is the chunk itself, C = max(1, W/(2n)) for a quota of waste W on
// n nodes, which the service and the simulator both give the control
// plane (control.Quota.Chunk).
package chunk
