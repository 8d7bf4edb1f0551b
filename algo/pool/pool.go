package pool

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// Algorithm is the catalogue entry.
var Algorithm = algo.Algorithm{
	Name:     "pool",
	Kind:     algo.Pool,
	Summary:  "Carvalho's R-RESOURCES: units move between tree neighbours under acceptance thresholds",
	Messages: []proc.Message{Request{}, Release{}},
	Build:    Build,
}

// Build returns one controller per node of pb.Graph, on its breadth-first
// spanning tree from node 0, with every unit at node 0.
func Build(pb *algo.Problem) ([]proc.Process, error) {
	return build(pb, faithful)
}

// reading selects how the two damaged places of the listing are read (see
// the package doc); only the tests and Broken build the literal ones.
type reading uint8

const (
	faithful    reading = iota
	literalTH           // NORMALIZE: TH[j] := HSN as printed
	literalHRSN         // TREAT-MESSAGE: HRSN[j] updated before the request test
)

func build(pb *algo.Problem, rd reading) ([]proc.Process, error) {
	if err := Check(pb); err != nil {
		return nil, fmt.Errorf("pool: %w", err)
	}
	tree, father := SpanningTree(pb.Graph)
	ps := make([]proc.Process, pb.Users)
	for p := range ps {
		ps[p] = newNode(proc.ID(p), tree[p], father[p], pb.Units, rd)
	}
	return ps, nil
}

// Check reports why pb is not a pool problem R-RESOURCES can run: it needs
// a connected communication graph of n nodes and 1 ≤ R < n (the paper's
// n > R).
func Check(pb *algo.Problem) error {
	switch {
	case pb.Kind != algo.Pool:
		return fmt.Errorf("solves pool problems, not %s", pb.Kind)
	case pb.Graph == nil || pb.Graph.N() != pb.Users:
		return fmt.Errorf("needs a communication graph on the %d users", pb.Users)
	case pb.Units < 1 || pb.Units >= pb.Users:
		return fmt.Errorf("needs 1 ≤ units < nodes (n > R), got %d units on %d nodes", pb.Units, pb.Users)
	case !pb.Graph.Connected():
		return fmt.Errorf("needs a connected graph")
	}
	return nil
}

// SpanningTree returns, for every node, its neighbours in the breadth-first
// spanning tree of g from node 0 (visiting neighbours in increasing id), in
// increasing id order, and its father (proc.None for node 0). g must be
// connected.
func SpanningTree(g *graph.Graph) (adj [][]proc.ID, father []proc.ID) {
	adj = make([][]proc.ID, g.N())
	father = make([]proc.ID, g.N())
	if g.N() == 0 {
		return adj, father
	}
	seen := make([]bool, g.N())
	seen[0], father[0] = true, proc.None
	queue := []proc.ID{0}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range g.Neighbors(p) {
			if !seen[q] {
				seen[q], father[q] = true, p
				adj[p] = append(adj[p], q)
				adj[q] = append(adj[q], p)
				queue = append(queue, q)
			}
		}
	}
	for _, a := range adj {
		slices.Sort(a)
	}
	return adj, father
}

// STATE values besides a unit number.
const (
	idle    int32 = -1
	waiting int32 = -2
)

// Node is controller R-RESOURCES at one node. Neighbour indices j are
// positions in nbr (the paper's V[1..v]).
type Node struct {
	self  proc.ID
	nbr   []proc.ID // V, increasing ids
	units int       // R
	m     []bool    // m[j,r] at j*units+r
	th    []int64   // TH[j]
	hrsn  []int64   // HRSN[j]
	rep   []bool    // REP-EXP[j]
	hsn   int64     // HSN
	sndr  int       // SNDR: index+1 of the neighbour whose new request is being treated, 0 none
	state int32     // STATE: idle, waiting or the unit in use
	res   []int32   // RESOURCES, oldest first
	reqs  []queued  // REQUESTING, by key then neighbour id
	rd    reading
	cur   int // literalTH: TREAT-MESSAGE's j while it runs, -1 otherwise
	// For the trace only (see Request.Gave): gave[j,r] is the TH of the
	// latest message that passed r to j, took[j] the TH of the latest
	// message accepted from j.
	gave []int64
	took []int64
}

type queued struct {
	j   int
	key int64
}

func newNode(self proc.ID, nbr []proc.ID, father proc.ID, units int, rd reading) *Node {
	v := len(nbr)
	n := &Node{
		self: self, nbr: nbr, units: units,
		m:  make([]bool, v*units),
		th: make([]int64, v), hrsn: make([]int64, v), rep: make([]bool, v),
		state: idle, rd: rd, cur: -1,
		gave: make([]int64, v*units), took: make([]int64, v),
	}
	if father == proc.None {
		for r := range units {
			n.res = append(n.res, int32(r))
		}
		return n
	}
	f, _ := slices.BinarySearch(nbr, father)
	row := n.row(f)
	for r := range row {
		row[r] = true
	}
	return n
}

func (n *Node) row(j int) []bool { return n.m[j*n.units : (j+1)*n.units] }

// Start implements proc.Process.
func (n *Node) Start(proc.Env) {}

