package modular

import (
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/workload"
)

// benchRun simulates 40 users over 30 resources asking for 2..4 of them,
// the acceptance workload, and reports simulated messages per second.
func benchRun(b *testing.B, sub algo.Algorithm) {
	d := workload.Dynamic{Users: 40, Resources: 30, MinDemand: 2, MaxDemand: 4}
	var msgs int64
	for i := 0; i < b.N; i++ {
		pb, next, err := d.Problem(rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			b.Fatal(err)
		}
		procs, err := For(sub).Build(pb)
		if err != nil {
			b.Fatal(err)
		}
		res, err := sim.Run(sim.Config{Seed: uint64(i), Requests: 2000, Net: sim.Network{Delay: dist.Uniform(1, 20)}, Work: app.Workload{Think: dist.Exp(40), CS: dist.Uniform(5, 15), Next: next}}, pb, procs)
		if err != nil {
			b.Fatal(err)
		}
		msgs += res.Messages
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}

func BenchmarkModularCentral(b *testing.B)  { benchRun(b, central.Algorithm) }
func BenchmarkModularHygienic(b *testing.B) { benchRun(b, hygienic.Algorithm) }
