package graph

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/allot-dev/allot/proc"
)

// Specs lists the graph spec forms Parse accepts.
const Specs = "ring:N line:N grid:RxC complete:N star:N tree:N:FANOUT random:N:P"

// MaxNodes and MaxEdges bound the size of a spec, to turn a typo into an
// error instead of an out-of-memory crash. Size tells a spec's size before
// anything is built.
const (
	MaxNodes = 50_000_000
	MaxEdges = 100_000_000
)

// spec is a graph spec, parsed and checked.
type spec struct {
	name       string
	n          int // nodes
	rows, cols int // grid
	fanout     int // tree
	p          float64
}

// edges is the spec's edge count (for random graphs, its expectation).
func (s spec) edges() float64 {
	n := float64(s.n)
	switch s.name {
	case "ring":
		return n
	case "grid":
		r, c := float64(s.rows), float64(s.cols)
		return r*(c-1) + c*(r-1)
	case "complete":
		return n * (n - 1) / 2
	case "random":
		return max(s.p*n*(n-1)/2, n-1)
	}
	return n - 1 // line, star, tree
}

func parseSpec(text string) (spec, error) {
	name, args, _ := strings.Cut(text, ":")
	bad := func(why string) (spec, error) {
		return spec{}, fmt.Errorf("bad graph %q: %s (want one of %s)", text, why, Specs)
	}
	parts := strings.Split(args, ":")
	nargs := map[string]int{"ring": 1, "line": 1, "grid": 1, "complete": 1, "star": 1, "tree": 2, "random": 2}
	want, ok := nargs[name]
	if !ok {
		return bad("unknown graph " + strconv.Quote(name))
	}
	if args == "" || len(parts) != want {
		return bad(fmt.Sprintf("%s takes %d argument(s)", name, want))
	}
	var numErr error
	num := func(s string, lo int) int {
		v, err := strconv.Atoi(s)
		switch {
		case numErr != nil:
		case errors.Is(err, strconv.ErrRange) || err == nil && v > MaxNodes:
			_, numErr = bad(fmt.Sprintf("%s nodes is more than %d", s, MaxNodes))
		case err != nil:
			_, numErr = bad(fmt.Sprintf("%q is not a whole number", s))
		case v < lo:
			_, numErr = bad(fmt.Sprintf("%d is below the minimum %d", v, lo))
		}
		return v
	}
	sp := spec{name: name}
	switch name {
	case "ring":
		sp.n = num(parts[0], 3)
	case "grid":
		rs, cs, ok := strings.Cut(parts[0], "x")
		if !ok {
			return bad("grid wants RxC")
		}
		sp.rows, sp.cols = num(rs, 1), num(cs, 1)
		if numErr == nil && (sp.rows*sp.cols < 2 || sp.rows*sp.cols > MaxNodes) {
			return bad(fmt.Sprintf("%dx%d nodes is out of range", sp.rows, sp.cols))
		}
		sp.n = sp.rows * sp.cols
	case "tree":
		sp.n, sp.fanout = num(parts[0], 2), num(parts[1], 1)
	case "random":
		sp.n = num(parts[0], 2)
		p, err := strconv.ParseFloat(parts[1], 64)
		if err != nil || !(p >= 0 && p <= 1) {
			return bad(fmt.Sprintf("probability %q is not in [0,1]", parts[1]))
		}
		sp.p = p
		if numErr == nil && sp.n > 100_000 {
			return bad("random graphs are limited to 100000 nodes")
		}
	default: // line, complete, star
		sp.n = num(parts[0], 2)
	}
	if numErr != nil {
		return spec{}, numErr
	}
	if m := sp.edges(); m > MaxEdges {
		return bad(fmt.Sprintf("about %.3g edges is more than %d", m, MaxEdges))
	}
	return sp, nil
}

// Size is how many nodes and edges (for random graphs, in expectation) the
// spec names, found without building it. Its errors are Parse's.
func Size(text string) (nodes int, edges float64, err error) {
	sp, err := parseSpec(text)
	return sp.n, sp.edges(), err
}

// Parse builds the graph a spec names:
//
//	ring:N         cycle on N ≥ 3 nodes
//	line:N         path on N ≥ 2 nodes
//	grid:RxC       R×C grid, 4-neighbour, no wrap-around
//	complete:N     every pair adjacent
//	star:N         node 0 joined to nodes 1..N-1
//	tree:N:F       complete F-ary tree on N nodes, node i's parent is (i-1)/F
//	random:N:P     Erdős–Rényi G(N, P), then forced connected: each component
//	               not containing node 0 is joined by one edge from its
//	               smallest node to a node drawn uniformly among those already
//	               connected. rnd draws both steps.
//
// rnd is used only by random specs.
func Parse(text string, rnd *rand.Rand) (*Graph, error) {
	sp, err := parseSpec(text)
	if err != nil {
		return nil, err
	}
	n := sp.n
	// The edge count is exact but for random graphs, where it is an
	// expectation: sized once, the list is never copied as it grows (on
	// ring:50000000, growing it by appends alone took 8 of the 12 s spent
	// parsing).
	size := int(sp.edges())
	if sp.name == "random" {
		size = min(size, 1<<20)
	}
	edges := make([][2]proc.ID, 0, size)
	add := func(a, b int) { edges = append(edges, [2]proc.ID{proc.ID(a), proc.ID(b)}) }
	switch sp.name {
	case "ring":
		for i := 0; i < n; i++ {
			add(i, (i+1)%n)
		}
	case "line":
		for i := 0; i+1 < n; i++ {
			add(i, i+1)
		}
	case "grid":
		r, c := sp.rows, sp.cols
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if j+1 < c {
					add(i*c+j, i*c+j+1)
				}
				if i+1 < r {
					add(i*c+j, (i+1)*c+j)
				}
			}
		}
	case "complete":
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				add(i, j)
			}
		}
	case "star":
		for i := 1; i < n; i++ {
			add(0, i)
		}
	case "tree":
		for i := 1; i < n; i++ {
			add((i-1)/sp.fanout, i)
		}
	case "random":
		if rnd == nil {
			return nil, fmt.Errorf("bad graph %q: a random graph needs a random source", text)
		}
		edges = randomEdges(n, sp.p, rnd)
	}
	return New(n, edges)
}

// randomEdges draws G(n,p) and joins its components (see Parse).
func randomEdges(n int, p float64, rnd *rand.Rand) [][2]proc.ID {
	var edges [][2]proc.ID
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(a, b int) { parent[find(a)] = find(b) }
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if rnd.Float64() < p {
				edges = append(edges, [2]proc.ID{proc.ID(i), proc.ID(j)})
				union(i, j)
			}
		}
	}
	// Components in order of their smallest node; node 0's comes first.
	var joined []int
	seen := make(map[int]bool)
	for i := 0; i < n; i++ {
		r := find(i)
		if i == 0 {
			seen[r] = true
		}
		if !seen[r] {
			seen[r] = true
			to := joined[rnd.IntN(len(joined))]
			edges = append(edges, [2]proc.ID{proc.ID(to), proc.ID(i)})
		}
		joined = append(joined, i)
	}
	return edges
}