// Fire implements proc.Process; the controller has no timers.
func (n *Node) Fire(proc.Env, proc.Timer) {}

// Request is REQUEST-RESOURCE: the grant event follows when STATE becomes a
// unit, now or on a later message.
func (n *Node) Request(env proc.Env, _ proc.Request) {
	n.state = waiting
	n.normalize(env)
}

// Release is RELEASE-RESOURCE.
func (n *Node) Release(env proc.Env) {
	n.res = append(n.res, n.state)
	n.state = idle
	n.normalize(env)
}

// Deliver is TREAT-MESSAGE.
func (n *Node) Deliver(env proc.Env, from proc.ID, msg proc.Message) {
	var th int64
	var row []bool
	var gave []int64
	isReq := false
	switch m := msg.(type) {
	case Request:
		th, row, gave, isReq = m.TH, m.M, m.Gave, true
	case Release:
		th, row, gave = m.TH, m.M, m.Gave
	default:
		panic(fmt.Sprintf("pool: node %d got %T", n.self, msg))
	}
	j, ok := slices.BinarySearch(n.nbr, from)
	if !ok {
		panic(fmt.Sprintf("pool: node %d got a message from non-neighbour %d", n.self, from))
	}
	older := n.hrsn[j]
	if th > n.th[j] || (th == n.th[j] && from > n.self) {
		n.th[j] = th
		n.hsn = max(n.hsn, th)
		n.hrsn[j] = th
		mine := n.row(j)
		for r, there := range row {
			if there && mine[r] {
				mine[r] = false
				n.res = append(n.res, int32(r))
				n.rep[j] = false
				if r < len(gave) && gave[r] > n.took[j] {
					env.Emit(proc.Event{Kind: proc.EvMove, Unit: int32(r), Peer: from})
				}
			}
		}
		n.took[j] = th
		if !isReq {
			n.dequeue(j)
		}
	}
	if n.rd == literalHRSN {
		older = n.hrsn[j]
	}
	if isReq && th > older {
		n.enqueue(j, th)
		n.sndr = j + 1
		n.hrsn[j] = th
	}
	n.cur = j
	n.normalize(env)
	n.cur = -1
}

// normalize is NORMALIZE.
func (n *Node) normalize(env proc.Env) {
	n.hsn++
	if n.state == waiting && len(n.res) > 0 {
		n.state = n.take()
		env.Emit(proc.Event{Kind: proc.EvGrant, Unit: n.state})
	}
	if len(n.reqs) > len(n.res) || n.state == waiting {
		// Lacking: pass what there is to the oldest requests, ask the
		// others that may hold units.
		for len(n.res) > 0 {
			r, k := n.take(), n.pop()
			n.row(k)[r] = true
			n.rep[k] = true
			n.th[k] = n.hsn
			n.gave[k*n.units+int(r)] = n.hsn
			env.Send(n.nbr[k], n.request(k))
		}
		for k := range n.nbr {
			if !n.rep[k] && k+1 != n.sndr && slices.Contains(n.row(k), true) {
				n.rep[k] = true
				n.raise(k)
				env.Send(n.nbr[k], n.request(k))
			}
		}
	} else {
		for len(n.reqs) > 0 {
			r, k := n.take(), n.pop()
			n.rep[k] = false
			n.row(k)[r] = true
			n.raise(k)
			n.gave[k*n.units+int(r)] = n.hsn
			env.Send(n.nbr[k], Release{TH: n.hsn, M: slices.Clone(n.row(k)), Gave: n.gaveTo(k)})
		}
	}
	n.sndr = 0
}

// request is the Request to neighbour k now (rule 2: TH is HSN).
func (n *Node) request(k int) Request {
	return Request{TH: n.hsn, M: slices.Clone(n.row(k)), Gave: n.gaveTo(k)}
}

func (n *Node) gaveTo(k int) []int64 { return slices.Clone(n.gave[k*n.units : (k+1)*n.units]) }

// raise sets the threshold of link k before a message goes on it (rules 2,
// 3). The literal listing raises TH[j] instead, j being the link of the
// message under treatment, if any.
func (n *Node) raise(k int) {
	if n.rd == literalTH {
		if n.cur >= 0 {
			n.th[n.cur] = n.hsn
		}
		return
	}
	n.th[k] = n.hsn
}

// take removes the oldest unit of RESOURCES.
func (n *Node) take() int32 {
	r := n.res[0]
	n.res = n.res[1:]
	return r
}

// pop removes the first neighbour of REQUESTING.
func (n *Node) pop() int {
	k := n.reqs[0].j
	n.reqs = n.reqs[1:]
	return k
}

// enqueue inserts j with key th, replacing an older request of j.
func (n *Node) enqueue(j int, th int64) {
	n.dequeue(j)
	i, _ := slices.BinarySearchFunc(n.reqs, queued{j, th}, func(a, b queued) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		return cmp.Compare(a.j, b.j)
	})
	n.reqs = slices.Insert(n.reqs, i, queued{j, th})
}

func (n *Node) dequeue(j int) {
	n.reqs = slices.DeleteFunc(n.reqs, func(q queued) bool { return q.j == j })
}
