package explore

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/allot-dev/allot/proc"
)

// The bounded liveness check: "every request is answered on every fair
// path". With a bounded number of requests per user every infinite run
// ends in a cycle of the finite state graph, and on a cycle no user's
// phase changes (a request or an answer moves a user's counters forward,
// for good). A request stays open for ever on a fair path exactly when
// some cyclic component of the graph, in which the user waits throughout,
// is fair: weak fairness, every input (a message, a timer, a wake-up)
// enabled in every state of the component is taken on one of its
// transitions — the run that goes round the whole component for ever then
// delivers everything it keeps enabled. (A smaller cycle inside the
// component enables at least as much and takes no more, so if the whole
// component is unfair, every cycle in it is.) Crashes are never owed: a
// process need not crash. Runs that reach no cycle end in a state with no
// enabled input, judged as a deadlock.

type lasso struct {
	kind, what string
	at         int32    // the state the cycle starts from
	loop       []uint64 // the cycle's inputs
	loopAt     int      // the step at which the loop starts
}

// fairCycles finds the cyclic components, counts them, and returns the
// first fair one on which a live user waits (nearest the initial state).
func (x *Explorer) fairCycles(g *graph, res *Result) *lasso {
	n := len(g.parent)
	// Transitions are recorded in expansion order, which is id order.
	off := make([]int32, n+1)
	for _, s := range g.src {
		off[s+1]++
	}
	for i := range n {
		off[i+1] += off[i]
	}
	comps := tarjan(n, off, g.dst)
	crash := map[uint64]bool{}
	for _, p := range x.cfg.Crash {
		crash[(&state{}).label(choice{kind: inCrash, p: p})] = true
	}
	var best *lasso
	in := make([]bool, n)
	for _, c := range comps {
		if len(c) == 1 {
			v := c[0]
			if !slices.Contains(g.dst[off[v]:off[v+1]], v) {
				continue
			}
		}
		res.Cycles++
		wait := ^uint64(0)
		entry := c[0]
		expanded := true
		for _, v := range c {
			wait &= g.wait[v]
			entry = min(entry, v)
			expanded = expanded && g.done[v]
		}
		if wait == 0 || !expanded {
			continue
		}
		for _, v := range c {
			in[v] = true
		}
		enabled := map[uint64]int{}
		taken := map[uint64]bool{}
		for _, v := range c {
			mine := map[uint64]bool{}
			for e := off[v]; e < off[v+1]; e++ {
				mine[g.lab[e]] = true
				if in[g.dst[e]] {
					taken[g.lab[e]] = true
				}
			}
			for l := range mine { // any order: it counts
				enabled[l]++
			}
		}
		fair := true
		need := map[uint64]bool{}
		for l, k := range enabled { // any order: a set, and an AND
			if k == len(c) && !crash[l] {
				need[l] = true
				fair = fair && taken[l]
			}
		}
		if !fair {
			res.Unfair++
		} else if best == nil || entry < best.at {
			var users []proc.ID
			for w := wait; w != 0; w &= w - 1 {
				users = append(users, proc.ID(bits.TrailingZeros64(w)))
			}
			best = &lasso{kind: Livelock, what: fmt.Sprintf("users %v wait for ever on a fair cycle of %d states", users, len(c)), at: entry, loop: fairLoop(g, off, in, entry, need)}
		}
		for _, v := range c {
			in[v] = false
		}
	}
	if best == nil {
		return nil
	}
	best.loopAt = len(x.pathTo(g, best.at))
	if len(x.cfg.Crash) > 0 {
		// With crashes the starved users are judged by the failure locality.
		s, _, err := x.replay(x.pathTo(g, best.at), nil)
		if err != nil {
			return nil
		}
		var starved []proc.ID
		for u := range 64 {
			if g.wait[best.at]&(1<<u) != 0 {
				starved = append(starved, proc.ID(u))
			}
		}
		kind, what := x.judgeStarved(s.chk, starved, res, "a fair cycle")
		if kind == "" {
			return nil
		}
		best.kind, best.what = kind, what
	}
	return best
}

