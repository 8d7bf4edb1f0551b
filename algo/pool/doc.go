// Package pool is Carvalho's controller R-RESOURCES ("Distributed allocation
// of identical resources", §3): a pool of R identical units shared by n > R
// nodes, each using at most one unit at a time, with messages only between
// neighbours of a tree and unordered channels.
//
// # The idea
//
// Node I keeps, for each tree neighbour j and unit r, a flag m[j,r]: true
// when r may be on j's side of the edge I–j. The global predicate (§2, (3))
// is that on every edge and for every unit at least one endpoint says "the
// other side": a unit is never claimed by both ends of an edge, so never by
// two nodes. A unit moves from I to j by I setting m[j,r] and telling j; j
// clears its own flag only on a message that passes the acceptance
// threshold of the link (rule 4), so of two messages crossing on a link
// exactly one has its m row taken into account:
//
//	I                                     j
//	m[j,r]:=true, TH[j]:=HSN ──Request/Release{TH, m[j,·]}──>  accept iff
//	                                          TH > TH[I], or TH = TH[I] and I > j;
//	                                          then for every r with m[r] on both
//	                                          sides: m[I,r]:=false, r is j's
//
// A node that lacks units (it waits, or more neighbours are queued at it
// than it has units) sends Request to every neighbour that may hold units,
// except the one whose request it is treating (SNDR: no backward
// propagation) and those it already asked (REP-EXP). Queued neighbours are
// served in the order of their requests' TH (Lamport clocks, HSN), the
// fair policy the paper's omitted liveness proof rests on. A node with
// enough units answers every queued neighbour with Release. A released unit
// stays where it was used until someone asks for it, which is why units
// migrate less than under a broadcast scheme.
//
// # Readings of the listing
//
// The listing (a scanned text) has two places that cannot be taken
// literally; each reading is covered by a test that runs the literal text
// and shows what breaks (misprint_test.go).
//
//  1. NORMALIZE writes TH[j] := HSN in the loop that sends requests to the
//     neighbours k and in the loop that sends releases. NORMALIZE has no j
//     (it is TREAT-MESSAGE's local, and undefined when the user calls
//     REQUEST- or RELEASE-RESOURCE). Rules 2 and 3 require the threshold of
//     the link the message goes on, TH[k], to be at least the message's TH,
//     as the first loop of NORMALIZE does. We read TH[k] := HSN. Literally
//     (raising the threshold of the link of the message being treated, or
//     none) a node's threshold towards k stays below what it sent, so both
//     of two crossing messages are accepted and a unit ends up on both
//     sides: the pool checker finds one unit held twice.
//  2. TREAT-MESSAGE sets HRSN[j] := ρ.TH when it accepts ρ and then queues
//     a request only if ρ.TH > HRSN[j]: read in that order an accepted
//     request is never queued and its sender waits forever (a deadlock).
//     HRSN is the highest TH received from j; the test is whether this
//     request is newer than every message received from j before it (an
//     older request overtaken by a newer message is stale). We compare
//     with HRSN[j] as it was when ρ arrived.
//
// # Other choices
//
//   - The tree: a breadth-first spanning tree of the communication graph
//     from node 0 (neighbours visited in increasing id), so any connected
//     graph works; on a tree it is the tree itself.
//   - Initialization as the paper suggests: every unit at the root (node 0,
//     the paper's node 1), every other node's flags pointing to its father.
//   - RESOURCES is a first-in first-out list (get takes the oldest); the
//     REQUESTING list is ordered by the request's TH, ties by the lower
//     neighbour id. Units are numbered 0..R-1 (the paper's 1..R).
//   - The paper's Σ.SENDER is the sender the driver reports; Σ.TYPE is the
//     message type (Request, Release).
//   - A unit taken from a message is a move event (the unit arrives at this
//     node from the sender) only when the sender passed it over the link
//     after the last message taken from it: when a node's own give of r
//     crosses a message whose row still says r is on its side and the
//     crossing message wins, r never left, and no move is emitted. The
//     row alone cannot tell the two apart, so messages carry, for the
//     trace only, the TH of the sender's latest give of each unit
//     (Request.Gave); the algorithm never reads it. check.Pool holds the
//     moves to where the units are.
//   - The paper omits its proof of freedom from deadlock and starvation; the
//     pool conformance suite (package conformance) is the evidence here.
package pool
