package counter_test

import (
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/counter"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/sim"
)

// TestTwoMessagesPerHop: on a line every request costs two messages per
// link between its node and the root, so n users asking k times each cost
// k·n·(n−1) messages besides the tree's 2(n−1), and the counter is exact.
func TestTwoMessagesPerHop(t *testing.T) {
	const n, k = 30, 5
	g, err := graph.Parse("line:30", nil)
	if err != nil {
		t.Fatal(err)
	}
	pb := &algo.Problem{Kind: algo.Quota, Users: n, Graph: g, Budget: 100, Waste: 0}
	ps, err := counter.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	q := check.Quota{Budget: 100}
	res, err := sim.Run(sim.Config{Seed: 3, Net: sim.Network{Delay: dist.Uniform(1, 9)}, Work: app.Workload{Think: dist.Exp(10), PerUser: k}, Sink: &q}, pb, ps)
	if err != nil {
		t.Fatal(err)
	}
	q.Finish()
	if want := int64(k*n*(n-1) + 2*(n-1)); res.Messages != want {
		t.Errorf("%d messages, want %d", res.Messages, want)
	}
	if !q.OK() || q.Permits != 100 || q.Rejects != k*n-100 {
		t.Errorf("permits %d rejects %d: %v", q.Permits, q.Rejects, q.First)
	}
}
