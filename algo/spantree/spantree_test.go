package spantree

import (
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// node is a process that builds the tree and runs one wave.
type node struct {
	t    Node
	w    Wave
	root bool
	nbrs []proc.ID
	got  []uint8 // the ops of the broadcasts it saw
	sum  int64   // at the root: the wave's total
	done bool
}

type env struct {
	cur   proc.ID
	queue []envelope
	rnd   *rand.Rand
}

type envelope struct {
	from, to proc.ID
	m        proc.Message
}

func (e *env) Self() proc.ID               { return e.cur }
func (e *env) Now() proc.Time              { return 0 }
func (e *env) Rand() *rand.Rand            { return e.rnd }
func (e *env) After(proc.Time, proc.Timer) {}
func (e *env) Emit(proc.Event)             {}
func (e *env) Send(to proc.ID, m proc.Message) {
	e.queue = append(e.queue, envelope{e.cur, to, m})
}

// run delivers every message in a random order (unordered channels) until
// none is left.
func (e *env) run(nodes []*node) {
	for len(e.queue) > 0 {
		i := e.rnd.IntN(len(e.queue))
		m := e.queue[i]
		e.queue[i] = e.queue[len(e.queue)-1]
		e.queue = e.queue[:len(e.queue)-1]
		e.cur = m.to
		nd := nodes[m.to]
		if ok, _, built := nd.t.Handle(e, m.from, m.m); ok {
			if built {
				nd.w.Begin(e, &nd.t, 7, 0)
				if done, sum := nd.w.Ready(e, &nd.t, int64(m.to)+1); done {
					nd.sum, nd.done = sum, true
				}
			}
			continue
		}
		ok, b, done, sum := nd.w.Handle(e, &nd.t, m.from, m.m)
		if !ok {
			panic("unknown message")
		}
		if b != nil {
			nd.got = append(nd.got, b.Op)
			done, sum = nd.w.Ready(e, &nd.t, int64(m.to)+1)
		}
		if done {
			nd.sum, nd.done = sum, true
		}
	}
}

// TestTreeAndWave builds the tree on random graphs with random delivery
// orders, checks that it spans the graph with consistent depths, and that
// one wave reaches every node and sums every contribution at the root.
func TestTreeAndWave(t *testing.T) {
	for seed := range uint64(40) {
		rnd := rand.New(rand.NewPCG(seed, 5))
		g, err := graph.Parse([]string{"random:30:0.1", "line:12", "grid:4x4", "complete:7", "star:9"}[seed%5], rnd)
		if err != nil {
			t.Fatal(err)
		}
		nodes := make([]*node, g.N())
		e := &env{rnd: rnd}
		for p := range nodes {
			nodes[p] = &node{root: p == 0, nbrs: g.Neighbors(proc.ID(p))}
			e.cur = proc.ID(p)
			nodes[p].t.Start(e, nodes[p].nbrs, p == 0)
		}
		e.run(nodes)
		want := int64(g.N() * (g.N() + 1) / 2)
		if !nodes[0].done || nodes[0].sum != want || nodes[0].t.Size != g.N() {
			t.Fatalf("seed %d: done %v, sum %d (want %d), size %d", seed, nodes[0].done, nodes[0].sum, want, nodes[0].t.Size)
		}
		children := 0
		for p, nd := range nodes {
			children += len(nd.t.Children)
			if !nd.t.Complete || p > 0 && (len(nd.got) != 1 || nd.got[0] != 7) {
				t.Fatalf("seed %d: node %d complete %v, broadcasts %v", seed, p, nd.t.Complete, nd.got)
			}
			if p > 0 && nodes[nd.t.Parent].t.Depth != nd.t.Depth-1 {
				t.Fatalf("seed %d: node %d at depth %d, its parent at %d", seed, p, nd.t.Depth, nodes[nd.t.Parent].t.Depth)
			}
		}
		if children != g.N()-1 {
			t.Fatalf("seed %d: %d tree edges for %d nodes", seed, children, g.N())
		}
	}
}
