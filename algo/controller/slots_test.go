package controller

import (
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// slotTree is the tree the service runs a quota on (service/instance.go's
// tree, graph.Blocks): nodes × slots users, each node's first slot the hub
// of its others, the hubs children of user 0.
func slotTree(t *testing.T, nodes, slots int) *graph.Graph {
	t.Helper()
	g, err := graph.Blocks(nodes*slots, slots)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// crossCount counts the messages between users of different nodes (the
// tree's construction left out): the ones that cross the network.
type crossCount struct {
	slots      proc.ID
	all, cross int64
}

func (c *crossCount) Event(e proc.Event) {
	if e.Kind != proc.EvSend || e.Msg == "explore" || e.Msg == "ack" {
		return
	}
	c.all++
	if e.P/c.slots != e.Peer/c.slots {
		c.cross++
	}
}

// TestServiceQuotaChoice measures the service's quota metric — messages a
// permit, those between nodes, and the permits left unissued when the
// budget runs out — for the catalogue's controller (over BASIC, what the
// service runs) and the modified controller over MAIN, on the service's
// tree (16 slots a node, every slot asking until the budget is gone). The
// service keeps controller: it sends fewer messages, across nodes too,
// and leaves no more permits unissued.
func TestServiceQuotaChoice(t *testing.T) {
	const slots, m, w, seeds = 16, 10000, 100, 3
	for _, nodes := range []int{3, 7} {
		g := slotTree(t, nodes, slots)
		var per [2]struct{ all, cross, left float64 }
		for k, a := range []algo.Algorithm{Algorithm, ModifiedMain} {
			for seed := uint64(1); seed <= seeds; seed++ {
				pb := &algo.Problem{Kind: algo.Quota, Users: g.N(), Graph: g, Budget: m, Waste: w}
				ps, err := a.Build(pb)
				if err != nil {
					t.Fatal(err)
				}
				q := &check.Quota{Budget: m, Waste: w}
				cc := &crossCount{slots: slots}
				res, err := sim.Run(sim.Config{Seed: seed, Net: sim.Network{Delay: dist.Uniform(1, 10)}, TraceMessages: true,
					Work: app.Workload{Think: dist.Exp(20), PerUser: (3*m/2 + g.N() - 1) / g.N()}, Sink: proc.Sinks{q, cc}}, pb, ps)
				if err != nil {
					t.Fatal(err)
				}
				q.Finish()
				if !q.OK() || !res.Quiescent {
					t.Fatalf("%s, %d nodes, seed %d: %v", a.Name, nodes, seed, q.First)
				}
				per[k].all += float64(cc.all) / float64(q.Permits) / seeds
				per[k].cross += float64(cc.cross) / float64(q.Permits) / seeds
				per[k].left += float64(m-q.Permits) / seeds
			}
		}
		t.Logf("%d nodes, M=%d, W=%d: controller %.2f messages a permit (%.2f between nodes), %.1f unissued; controller-modified-main %.2f (%.2f), %.1f",
			nodes, m, w, per[0].all, per[0].cross, per[0].left, per[1].all, per[1].cross, per[1].left)
		if per[0].all > per[1].all || per[0].cross > per[1].cross || per[0].left > per[1].left {
			t.Errorf("%d nodes: controller no longer the better on the service's tree", nodes)
		}
	}
}
