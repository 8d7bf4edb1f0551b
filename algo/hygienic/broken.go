package hygienic

import (
	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Handover is hygienic with one rule broken: a node hands a requested fork
// over even while eating. It is not in the catalogue: it is the broken
// variant the suites keep to show that their exclusion checks can fail
// (the conformance suite, the explorer).
var Handover = algo.Algorithm{
	Name:    "hygienic/handover",
	Kind:    algo.Exclusive,
	Summary: "BROKEN on purpose: hygienic handing a fork over while eating",
	Build: func(pb *algo.Problem) ([]proc.Process, error) {
		ps, err := Build(pb)
		for i, p := range ps {
			ps[i] = greedy{p.(*Node)}
		}
		return ps, err
	},
}

// greedy is a node of Handover.
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
