package sim_test

import (
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/sim"
)

// BenchmarkHygienicRing measures the simulator's hot path: hygienic dining
// philosophers on a large ring with no sinks. It reports delivered messages
// per second and bytes per simulated process.
func BenchmarkHygienicRing(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		b.Run("ring"+itoa(n), func(b *testing.B) {
			g, err := graph.Parse("ring:"+itoa(n), nil)
			if err != nil {
				b.Fatal(err)
			}
			pb := algo.DiningProblem(g)
			cfg := sim.Config{Seed: 1, Net: sim.Network{Delay: dist.Uniform(1, 20)}, Work: app.Workload{Think: dist.Exp(40), CS: dist.Uniform(5, 15)}}
			b.ReportAllocs()
			b.ResetTimer()
			var delivered int64
			for i := 0; i < b.N; i++ {
				procs, _ := hygienic.Algorithm.Build(pb)
				cfg.Requests = 10 * n
				res, err := sim.Run(cfg, pb, procs)
				if err != nil {
					b.Fatal(err)
				}
				delivered += res.Delivered
			}
			b.ReportMetric(float64(delivered)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
