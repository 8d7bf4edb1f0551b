// Package graph holds the undirected graphs allot runs on: a conflict graph
// for dining philosophers (nodes are processes, each edge is one shared
// resource, i.e. one fork) or a communication graph (pool and quota).
//
// Graphs are stored in compressed sparse row form so that a million-node ring
// costs a few tens of bytes per node. Neighbours of a node are sorted by id;
// Edges(p)[i] is the id of the edge to Neighbors(p)[i]. Edge ids are dense,
// 0..M()-1, in the order the edges were given.
package graph

import (
	"fmt"
	"slices"

	"github.com/allot-dev/allot/proc"
)

// Graph is an immutable undirected simple graph.
type Graph struct {
	off  []int32      // len n+1: node p's entries are [off[p], off[p+1])
	nbr  []proc.ID    // neighbour at each entry
	edge []proc.ResID // edge id at each entry
	ends [][2]proc.ID // endpoints of each edge, smaller first
}

// New builds a graph on n nodes from an edge list. Self-loops and duplicate
// edges are errors.
func New(n int, edges [][2]proc.ID) (*Graph, error) {
	if n < 0 {
		return nil, fmt.Errorf("graph: %d nodes", n)
	}
	deg := make([]int32, n+1)
	for i, e := range edges {
		a, b := e[0], e[1]
		if a < 0 || b < 0 || int(a) >= n || int(b) >= n {
			return nil, fmt.Errorf("graph: edge %d (%d-%d) outside 0..%d", i, a, b, n-1)
		}
		if a == b {
			return nil, fmt.Errorf("graph: self-loop at %d", a)
		}
		deg[a+1]++
		deg[b+1]++
	}
	for i := 1; i <= n; i++ {
		deg[i] += deg[i-1]
	}
	g := &Graph{
		off:  deg,
		nbr:  make([]proc.ID, 2*len(edges)),
		edge: make([]proc.ResID, 2*len(edges)),
		ends: make([][2]proc.ID, len(edges)),
	}
	fill := slices.Clone(deg[:n])
	for i, e := range edges {
		a, b := min(e[0], e[1]), max(e[0], e[1])
		g.ends[i] = [2]proc.ID{a, b}
		g.nbr[fill[a]], g.edge[fill[a]] = b, proc.ResID(i)
		fill[a]++
		g.nbr[fill[b]], g.edge[fill[b]] = a, proc.ResID(i)
		fill[b]++
	}
	for p := 0; p < n; p++ {
		lo, hi := g.off[p], g.off[p+1]
		sortPair(g.nbr[lo:hi], g.edge[lo:hi])
		for i := lo + 1; i < hi; i++ {
			if g.nbr[i] == g.nbr[i-1] {
				return nil, fmt.Errorf("graph: duplicate edge %d-%d", p, g.nbr[i])
			}
		}
	}
	return g, nil
}

// sortPair sorts nbr ascending, permuting edge alongside. Degrees are small
// in the common case, so insertion sort wins; large degrees fall back to a
// permutation sort, unless already sorted: edges given in increasing order
// of their ends (every spec but random) fill each node's entries in order,
// and on complete:5000 the permutation sorts cost a second.
func sortPair(nbr []proc.ID, edge []proc.ResID) {
	if len(nbr) > 32 {
		if slices.IsSorted(nbr) {
			return
		}
		idx := make([]int, len(nbr))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return int(nbr[a]) - int(nbr[b]) })
		n2, e2 := slices.Clone(nbr), slices.Clone(edge)
		for i, j := range idx {
			nbr[i], edge[i] = n2[j], e2[j]
		}
		return
	}
	for i := 1; i < len(nbr); i++ {
		for j := i; j > 0 && nbr[j] < nbr[j-1]; j-- {
			nbr[j], nbr[j-1] = nbr[j-1], nbr[j]
			edge[j], edge[j-1] = edge[j-1], edge[j]
		}
	}
}

// N is the number of nodes.
func (g *Graph) N() int { return len(g.off) - 1 }

// M is the number of edges.
func (g *Graph) M() int { return len(g.ends) }

// Neighbors returns p's neighbours in increasing id order. The slice must
// not be modified.
func (g *Graph) Neighbors(p proc.ID) []proc.ID { return g.nbr[g.off[p]:g.off[p+1]] }

// Edges returns the ids of p's incident edges, parallel to Neighbors(p).
func (g *Graph) Edges(p proc.ID) []proc.ResID { return g.edge[g.off[p]:g.off[p+1]] }

// Degree is the number of p's neighbours.
func (g *Graph) Degree(p proc.ID) int { return int(g.off[p+1] - g.off[p]) }

// MaxDegree is δ, the largest degree.
func (g *Graph) MaxDegree() int {
	d := 0
	for p := 0; p < g.N(); p++ {
		d = max(d, g.Degree(proc.ID(p)))
	}
	return d
}

// Ends returns the endpoints of edge e, smaller id first.
func (g *Graph) Ends(e proc.ResID) (proc.ID, proc.ID) { return g.ends[e][0], g.ends[e][1] }

// EdgeBetween returns the edge joining p and q, if any.
func (g *Graph) EdgeBetween(p, q proc.ID) (proc.ResID, bool) {
	nb := g.Neighbors(p)
	if i, ok := slices.BinarySearch(nb, q); ok {
		return g.Edges(p)[i], true
	}
	return 0, false
}

// Distances returns the hop distance from the nearest of srcs to every
// node, -1 where none reaches. Sources outside the graph are ignored.
func (g *Graph) Distances(srcs ...proc.ID) []int32 {
	d := make([]int32, g.N())
	for i := range d {
		d[i] = -1
	}
	var queue []proc.ID
	for _, s := range srcs {
		if s >= 0 && int(s) < len(d) && d[s] < 0 {
			d[s] = 0
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range g.Neighbors(p) {
			if d[q] < 0 {
				d[q] = d[p] + 1
				queue = append(queue, q)
			}
		}
	}
	return d
}

// Connected reports whether every node is reachable from node 0.
func (g *Graph) Connected() bool {
	if g.N() == 0 {
		return true
	}
	return !slices.Contains(g.Distances(0), -1)
}
