package backend

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Baseline is what the machine costs before any lock service: a loopback
// TCP round trip between two processes, a unary gRPC call between two
// processes (gRPC's health Check, nothing behind it: the floor of every
// unary call of a gRPC API), a message and its answer on a gRPC stream
// (the floor of a call on allot's Calls stream), and a 4 KiB append made durable
// (what a write-ahead log pays a commit).
type Baseline struct {
	RTTP50us  float64 `json:"rtt_p50_us"`
	RTTP99us  float64 `json:"rtt_p99_us"`
	GRPCP50us float64 `json:"grpc_unary_p50_us"`
	GRPCP99us float64 `json:"grpc_unary_p99_us"`
	// StreamP50us: a message and its answer on an open gRPC stream
	// between two processes (an echo), what a call on allot's Calls
	// stream costs with nothing behind it.
	StreamP50us float64 `json:"grpc_stream_p50_us,omitempty"`
	StreamP99us float64 `json:"grpc_stream_p99_us,omitempty"`
	FsyncP50us  float64 `json:"fsync_p50_us"`
	FsyncP99us  float64 `json:"fsync_p99_us"`
}

// EchoFlag is the flag that makes the benchmark's executable the
// baseline's echo server.
const EchoFlag = "-serve-echo"

// ServeEcho is the echo server process: it prints "READY port grpc-port",
// echoes every connection to port and serves gRPC's health service on
// grpc-port, until ctx ends.
func ServeEcho(ctx context.Context, stdout io.Writer) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	srv.RegisterService(&echoDesc, nil)
	go srv.Serve(gl)
	go func() {
		<-ctx.Done()
		l.Close()
		srv.Stop()
	}()
	fmt.Fprintf(stdout, "READY %d %d\n", l.Addr().(*net.TCPAddr).Port, gl.Addr().(*net.TCPAddr).Port)
	for {
		c, err := l.Accept()
		if err != nil {
			return nil
		}
		go func() {
			defer c.Close()
			_, _ = io.Copy(c, c)
		}()
	}
}

// MeasureBaseline measures the round trip (iters ping-pongs after a
// warm-up) and the durable append (in dir).
func MeasureBaseline(env Env, dir string, iters int) (Baseline, error) {
	var b Baseline
	ch, err := env.Procs.start("echo", filepath.Join(dir, "echo.log"), "READY", 20*time.Second, env.Self, EchoFlag)
	if err != nil {
		return b, err
	}
	defer ch.stop(10 * time.Second)
	ports := strings.Fields(strings.TrimPrefix(ch.ready, "READY"))
	if len(ports) != 2 {
		return b, fmt.Errorf("the echo server said %q, want READY and two ports", ch.ready)
	}
	lats, err := pingPong("127.0.0.1:"+ports[0], iters/10, iters)
	if err != nil {
		return b, err
	}
	b.RTTP50us, b.RTTP99us = quantileUs(lats, 0.5), quantileUs(lats, 0.99)
	if lats, err = grpcCalls("127.0.0.1:"+ports[1], iters/10, iters/2); err != nil {
		return b, err
	}
	b.GRPCP50us, b.GRPCP99us = quantileUs(lats, 0.5), quantileUs(lats, 0.99)
	if lats, err = streamEchoes("127.0.0.1:"+ports[1], iters/10, iters/2); err != nil {
		return b, err
	}
	b.StreamP50us, b.StreamP99us = quantileUs(lats, 0.5), quantileUs(lats, 0.99)
	f, err := os.Create(filepath.Join(dir, "fsync-probe"))
	if err != nil {
		return b, err
	}
	defer f.Close()
	page := make([]byte, 4096)
	const n, warm = 300, 20
	var fl []time.Duration
	for i := range n + warm {
		t0 := time.Now()
		if _, err := f.Write(page); err != nil {
			return b, err
		}
		if err := syscall.Fdatasync(int(f.Fd())); err != nil {
			return b, err
		}
		if i >= warm {
			fl = append(fl, time.Since(t0))
		}
	}
	slices.Sort(fl)
	b.FsyncP50us, b.FsyncP99us = quantileUs(fl, 0.5), quantileUs(fl, 0.99)
	return b, nil
}

func pingPong(addr string, warm, iters int) ([]time.Duration, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	out, in := []byte{'x'}, make([]byte, 1)
	lats := make([]time.Duration, 0, iters)
	for i := range warm + iters {
		t0 := time.Now()
		if _, err := c.Write(out); err != nil {
			return nil, err
		}
		if _, err := io.ReadFull(c, in); err != nil {
			return nil, err
		}
		if i >= warm {
			lats = append(lats, time.Since(t0))
		}
	}
	slices.Sort(lats)
	return lats, nil
}

// grpcCalls times unary health Checks, one at a time, on one connection.
func grpcCalls(addr string, warm, iters int) ([]time.Duration, error) {
	return timeGRPC(addr, warm, iters, func(ctx context.Context, cc *grpc.ClientConn) (func() error, error) {
		h := healthpb.NewHealthClient(cc)
		return func() error {
			_, err := h.Check(ctx, &healthpb.HealthCheckRequest{})
			return err
		}, nil
	})
}

// timeGRPC times warm+iters calls of the one that start makes on a
// connection to addr, one at a time, and returns the last iters sorted.
func timeGRPC(addr string, warm, iters int, start func(context.Context, *grpc.ClientConn) (func() error, error)) ([]time.Duration, error) {
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	call, err := start(ctx, cc)
	if err != nil {
		return nil, err
	}
	lats := make([]time.Duration, 0, iters)
	for i := range warm + iters {
		t0 := time.Now()
		if err := call(); err != nil {
			return nil, err
		}
		if i >= warm {
			lats = append(lats, time.Since(t0))
		}
	}
	slices.Sort(lats)
	return lats, nil
}

// echoDesc is a service of one bidirectional stream that answers every
// message with itself.
var echoDesc = grpc.ServiceDesc{
	ServiceName: "allot.bench.Echo",
	HandlerType: (*any)(nil),
	Streams: []grpc.StreamDesc{{StreamName: "Echo", ServerStreams: true, ClientStreams: true,
		Handler: func(_ any, st grpc.ServerStream) error {
			for {
				m := new(wrapperspb.BytesValue)
				if err := st.RecvMsg(m); err != nil {
					return nil
				}
				if err := st.SendMsg(m); err != nil {
					return err
				}
			}
		}}},
}

// streamEchoes times messages answered on one open stream, one at a time.
func streamEchoes(addr string, warm, iters int) ([]time.Duration, error) {
	return timeGRPC(addr, warm, iters, func(ctx context.Context, cc *grpc.ClientConn) (func() error, error) {
		st, err := cc.NewStream(ctx, &echoDesc.Streams[0], "/allot.bench.Echo/Echo")
		if err != nil {
			return nil, err
		}
		out := &wrapperspb.BytesValue{Value: []byte("x")}
		return func() error {
			if err := st.SendMsg(out); err != nil {
				return err
			}
			return st.RecvMsg(new(wrapperspb.BytesValue))
		}, nil
	})
}

// quantileUs is the nearest-rank quantile of sorted durations, in µs.
func quantileUs(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := max(0, min(int(p*float64(len(sorted))+0.5)-1, len(sorted)-1))
	return float64(sorted[i]) / 1e3
}
