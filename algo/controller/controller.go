// Package controller is Afek, Awerbuch, Plotkin and Saks's (M, W) resource
// controller ("Local management of a global resource in a communication
// network", JACM 1996): at most M permits over the whole network, and a
// request rejected only when at least M − W permits are (eventually)
// issued, with O(n log²n log(M/(W+1))) messages instead of a central
// counter's Ω(nM).
//
// # The bin hierarchy (§4)
//
// Every node v holds a local bin b_l(v) (level −1) and a global bin b_g(v)
// at level max{i : 2^i divides D(v)}, D(v) its depth in the spanning tree;
// the root's global bin holds the M permits. A bin's supervisor is the
// nearest bin one level up on the path to the root (else the root's bin),
// and its capacity is Cap(b) = max{Λ·2^Level(b), 1} with
// Λ = 2^⌊lg((W/U)·1/(2·lg(U+1)))⌋. An empty bin asked for permits first
// refills to capacity from its supervisor, then serves; a request travels
// up relayed by the nodes between, one request out per node at a time
// (what arrives meanwhile waits in the node's queue, as
// WAIT-FOR-MESSAGE-FROM-LINK does in Fig. 4).
//
//	depth:   0      1     2     3     4     5     6     7     8
//	level: root     0     1     0     2     0     1     0     3
//	         ^-----------------------------(sup of 4 and 8)---+
//	         ^-----------------------------+
//	                      ^-----+  (2 supervises 1 and 3, 6 supervises 5, 7)
//
// The tree is built by the algorithm (package spantree) from the
// communication graph, rooted at process 0.
//
// # The controllers and their catalogue names
//
//   - controller-basic: BASIC CONTROLLER (§4, Figs. 3–5) with U = n, the
//     number of nodes of the graph, known to every node beforehand.
//   - controller: the MODIFIED CONTROLLER (§6.1). The root learns n from
//     the tree's echo, then runs iterations: with m permits left, while
//     m/2 > W it runs the basic controller with (m, m/2); when that
//     iteration's root bin cannot satisfy a request, a broadcast-and-echo
//     collects every bin's permits, and the next iteration starts with them
//     (a second wave tells every node the new Λ). The last iteration runs
//     with W itself and rejects; with W = 0 its Λ is 0, every capacity 1:
//     the naive controller on the remainder, exact.
//   - controller-main: the MAIN CONTROLLER (§5), for a set of
//     participating nodes that grows from the root alone. Two basic
//     controllers run on the tree of the participants: CONTROLLER-N, whose
//     permits admit nodes, and CONTROLLER-R, whose permits are the
//     resource. Iteration i, begun with n_i participants and M^R_i unused
//     permits, runs CONTROLLER-N with (2n_i, n_i) and CONTROLLER-R with
//     (M^R_i, W), both with U_i = 3n_i. When CONTROLLER-N's root bin runs
//     dry (it never rejects), broadcast-and-echo re-initializes: one wave
//     settles every node and collects CONTROLLER-R's unused permits
//     (M^R_{i+1}), one counts the participants (n_{i+1}), one starts the
//     next iteration. CONTROLLER-R's exhausted signal is the main
//     controller's; when M^R_i ≤ W, CONTROLLER-R's root rejects whatever
//     reaches it. Messages O((M/W)·n·log²n) (Theorem 5.2), n the final
//     number of participants, whatever the size of the graph.
//   - controller-modified-main: the MODIFIED CONTROLLER as §6.1 states
//     it, iterating MAIN. Stage s runs the main controller with
//     (M_s, M_s/2), M_0 = M, participants growing from the root as in
//     controller-main; when the stage's CONTROLLER-R root bin runs dry
//     (§6.1: the main controller "terminates"), the iteration's
//     broadcast-and-echo collects the unused permits, M_{s+1} ≤ M_s/2, and
//     the next stage begins; once M_s/2 ≤ W the last stage runs the main
//     controller with W itself, and rejects. With W ≥ M/2 it is
//     controller-main, message for message. Messages
//     O(n·log²n·log(M/(W+1))) (Lemma 6.1.1), n the final participants.
//     It differs from controller (which iterates BASIC with U = n on the
//     tree of every node): its bins are sized for U_i = 3n_i, the
//     participants only; no node outside them hears a message; and a
//     stage spans several of MAIN's iterations (the participants doubling
//     inside it re-initialize CONTROLLER-R with the stage's waste, not W).
//   - names (not in the catalogue: it answers every request with a name,
//     not a permit out of a budget): dynamic name assignment (§6.2), the
//     main controller whose CONTROLLER-N's permits are names, without
//     CONTROLLER-R. A bin holds a contiguous range of names (a NameRange
//     message carries its first name, O(log n) bits); iteration i hands out
//     the fresh range [base_i, base_i + 2n_i) with waste n_i, n_i = 1 + the
//     names given so far (the initiator and the named); when the range runs
//     dry the collection counts the names given and the next iteration
//     starts past the range, whose leftovers are not reused. So
//     n_{i+1} ≥ 2n_i and the largest name is below 4(n+1).
//   - bank-main (not in the catalogue, like package bank): the distributed
//     bank of §6.3 on two MAIN CONTROLLERS (bankmain.go): CONTROLLER-R is
//     the withdrawal controller, whose root bin is the bank and never
//     rejects; the deposit controller runs the same bins backwards.
//
// # Readings and deviations
//
//   - The basic and modified controllers run on the tree of every node with
//     U = n (the count the tree's echo gives): every node of the graph may
//     ask, a bound just as valid as §5's 3n_i. The catalogue's controller
//     iterates BASIC, not the MAIN CONTROLLER as §6.1 has it;
//     controller-modified-main is §6.1 as written.
//   - The internal link between RESOURCE-REQUEST and DELIVERY-PROCESS is a
//     local call, not a network message: the message counts are the
//     network's.
//   - An iteration ends when the root bin cannot satisfy a request (the
//     basic controller's exhausted signal, Fig. 5). That request, and every
//     one that reaches a closing node and would need a refill or a relay
//     upward, is answered Later: the local bin keeps its application's
//     request and asks again when the next iteration starts. A node echoes
//     the collection only when it owes and is owed no answer, so no permit
//     is on a link when it is counted, and none moves once counted.
//   - Fig. 5's root rejects when its bin holds fewer permits than asked
//     for, though not zero; those permits are wasted too. The waste bound
//     is checked on every run from the events (check.Quota).
//
// The main controller and name assignment:
//
//   - Who participates. §3 assumes a single initiator whose controlled
//     algorithm activates neighbours of participants, the activation edges
//     forming the participants' tree. In allot a request may arise at any
//     node, so the activation path is read as the path to the root in the
//     tree every node builds (package spantree, over the whole graph; its
//     explore and ack messages are the tree's construction, which the
//     paper assumes and the reproduction counts apart). A node joins once
//     it has a request, or a tree child waiting to join through it: it
//     sends Join to its tree parent, joining first itself if need be, so
//     the nodes on the path participate too (they count in n). The
//     participants' tree is the subtree of the whole tree they form, with
//     the same depths D(v); no controller message leaves it.
//   - Whose permit admits a node. §5 says a new node joins only with a
//     permit of CONTROLLER-N; it is taken at the node's parent-to-be (the
//     only participant it talks to) by that node's RESOURCE-REQUEST, one
//     permit for each child waiting. Admit tells the child n_i, from which
//     it computes both Λ (W, 3n_i and n_i, 3n_i are known or given).
//   - Resubmitting (§5: "identify unfulfilled requests of CONTROLLER-N ...
//     and resubmit them"): the joins waiting at a node stay queued there
//     through the re-initialization; a node admits only while the
//     iteration runs, so the count is not passed by a late admission.
//   - Re-initialization uses three waves, each echo carrying one number:
//     collect (settle and sum CONTROLLER-R's bins), count (n_{i+1}), start
//     (n_{i+1} down). §5 describes one broadcast-and-echo that settles and
//     counts, then a collection; the cost is O(n_i) messages an iteration,
//     O(n) in all as n_i at least doubles. Name assignment needs two: its
//     collection counts the names, which is the count.
//   - Unordered channels: a node admitted just before its parent closed may
//     see the collection's broadcast before its Admit. It then only waits
//     for the Admit and echoes; a node echoes only as a participant that
//     owes and is owed no answer (CONTROLLER-N's included).
//   - M^R_i ≤ W: §5 produces the exhausted signal at once. Here
//     CONTROLLER-R's root rejects every request that reaches it and gives
//     the signal with the first reject, so that the signal comes iff a
//     reject does (Def. 3.1 (2)) even if nobody asks again. With M ≤ W
//     nothing is ever issued (the consumption conditions allow it).
//   - A reject at a node's local bin is final across iterations (no permit
//     after a reject at a node, §3); a global bin's rejected flag belongs
//     to its iteration's bins and is cleared with them. After a reject
//     CONTROLLER-R still serves, in later iterations, the permits the
//     collection brings back, until they are at most W.
//   - U_i = 3n_i is valid because the tree holds only participants: D(v)
//     is below their number, so no bin is above level lg U_i and no
//     capacity above Λ·U_i ≤ W/(2·lg(U_i+1)); in name assignment no bin
//     asks for more than a small part of the iteration's range. On a tree
//     of every node a bin far down a long tree could outgrow the range.
//   - The modified controller over MAIN. §6.1 gives a stage's end
//     ("when it terminates") and its waste (M_i/2), not its mechanics.
//     Read: a stage's main controller terminates when its CONTROLLER-R's
//     root bin cannot serve a request while the iteration runs, or when
//     an iteration's collection finds M^R ≤ W_s (MAIN's own exhausted
//     case); neither rejects: the request is answered Later, as when
//     CONTROLLER-N runs dry, and the root's collection, which §5 already
//     performs, is §6.1's "broadcast and echo to count the number of
//     unused resources". A root bin found empty while the iteration is
//     closing does not end the stage (the collection empties it). A stage
//     that begins adds one wave, carrying W_s to every participant (a
//     node admitted later learns it from AdmitW); so a stage costs O(n)
//     messages beyond MAIN's. The listing's "O(log(M/W + 1))" iterations
//     and "O(log(M/(W+1)))" are read as the same count: stages halve M_s
//     from M until M_s/2 ≤ W, at most lg(M/(W+1)) + 2 of them. §6.1's
//     W = 0 case (collect, then the naive controller) is the last stage
//     with W = 0, whose Λ is 0: every capacity 1.
//   - Name assignment names every participant, each as it is admitted: a
//     node on the path of a joining node gets a name event without a
//     request. A request at a node is a participant joining there and gets
//     a name of its own, except when it is what made the node join: the
//     node's admission answers it.
package controller

