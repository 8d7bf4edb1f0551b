package graph

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/allot-dev/allot/proc"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		spec      string
		n, m, deg int
	}{
		{"ring:5", 5, 5, 2},
		{"line:4", 4, 3, 2},
		{"grid:3x4", 12, 17, 4},
		{"complete:5", 5, 10, 4},
		{"star:6", 6, 5, 5},
		{"tree:7:2", 7, 6, 3},
		{"random:20:0", 20, 19, 0}, // no random edge: the joining edges make a tree
	} {
		g, err := Parse(c.spec, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		if g.N() != c.n || g.M() != c.m {
			t.Errorf("%s: n=%d m=%d, want %d %d", c.spec, g.N(), g.M(), c.n, c.m)
		}
		if c.deg > 0 && g.MaxDegree() != c.deg {
			t.Errorf("%s: δ=%d, want %d", c.spec, g.MaxDegree(), c.deg)
		}
		if !g.Connected() {
			t.Errorf("%s: not connected", c.spec)
		}
		// Edge ids and neighbours agree at both ends.
		for p := 0; p < g.N(); p++ {
			for i, q := range g.Neighbors(proc.ID(p)) {
				e := g.Edges(proc.ID(p))[i]
				a, b := g.Ends(e)
				if !(a == proc.ID(p) && b == q || b == proc.ID(p) && a == q) {
					t.Fatalf("%s: edge %d of %d-%d has ends %d-%d", c.spec, e, p, q, a, b)
				}
				if e2, ok := g.EdgeBetween(q, proc.ID(p)); !ok || e2 != e {
					t.Fatalf("%s: EdgeBetween(%d,%d) = %d,%v", c.spec, q, p, e2, ok)
				}
			}
		}
	}
}

func TestRandomGraphsAreConnectedAndSeeded(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		g, err := Parse("random:40:0.03", rand.New(rand.NewPCG(seed, 0)))
		if err != nil || !g.Connected() {
			t.Fatalf("seed %d: err %v, connected %v", seed, err, err == nil && g.Connected())
		}
	}
	a, _ := Parse("random:30:0.2", rand.New(rand.NewPCG(5, 0)))
	b, _ := Parse("random:30:0.2", rand.New(rand.NewPCG(5, 0)))
	if a.M() != b.M() {
		t.Fatal("same seed, different graphs")
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{"", "ring", "ring:2", "ring:x", "ring:-3", "grid:3", "grid:0x5", "tree:5", "random:10:1.5",
		"random:10", "hexagon:5", "line:1", "ring:5:5", "complete:100000", "ring:99999999999"} {
		if _, err := Parse(s, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestDistances(t *testing.T) {
	g, _ := Parse("line:5", nil)
	d := g.Distances(1)
	want := []int32{1, 0, 1, 2, 3}
	for i := range want {
		if d[i] != want[i] {
			t.Fatalf("distances from 1: %v, want %v", d, want)
		}
	}
}

func TestNewRejects(t *testing.T) {
	if _, err := New(3, [][2]proc.ID{{0, 0}}); err == nil {
		t.Error("self-loop accepted")
	}
	if _, err := New(3, [][2]proc.ID{{0, 1}, {1, 0}}); err == nil {
		t.Error("duplicate edge accepted")
	}
	if _, err := New(3, [][2]proc.ID{{0, 3}}); err == nil {
		t.Error("edge outside the graph accepted")
	}
}

// TestParseCopiesNothing keeps Parse of a large spec to one allocation of
// each table: the edge list sized once (appends that grow it copy it over
// and over: ring:50000000 spent 8 s there) and no node's neighbours sorted
// again when they come in order (complete:5000 sorted 5000 lists of 4999).
func TestParseCopiesNothing(t *testing.T) {
	const n = 2_000_000 // above the 1<<20 edges a list once started with
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	g, err := Parse(fmt.Sprintf("ring:%d", n), nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	// The edge list, then the graph's tables and the fill cursors.
	want := uint64(n*8 + (n+1)*4 + 2*n*4 + 2*n*4 + n*8 + n*4)
	if got := after.TotalAlloc - before.TotalAlloc; got > want+want/10 {
		t.Errorf("Parse(ring:%d) allocated %d bytes, want about %d", n, got, want)
	}
	runtime.KeepAlive(g)
	if allocs := testing.AllocsPerRun(3, func() { _, _ = Parse("complete:200", nil) }); allocs > 10 {
		t.Errorf("Parse(complete:200) made %.0f allocations, want a few (none per node)", allocs)
	}
}

// TestBlocks: users in blocks, each a star round its first user, the
// first users a star round user 0; a tree (users − 1 edges, connected);
// sizes that are not positive are refused.
func TestBlocks(t *testing.T) {
	g, err := Blocks(7, 3) // blocks {0,1,2} {3,4,5} {6}
	if err != nil {
		t.Fatal(err)
	}
	want := map[proc.ID][]proc.ID{0: {1, 2, 3, 6}, 1: {0}, 2: {0}, 3: {0, 4, 5}, 4: {3}, 5: {3}, 6: {0}}
	for u, ns := range want {
		if got := g.Neighbors(u); !slices.Equal(got, ns) {
			t.Errorf("neighbours of %d: %v, want %v", u, got, ns)
		}
	}
	if g.M() != 6 || !g.Connected() {
		t.Errorf("%d edges, connected %v: not a tree on 7 users", g.M(), g.Connected())
	}
	for _, c := range [][2]int{{0, 3}, {3, 0}, {-1, 2}} {
		if _, err := Blocks(c[0], c[1]); err == nil {
			t.Errorf("Blocks(%d, %d): no error", c[0], c[1])
		}
	}
}
