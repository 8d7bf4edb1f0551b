package service

import (
	"context"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/allot-dev/allot/service/internal/backuppb"
)

// testBackup answers records as a backup does and counts the sessions it
// got; with silent, it swallows every record of the first connection's
// streams without an answer: a backup whose connection dropped on the
// way back without a reset, the far side gone for good.
type testBackup struct {
	backuppb.UnimplementedBackupServer
	silent  bool
	conns   atomic.Int32 // connections seen
	kept    atomic.Int32 // sessions kept
	forgets atomic.Int32 // requests that drop what was kept before
}

func (b *testBackup) Keep(stream backuppb.Backup_KeepServer) error {
	for {
		r, err := stream.Recv()
		if err != nil {
			return nil
		}
		if b.silent && b.conns.Load() == 1 {
			continue // the first connection: nothing comes back
		}
		b.kept.Add(int32(len(r.Sessions)))
		if r.Forget {
			b.forgets.Add(1)
		}
		if err := stream.Send(&backuppb.KeepResponse{Batch: r.Batch}); err != nil {
			return err
		}
	}
}

// countConns counts the connections a listener accepts.
type countConns struct {
	net.Listener
	b *testBackup
}

func (l countConns) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.b.conns.Add(1)
	}
	return c, err
}

// TestSilentBackupStream: a record the backup never answers on its
// stream (the connection alive for this node's kernel, dead beyond it)
// does not hold the session's grants for good: within about a lease the
// stream is taken for dead and the record goes again on a new
// connection. (Seen as every lock of a node held for good after a
// one-sided drop: chaos seed 1795581587881642842.)
func TestSilentBackupStream(t *testing.T) {
	const suspect = 200 * time.Millisecond
	b := &testBackup{silent: true}
	n := backupTest(t, b, suspect)
	q := &backupQueue{node: 1, gone: make(chan struct{}), wake: make(chan struct{}, 1)}
	n.rep.to, n.rep.view.Epoch, n.rep.gen = q, 5, 1
	go n.rep.send(q)

	s := &session{id: 7, ttl: time.Second, done: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 20*suspect)
	defer cancel()
	start := time.Now()
	if err := n.rep.record(ctx, s); err != nil {
		t.Fatalf("recording a session at a backup whose first stream is silent: %v after %v", err, time.Since(start))
	}
	if took := time.Since(start); took > 5*suspect {
		t.Errorf("recorded after %v, want within a few leases of %v", took, suspect)
	}
	if got := b.conns.Load(); got < 2 {
		t.Errorf("the backup saw %d connections, want a second one after the silent first", got)
	}
	if b.kept.Load() == 0 {
		t.Error("the backup answered without keeping the record")
	}
}

// peerAt is a peerReader of fixed addresses, by id.
type peerAt map[int]string

func (p peerAt) peerAddr(k int) (string, bool) {
	a, ok := p[k]
	return a, ok
}

// backupTest is node 0 whose backup, node 1, is b on a loopback port.
func backupTest(t *testing.T, b *testBackup, suspect time.Duration) *Node {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	backuppb.RegisterBackupServer(srv, b)
	go srv.Serve(countConns{ln, b})
	t.Cleanup(srv.Stop)
	n := &Node{self: 0, log: slog.New(slog.DiscardHandler), cfg: Config{Suspect: suspect},
		sessions: sessionTable{byID: map[uint64]*session{}}}
	n.rep = newReplicator(n.cfg, n.log, peerAt{1: ln.Addr().String()}, &n.sessions)
	t.Cleanup(n.rep.close)
	return n
}

// TestBackupRestarted: a backup restarted as a new run between two views
// (faster than a view could leave it out) kept nothing of the old run's
// records: the view with the new run records every session there again,
// as a move to another node does. (Seen as a session's grant missing from
// what its backup adopted.)
func TestBackupRestarted(t *testing.T) {
	b := &testBackup{}
	n := backupTest(t, b, time.Second)
	for id := range uint64(3) {
		n.sessions.add(&session{id: id + 1, ttl: time.Second, done: make(chan struct{})}, 10)
	}
	n.rep.move(view(5, map[int]uint64{0: 1, 1: 1}), nil)
	if got := b.kept.Load(); got != 3 {
		t.Fatalf("the first view's backup got %d session records, want 3", got)
	}
	n.rep.move(view(6, map[int]uint64{0: 1, 1: 1}), nil) // the same backup: nothing again
	if got := b.kept.Load(); got != 3 {
		t.Fatalf("the same backup in the next view: %d session records in all, want 3", got)
	}
	n.rep.move(view(7, map[int]uint64{0: 1, 1: 2}), nil) // node 1's next run
	if got := b.kept.Load(); got != 6 {
		t.Fatalf("after the backup's restart: %d session records in all, want 6 (each session again)", got)
	}
	// Each new queue's first message drops what the backup kept of this
	// run before (a node that was the backup once may hold stale records).
	if got := b.forgets.Load(); got != 2 {
		t.Fatalf("%d messages said to forget, want 2: the first of each of the two queues", got)
	}
}