// fairLoop is a closed walk from v inside the component marked in that
// is fair on its own: it takes every input in need (enabled in every state
// of the component) and passes through every state, so every other input
// is disabled somewhere on it. Repeated for ever, it is a fair run.
func fairLoop(g *graph, off []int32, in []bool, v int32, need map[uint64]bool) []uint64 {
	var loop []uint64
	cur := v
	seen := map[int32]bool{v: true}
	walk := func(to int32) {
		if to == cur {
			return
		}
		p := pathWithin(g, off, in, cur, to)
		for _, e := range p {
			loop = append(loop, g.lab[e])
			seen[g.dst[e]] = true
		}
		cur = to
	}
	// One transition per input in need, in a deterministic order.
	var edges []int32
	done := map[uint64]bool{}
	for u := range in {
		if !in[u] {
			continue
		}
		for e := off[u]; e < off[u+1]; e++ {
			if l := g.lab[e]; need[l] && !done[l] && in[g.dst[e]] {
				done[l] = true
				edges = append(edges, e)
			}
		}
	}
	for _, e := range edges {
		walk(g.src[e])
		loop = append(loop, g.lab[e])
		cur = g.dst[e]
		seen[cur] = true
	}
	for u := range in {
		if in[u] && !seen[int32(u)] {
			walk(int32(u))
		}
	}
	if len(loop) == 0 { // nothing in need, one state: its shortest cycle
		for _, e := range pathWithin(g, off, in, v, v) {
			loop = append(loop, g.lab[e])
		}
	}
	walk(v)
	return loop
}

// pathWithin is a shortest path (transition indices) from a to b inside
// the component marked in; from a to a it is a shortest cycle.
func pathWithin(g *graph, off []int32, in []bool, a, b int32) []int32 {
	if a == b {
		// A cycle: a shortest path from a successor back to a.
		best := []int32(nil)
		for e := off[a]; e < off[a+1]; e++ {
			if w := g.dst[e]; in[w] {
				if w == a {
					return []int32{e}
				}
				if p := pathWithin(g, off, in, w, a); best == nil || len(p)+1 < len(best) {
					best = append([]int32{e}, p...)
				}
			}
		}
		return best
	}
	prev := map[int32]int32{a: -1}
	queue := []int32{a}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for e := off[u]; e < off[u+1]; e++ {
			w := g.dst[e]
			if _, ok := prev[w]; ok || !in[w] {
				continue
			}
			prev[w] = e
			if w == b {
				var p []int32
				for x := b; x != a; x = g.src[prev[x]] {
					p = append(p, prev[x])
				}
				slices.Reverse(p)
				return p
			}
			queue = append(queue, w)
		}
	}
	return nil
}

// tarjan returns the strongly connected components of the graph with
// adjacency dst[off[v]:off[v+1]], iteratively (the graph may be deep).
func tarjan(n int, off, dst []int32) [][]int32 {
	index := make([]int32, n)
	low := make([]int32, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int32
	var comps [][]int32
	type frame struct{ v, e int32 }
	var call []frame
	next := int32(0)
	for root := range int32(n) {
		if index[root] >= 0 {
			continue
		}
		call = append(call, frame{root, off[root]})
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		on[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.e < off[v+1] {
				w := dst[f.e]
				f.e++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					on[w] = true
					call = append(call, frame{w, off[w]})
				} else if on[w] {
					low[v] = min(low[v], index[w])
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] == index[v] {
				var c []int32
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					on[w] = false
					c = append(c, w)
					if w == v {
						break
					}
				}
				if len(c) > 1 || slices.Contains(dst[off[v]:off[v+1]], v) {
					comps = append(comps, c)
				}
			}
		}
	}
	return comps
}
