// Package drinking is Chandy and Misra's drinking philosophers algorithm
// ("The drinking philosophers problem", TOPLAS 1984) in the modular form of
// Welch and Lynch ("A modular drinking philosophers algorithm", Distributed
// Computing 1993): any dining philosophers algorithm runs as a subroutine,
// and a user drinks from the bottles it needs this time only, so users whose
// current requests do not overlap drink at the same time even when their
// maximum sets overlap. This is the algorithm Rhee calls CM in §6 (Table 1
// lists "Chandy and Misra [3]" as a drinking algorithm; [3] is the drinking
// paper, whose drinking layer runs their dining algorithm as a subroutine).
//
// # Bottles
//
// As in Chandy and Misra, a bottle is shared by exactly two users: on each
// edge {u, v} of the conflict graph lies one bottle for every resource in
// MaxSets[u] ∩ MaxSets[v], with one request token. On a dining graph every
// resource is an edge, so there is exactly one bottle per resource; a
// resource shared by m users is m(m−1)/2 bottles, one per pair. A user
// needs resource k when it holds the bottle of k on every edge to a
// neighbour that may use k; two users drinking with k would both hold the
// bottle of k on their common edge, so exclusion rests on the bottles alone
// (the dining subroutine only gives priority).
//
//	u thirsty, lacks bottle b, holds b's token  ──request (token)──▶  v
//	v holds b and the token: yields b            ◀──bottle──          v
//	   unless v drinks with b, or v needs b and eats in the dining layer
//	   (then v keeps the token: a deferred request, answered when v stops drinking)
//
// Initially the bottle of each pair lies at the smaller id, the token at the
// larger, as hygienic places its forks.
//
// # The rules, as read here
//
// The drinking paper is not among the papers this repository is built from;
// these are the rules of Welch and Lynch's construction as implemented:
//
//   - Thirsty (the application requests a set R ⊆ MaxSets[u]): u sends a
//     request for every needed bottle it lacks and whose token it holds. If
//     it holds every needed bottle it drinks at once and never enters the
//     dining layer; otherwise it becomes hungry in the dining subroutine,
//     asking it for its whole maximum set (the subroutine solves the dining
//     problem of the users' conflict graph).
//   - A user holding a bottle and its token (a request from the neighbour)
//     yields the bottle, keeping the token, unless it is drinking with that
//     bottle, or it needs the bottle and is eating in the dining layer. Two
//     conflicting users are never both eating, so an eating user gets every
//     bottle it needs.
//   - Entering the dining critical region ("eating") while thirsty, u
//     requests every needed bottle it lacks and whose token it holds; a token
//     that reaches an eating, thirsty u lacking that needed bottle is sent
//     straight back as u's request.
//   - A thirsty user holding every bottle it needs drinks (proc.EvEnter with
//     the request's Res). If it is eating it leaves the dining layer at once;
//     if it is still hungry there (all bottles came first) it leaves the
//     dining layer as soon as the subroutine lets it eat. A later thirst
//     while still hungry reuses that pending dining request.
//   - Leaving (the application's release), u yields every bottle it holds
//     with the token, the deferred requests.
//
// # Readings and deviations
//
//   - Unordered channels. A request may overtake the bottle it asks back
//     (v yields b to u and, thirsty again, requests it at once). Each user
//     therefore remembers which of its requests are outstanding (sent, bottle
//     not yet received) and never re-requests those, and it applies the
//     yielding rule when a bottle arrives at a user already holding the
//     token as well as when a token arrives at a user holding the bottle.
//     Per pair there is one bottle and one token, so a request is answered
//     by exactly one bottle; with these two rules every outstanding request
//     is answered, on FIFO or unordered channels alike.
//   - A thirsty user that yields a bottle it needs while not eating does not
//     request it back until it eats (Chandy and Misra keep such a bottle when
//     the user holds the dining fork of that edge, which a modular algorithm
//     cannot see). Requesting it back at once would let two thirsty users
//     that are not eating pass a bottle to and fro until one of them eats.
//   - Requests must name resources of the user's maximum set (a dynamic
//     workload without fixed sets makes every resource part of every
//     maximum set); an empty request drinks at once.
//
// # Composition
//
// The subroutine's processes are built from the problem itself (same users,
// resources, maximum sets and conflict graph) and hosted through
// proc.SubEnv: a user's dining process lives inside the user, its messages
// travel as proc.Wrapped and are counted under the subroutine's kinds, its
// Enter reaches the user's SubEvent. Helper processes of the subroutine (a
// coordinator) keep their ids, after the users, each run by a proc.Host.
package drinking
