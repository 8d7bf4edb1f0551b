package service

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// syncBuffer is a log destination safe for the node's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestInstanceStartsTogether starts a node whose quota's root process
// sends to its neighbours on the same node at Start, many times: no
// process may start before every process of its instance on the node is
// registered, or that first message fails ("unknown process") and is
// lost, and the quota never issues a permit.
func TestInstanceStartsTogether(t *testing.T) {
	for range 40 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		log := &syncBuffer{}
		n, err := New(Config{
			Cluster: Cluster{Nodes: []string{ln.Addr().String()}, Slots: 8, Quotas: map[string]QuotaSpec{"q": {Budget: 10}}},
			Log:     slog.New(slog.NewTextHandler(log, nil)),
			Suspect: 100 * time.Millisecond,
		})
		if err != nil {
			t.Fatal(err)
		}
		s := grpc.NewServer()
		if err := n.Register(s); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		err = n.WaitReady(ctx)
		var ses *pb.OpenSessionResponse
		if err == nil {
			ses, err = n.OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 5000})
		}
		if err == nil {
			_, err = n.Take(ctx, &pb.TakeRequest{Session: ses.Session, Name: "q", N: 1})
		}
		cancel()
		n.Shutdown(t.Context())
		ln.Close()
		if err != nil || strings.Contains(log.String(), "unknown process") {
			t.Fatalf("take: %v; a process started before its neighbours were registered?\n%s", err, log)
		}
	}
}
