package grpc_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/allot-dev/allot/proc"
	grpcnet "github.com/allot-dev/allot/transport/grpc"
	"github.com/allot-dev/allot/transport/transporttest"
)

// BenchmarkRoundTrip bounces a message between two processes on two nodes
// over loopback: one op is one round trip through the link layer (send,
// stream, receive, dispatch, handler), the figure every remote hop of an
// algorithm pays. Beside the wall time it reports the CPU both nodes
// spent per round trip (cpu-ns/op, user and system), which a loaded
// machine distorts far less.
func BenchmarkRoundTrip(b *testing.B) {
	for _, cr := range carriers {
		b.Run(cr.name, func(b *testing.B) { roundTrips(b, cr.mod) })
	}
}

func roundTrips(b *testing.B, mod func(int, *grpcnet.Config)) {
	c := newClusterWith(b, 2, mod)
	defer c.Close()
	back := make(chan struct{}, 1)
	if err := c.Register(1, func(from proc.ID, m proc.Message) {
		if err := c.Send(1, 0, m); err != nil {
			b.Error(err)
		}
	}); err != nil {
		b.Fatal(err)
	}
	if err := c.Register(0, func(proc.ID, proc.Message) { back <- struct{}{} }); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := cpuTime(b)
	for i := range b.N {
		if err := c.Send(0, 1, transporttest.Msg{From: 0, Seq: int32(i)}); err != nil {
			b.Fatal(err)
		}
		<-back
	}
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU the test process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
