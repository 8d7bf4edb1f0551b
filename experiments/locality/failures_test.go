package locality

import (
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/proc"
)

func TestOrientedLine(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		up := randomOrientation(1+rnd.IntN(30), rnd.Float64(), rnd)
		g, id, err := orientedLine(up)
		if err != nil {
			t.Fatal(err)
		}
		for i, u := range up {
			if _, ok := g.EdgeBetween(id[i], id[i+1]); !ok {
				t.Fatalf("positions %d and %d are not joined", i, i+1)
			}
			if (id[i+1] > id[i]) != u {
				t.Fatalf("edge %d: up=%v but ids %d, %d", i, u, id[i], id[i+1])
			}
		}
	}
}

func TestSpiderAndStar(t *testing.T) {
	g, c, err := spider(4, 3, true, rand.New(rand.NewPCG(3, 4)))
	if err != nil || g.N() != 17 || c != 0 || g.Degree(c) != 4 {
		t.Fatalf("spider: n=%d centre %d degree %d err %v", g.N(), c, g.Degree(c), err)
	}
	for _, b := range g.Neighbors(c) {
		if g.Degree(b) != 4 {
			t.Fatalf("leg %d has degree %d, want 4", b, g.Degree(b))
		}
	}
	s, c, err := highCentreStar(5, 2)
	if err != nil || s.N() != 16 || c != 15 || s.Degree(c) != 5 {
		t.Fatalf("star: n=%d centre %d err %v", s.N(), c, err)
	}
}

func TestProbe(t *testing.T) {
	p := probe{P: 2, After: 10}
	for _, e := range []proc.Event{
		{Time: 5, Kind: proc.EvEnter, P: 2}, {Time: 8, Kind: proc.EvExit, P: 2},
		{Time: 12, Kind: proc.EvEnter, P: 1}, {Time: 20, Kind: proc.EvEnter, P: 2}, {Time: 21, Kind: proc.EvExit, P: 2},
		{Time: 30, Kind: proc.EvEnter, P: 2}, {Time: 35, Kind: proc.EvExit, P: 2},
	} {
		p.Event(e)
	}
	if at, ok := p.WhileEating(); !ok || at != 31 {
		t.Errorf("WhileEating = %d, %v; want 31 (the first critical section of more than a tick)", at, ok)
	}
	if at, ok := p.AtThreshold(); !ok || at != 20 {
		t.Errorf("AtThreshold = %d, %v; want 20", at, ok)
	}
}
