package explore

import "testing"

// BenchmarkRing4: hygienic on ring:4, two requests each, to completion.
func BenchmarkRing4(b *testing.B) {
	cfg := instance(b, "hygienic", ring4, 2)
	for b.Loop() {
		r, err := Run(cfg)
		if err != nil || !r.Complete || r.Violations > 0 {
			b.Fatal(err, r)
		}
		b.ReportMetric(float64(r.States), "states")
		b.ReportMetric(r.StatesPerSecond, "states/s")
	}
}
