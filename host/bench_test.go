package host_test

import (
	"context"
	"testing"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/host"
)

// BenchmarkRunHygienicRing measures the host's own overhead: hygienic on
// a ring of 64 with no delays, no think and no critical-section time, so
// every tick of waiting is the host's and the transport's (mailboxes,
// goroutine hand-offs, zero-delay timers).
func BenchmarkRunHygienicRing(b *testing.B) {
	g, err := graph.Parse("ring:64", nil)
	if err != nil {
		b.Fatal(err)
	}
	pb := algo.DiningProblem(g)
	var msgs, served int64
	var elapsed time.Duration
	for b.Loop() {
		procs, _ := hygienic.Build(pb)
		res, err := host.Run(context.Background(), host.RunConfig{Tick: time.Microsecond, Work: app.Workload{PerUser: 50}}, pb, procs)
		if err != nil || res.Stop != host.StopQuiescent {
			b.Fatalf("%v %v", res.Stop, err)
		}
		msgs += res.Messages
		served += int64(res.Served)
		elapsed += res.Elapsed
	}
	b.ReportMetric(float64(msgs)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(float64(served)/elapsed.Seconds(), "entries/s")
}
