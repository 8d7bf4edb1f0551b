package graph

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"allot/proc"
)

// Specs lists the graph spec forms Parse accepts.
const Specs = "ring:N line:N grid:RxC complete:N star:N tree:N:FANOUT random:N:P"

// MaxNodes bounds the node count of a spec, to turn a typo into an error
// instead of an out-of-memory crash.
const MaxNodes = 50_000_000

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
func Parse(spec string, rnd *rand.Rand) (*Graph, error) {
	name, args, _ := strings.Cut(spec, ":")
	bad := func(why string) error { return fmt.Errorf("bad graph %q: %s (want one of %s)", spec, why, Specs) }
	parts := strings.Split(args, ":")
	num := func(s string, lo int) (int, error) {
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0, bad(fmt.Sprintf("%q is not a whole number", s))
		}
		if v < lo {
			return 0, bad(fmt.Sprintf("%d is below the minimum %d", v, lo))
		}
		if v > MaxNodes {
			return 0, bad(fmt.Sprintf("%d nodes is more than %d", v, MaxNodes))
		}
		return v, nil
	}
	nargs := map[string]int{"ring": 1, "line": 1, "grid": 1, "complete": 1, "star": 1, "tree": 2, "random": 2}
	want, ok := nargs[name]
	if !ok {
		return nil, bad("unknown graph " + strconv.Quote(name))
	}
	if args == "" || len(parts) != want {
		return nil, bad(fmt.Sprintf("%s takes %d argument(s)", name, want))
	}
	var edges [][2]proc.ID
	add := func(a, b int) { edges = append(edges, [2]proc.ID{proc.ID(a), proc.ID(b)}) }
	var n int
	var err error
	switch name {
	case "ring":
		if n, err = num(parts[0], 3); err != nil {
			return nil, err
		}
		edges = make([][2]proc.ID, 0, n)
		for i := 0; i < n; i++ {
			add(i, (i+1)%n)
		}
	case "line":
		if n, err = num(parts[0], 2); err != nil {
			return nil, err
		}
		for i := 0; i+1 < n; i++ {
			add(i, i+1)
		}
	case "grid":
		rs, cs, ok := strings.Cut(parts[0], "x")
		if !ok {
			return nil, bad("grid wants RxC")
		}
		r, err := num(rs, 1)
		if err != nil {
			return nil, err
		}
		c, err := num(cs, 1)
		if err != nil {
			return nil, err
		}
		if r*c < 2 || r*c > MaxNodes {
			return nil, bad(fmt.Sprintf("%dx%d nodes is out of range", r, c))
		}
		n = r * c
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
		if n, err = num(parts[0], 2); err != nil {
			return nil, err
		}
		if n > 5000 {
			return nil, bad("complete graphs are limited to 5000 nodes")
		}
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				add(i, j)
			}
		}
	case "star":
		if n, err = num(parts[0], 2); err != nil {
			return nil, err
		}
		for i := 1; i < n; i++ {
			add(0, i)
		}
	case "tree":
		if n, err = num(parts[0], 2); err != nil {
			return nil, err
		}
		f, err := num(parts[1], 1)
		if err != nil {
			return nil, err
		}
		for i := 1; i < n; i++ {
			add((i-1)/f, i)
		}
	case "random":
		if n, err = num(parts[0], 2); err != nil {
			return nil, err
		}
		p, err := strconv.ParseFloat(parts[1], 64)
		if err != nil || p < 0 || p > 1 {
			return nil, bad(fmt.Sprintf("probability %q is not in [0,1]", parts[1]))
		}
		if n > 100_000 {
			return nil, bad("random graphs are limited to 100000 nodes")
		}
		if rnd == nil {
			return nil, bad("random graph needs a random source")
		}
		edges = randomEdges(n, p, rnd)
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
