package hygienic

import (
	"strings"
	"testing"

	"allot/algo"
	"allot/conformance"
	"allot/proc"
)

// greedy is hygienic with one rule broken: it hands a requested fork over
// even while eating.
type greedy struct{ *Node }

func (g greedy) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if _, ok := m.(Token); ok && g.state == eating {
		i := g.index(from)
		if edge := g.edge(); edge[i]&hasFork != 0 {
			edge[i] = 0
			g.forks--
			env.Send(from, Fork{})
			return
		}
	}
	g.Node.Deliver(env, from, m)
}

func TestSuiteCatchesForkHandedOverWhileEating(t *testing.T) {
	a := algo.Algorithm{Name: "hygienic-greedy", Kind: algo.Exclusive, Build: func(pb *algo.Problem) ([]proc.Process, error) {
		ps, err := Build(pb)
		for i, p := range ps {
			ps[i] = greedy{p.(*Node)}
		}
		return ps, err
	}}
	fails := conformance.Check(a, conformance.Cases(1))
	if len(fails) == 0 || !strings.Contains(fails[0].Why, "exclusion") {
		t.Fatalf("broken hygienic not caught: %v", fails)
	}
}
