package pool_test

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/pool"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/conformance"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

func TestSpanningTree(t *testing.T) {
	for _, c := range []struct {
		name   string
		n      int
		edges  [][2]proc.ID
		father []proc.ID
	}{
		// A path 0-5-3-1 (ids out of order): node 3's father is 5, not
		// its smaller neighbour 1.
		{"path", 6, [][2]proc.ID{{0, 5}, {5, 3}, {3, 1}, {0, 2}, {2, 4}}, []proc.ID{proc.None, 3, 0, 5, 2, 0}},
		// A ring 0-1-2-3-0: breadth first from 0, the edge 1-2 or 2-3
		// is left out; 2 is reached first from 1 (smaller id).
		{"ring", 4, [][2]proc.ID{{0, 1}, {1, 2}, {2, 3}, {3, 0}}, []proc.ID{proc.None, 0, 1, 0}},
	} {
		g, err := graph.New(c.n, c.edges)
		if err != nil {
			t.Fatal(err)
		}
		adj, father := pool.SpanningTree(g)
		if !slices.Equal(father, c.father) {
			t.Errorf("%s: fathers %v, want %v", c.name, father, c.father)
		}
		edges := 0
		for p, nb := range adj {
			for _, q := range nb {
				if _, ok := g.EdgeBetween(proc.ID(p), q); !ok {
					t.Errorf("%s: tree edge %d-%d is not in the graph", c.name, p, q)
				}
				edges++
			}
		}
		if edges != 2*(c.n-1) {
			t.Errorf("%s: %d tree edge ends, want %d", c.name, edges, 2*(c.n-1))
		}
	}
}

func TestBuildRejects(t *testing.T) {
	g, _ := graph.Parse("line:4", nil)
	for _, pb := range []*algo.Problem{
		{Kind: algo.Exclusive, Users: 4, Graph: g, Units: 1},
		{Kind: algo.Pool, Users: 4, Graph: g, Units: 0},
		{Kind: algo.Pool, Users: 4, Graph: g, Units: 4}, // the paper needs n > R
		{Kind: algo.Pool, Users: 4, Units: 1},
	} {
		if _, err := pool.Build(pb); err == nil {
			t.Errorf("%+v: built", *pb)
		}
	}
}

// TestSafeAndLiveOnRandomInstances draws graphs, pool sizes, delays and
// seeds beyond the suite's fixed grid.
func TestSafeAndLiveOnRandomInstances(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(2, 24).Draw(rt, "n")
		spec := fmt.Sprintf("random:%d:%.2f", n, rapid.Float64Range(0, 0.5).Draw(rt, "p"))
		c := conformance.Case{
			Name:  spec,
			Units: rapid.IntRange(1, n-1).Draw(rt, "units"),
			Seed:  rapid.Uint64().Draw(rt, "seed"),
			Delay: dist.Uniform(1, proc.Time(rapid.IntRange(1, 40).Draw(rt, "maxdelay"))),
		}
		if why := conformance.RunPoolCase(pool.Algorithm, c); why != "" {
			rt.Fatalf("%s", conformance.Failure{Case: c, Why: why})
		}
	})
}

type grants struct{}

func (grants) Event(e proc.Event) {
	if e.Kind == proc.EvGrant {
		fmt.Printf("t=%d node %d uses unit %d\n", e.Time, e.P, e.Unit)
	}
}

// A pool of one unit on a line of three nodes, every node asking once at
// tick 0: the unit starts at node 0 and travels down the line.
func ExampleBuild() {
	g, _ := graph.Parse("line:3", nil)
	pb := &algo.Problem{Kind: algo.Pool, Users: g.N(), Graph: g, Units: 1}
	procs, err := pool.Build(pb)
	if err != nil {
		panic(err)
	}
	res, _ := sim.Run(sim.Config{Net: sim.Network{Delay: dist.Const(1)}, Work: app.Workload{CS: dist.Const(2), PerUser: 1}, Sink: grants{}}, pb, procs)
	fmt.Println(res.Served, "grants,", res.Messages, "messages")
	// Output:
	// t=0 node 0 uses unit 0
	// t=3 node 1 uses unit 0
	// t=6 node 2 uses unit 0
	// 3 grants, 4 messages
}
