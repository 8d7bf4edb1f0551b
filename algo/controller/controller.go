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
//   - names (not in the catalogue: it answers every request with a name,
//     not a permit out of a budget): dynamic name assignment (§6.2). The
//     same iterations, but a bin holds a contiguous range of names (a
//     NameRange message carries its first name, O(log n) bits), iteration
//     i hands out the fresh range [base_i, base_i + 2n_i) with waste n_i,
//     n_i = 1 + the names given so far (the initiator and the named
//     nodes), and it never rejects: when the range runs dry the
//     collection counts the names given and the next iteration starts past
//     the range, whose leftovers are not reused. So n_{i+1} ≥ 2n_i and the
//     largest name is below 4(n+1).
//
// # Readings and deviations
//
//   - Every node of the graph is a user from the start, so the set of
//     participating nodes never grows; the MAIN CONTROLLER (§5) would then
//     never see CONTROLLER-N exhausted and would be one iteration of BASIC
//     with U = 3n. The modified controller iterates BASIC with U = n
//     instead (the count the tree's echo gives), a bound just as valid.
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
//   - Name assignment runs on the tree over every node, so its U is n, the
//     graph's size, not 3n_i (§5): with U = 3n_i a bin far down a long
//     tree could ask for more names than the iteration's whole range, and
//     the waste bound counts the bins of every tree node. The names stay
//     below 4(n+1); the messages are those of a tree of n nodes, O(n²) on
//     a line when every node joins, rather than the paper's O(n·log²n),
//     which needs a tree over the participants only (the MAIN CONTROLLER,
//     not implemented).
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