import (
	"fmt"
	"math"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Algorithm is the modified controller (§6.1), the catalogue's controller.
var Algorithm = algo.Algorithm{
	Name:     "controller",
	Kind:     algo.Quota,
	Summary:  "Afek et al.'s modified (M, W) controller: bin hierarchy on a spanning tree, iterations halving the waste",
	Build:    func(pb *algo.Problem) ([]proc.Process, error) { return Build(pb, true) },
	Messages: messages,
}

// Basic is the basic controller (§4) with U = n.
var Basic = algo.Algorithm{
	Name:     "controller-basic",
	Kind:     algo.Quota,
	Summary:  "Afek et al.'s basic (M, W) controller: bin hierarchy on a spanning tree, U = n",
	Build:    func(pb *algo.Problem) ([]proc.Process, error) { return Build(pb, false) },
	Messages: messages,
}

// Names is dynamic name assignment (§6.2). It is not in the catalogue:
// its answers are names, one for every request, not permits out of a
// budget, so it does not meet the quota contract (Budget and Waste are
// not read). Every request is a node joining, given a unique name (a name
// event, then a permit); check.Names judges the names.
var Names = algo.Algorithm{
	Name:     "names",
	Kind:     algo.Quota,
	Summary:  "Afek et al.'s dynamic name assignment: the main controller's CONTROLLER-N hands out ranges of names, a fresh range each time the participants double",
	Build:    BuildNames,
	Messages: slices.Concat(mainMessages, []proc.Message{NameRange{}, Welcome{}}),
}

// BuildNames returns the nodes of name assignment: the main controller
// whose CONTROLLER-N's permits are names, without CONTROLLER-R.
func BuildNames(pb *algo.Problem) ([]proc.Process, error) {
	q := *pb
	q.Budget, q.Waste = 0, 0
	ps, err := BuildMain(&q)
	for _, p := range ps {
		p.(*MainNode).names = true
	}
	return ps, err
}

// Build returns one node per graph node, the root (process 0) first: the
// modified controller when iterate is set, else the basic one.
func Build(pb *algo.Problem, iterate bool) ([]proc.Process, error) {
	if err := Validate(pb); err != nil {
		return nil, err
	}
	n := pb.Graph.N()
	nodes := make([]Node, n)
	ps := make([]proc.Process, n)
	for v := range nodes {
		nd := &nodes[v]
		nd.nbrs = pb.Graph.Neighbors(proc.ID(v))
		nd.root, nd.iter = v == 0, iterate
		nd.budget, nd.waste = int64(pb.Budget), int64(pb.Waste)
		nd.lam = Lambda(int64(pb.Waste), int64(n))
		ps[v] = nd
	}
	return ps, nil
}

// Validate checks that pb is a quota problem a tree-based controller can
// run: a connected communication graph with a user at every node, and
// 0 ≤ W ≤ M.
func Validate(pb *algo.Problem) error {
	switch {
	case pb.Kind != algo.Quota:
		return fmt.Errorf("solves quota problems, not %s", pb.Kind)
	case pb.Graph == nil || pb.Graph.N() == 0:
		return fmt.Errorf("needs a communication graph")
	case pb.Users != pb.Graph.N():
		return fmt.Errorf("%d users on %d nodes: want one user per node", pb.Users, pb.Graph.N())
	case !pb.Graph.Connected():
		return fmt.Errorf("the communication graph is not connected")
	case pb.Budget < 0 || pb.Waste < 0 || pb.Waste > pb.Budget:
		return fmt.Errorf("want 0 ≤ W ≤ M, got M=%d W=%d", pb.Budget, pb.Waste)
	}
	return nil
}

// Lambda is the exponent of Λ = 2^⌊lg((W/U)·1/(2·lg(U+1)))⌋ (§4.1), or
// lamZero when W = 0.
func Lambda(w, u int64) int {
	if w <= 0 {
		return lamZero
	}
	x := float64(w) / (2 * float64(u) * math.Log2(float64(u)+1))
	k := int(math.Floor(math.Log2(x)))
	// Guard the floor against rounding at exact powers of two.
	for math.Ldexp(1, k+1) <= x {
		k++
	}
	for math.Ldexp(1, k) > x {
		k--
	}
	return k
}
