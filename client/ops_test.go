package client_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service"
)

// TestMetricsAndShutdown: /metrics shows the metrics the docs name; a
// node shut down while a lease is granted says so in its log, and the
// holder's session ends (its Done closes) instead of the lease vanishing.
func TestMetricsAndShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	n, err := service.New(service.Config{
		Cluster: service.Cluster{Nodes: []string{ln.Addr().String()}},
		Log:     slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	if err := n.Register(srv); err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Stop()

	ctx := context.Background()
	c, err := client.Dial(ctx, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.Session(ctx, client.WithTTL(600*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.Lock(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}

	rec := httptest.NewRecorder()
	n.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{"allot_acquire_seconds_count{kind=\"exclusive\"} 1", "allot_sessions 1", "allot_messages_total{message=", "allot_waiting_requests{kind=\"exclusive\"} 0"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}

	sctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	n.Shutdown(sctx)
	cancel()
	if !strings.Contains(logs.String(), "shutdown with a granted lease") {
		t.Errorf("the log does not name the lease held at shutdown:\n%s", logs.String())
	}
	select {
	case <-g.Done():
	case <-time.After(2 * time.Second):
		t.Error("the holder's Done did not close after its node shut down")
	}
}

// TestTTLBound: a TTL that is not positive or above MaxTTL is refused
// before anything is sent (ErrBadTTL); MaxTTL is the node's limit.
func TestTTLBound(t *testing.T) {
	if client.MaxTTL != service.MaxTTL {
		t.Fatalf("client.MaxTTL %v, service.MaxTTL %v", client.MaxTTL, service.MaxTTL)
	}
	addrs, _ := cluster(t, 1, 0)
	ctx := context.Background()
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, d := range []time.Duration{0, -time.Second, client.MaxTTL + time.Millisecond, 1<<63 - 1} {
		if _, err := c.Session(ctx, client.WithTTL(d)); !errors.Is(err, client.ErrBadTTL) {
			t.Errorf("WithTTL(%v): %v, want ErrBadTTL", d, err)
		}
	}
	s, err := c.Session(ctx, client.WithTTL(client.MaxTTL))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lock(ctx, "ttl"); err != nil {
		t.Errorf("a session of MaxTTL cannot lock: %v", err)
	}
	s.Close(ctx)
}
