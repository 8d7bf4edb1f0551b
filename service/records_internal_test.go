package service

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/service/internal/backuppb"
	sm "github.com/allot-dev/allot/session"
)

// TestRefusedEndIsHanded: an expired session's end that reaches its
// backup after the backup took the primary's run over is refused there,
// and the primary does not count it as recorded: the session counts as
// handed (a call is told SESSION_NOT_HERE, not SESSION_EXPIRED) and its
// grant goes back at once, not into the lock-delay, whose grants the node
// would ask again in its next view beside the adopter's. (The data-path
// simulator's seed 124: two holders of a lock's name were possible.)
func TestRefusedEndIsHanded(t *testing.T) {
	nodes := inProcess(t, 3, Config{LockDelay: 4 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := nodes[0].OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 10000})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Session
	if _, err := nodes[0].Lock(ctx, &pb.LockRequest{Session: id, Resources: []string{"refused"}}); err != nil {
		t.Fatal(err)
	}
	s := nodes[0].sessions.get(id)
	var g *grant
	s.mu.Lock()
	for _, x := range s.grants.List() {
		g = x
	}
	s.mu.Unlock()

	// Node 1, node 0's backup, takes node 0's run over (as in a view that
	// left node 0 out after a cut) before the end reaches it.
	nodes[0].rep.mu.Lock()
	cur := nodes[0].rep.view
	nodes[0].rep.mu.Unlock()
	if b := nodes[0].rep.backupOf(cur); b != 1 {
		t.Fatalf("node 0's backup is node %d, want node 1", b)
	}
	without := control.View{Epoch: cur.Epoch + 1}
	for i, m := range cur.Members {
		if m != 0 {
			without.Members = append(without.Members, m)
			without.Gens = append(without.Gens, cur.Gens[i])
		}
	}
	k := nodes[1].keeper
	k.mu.Lock()
	took := k.k.TakeOver(sessionNow(), 1, sessionView(without), sessionView(cur))
	k.mu.Unlock()
	if !slices.ContainsFunc(took.Adopt, func(a sm.Adoption) bool { return a.Record.ID == id }) {
		t.Fatalf("node 1 adopts %v, want session %d among them", took.Adopt, id)
	}

	// Ended as expiry ends a session whose lease ran out.
	nodes[0].end(s, 4*time.Second, "lease expired", true)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if slices.Contains(nodes[0].expiry.delayed(), g) {
			t.Fatal("the grant of an end the backup refused is held by the lock-delay: it would be asked again in the node's next view, beside the adopter's")
		}
		s.mu.Lock()
		released := g.State == sm.Released
		s.mu.Unlock()
		if released {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the grant of an end the backup refused was not given back")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, err = nodes[0].KeepAlive(ctx, &pb.KeepAliveRequest{Session: id})
	if code, why := reason(err); why != pb.ReasonSessionNotHere {
		t.Errorf("KeepAlive of a session whose end its backup refused: %v (%v), want SESSION_NOT_HERE (it may be alive at the adopter)", err, code)
	}
}

// TestStoppedBackupForgets: a backup that stops serving (its lease ran
// out, or a view left it out) forgets the records its generation kept:
// it rejoins as a new generation, and a later view that still lists a
// primary's lost run may name it the successor, which would adopt a
// session long ended, with grants given back since. (The data-path
// simulator's seed 615.)
func TestStoppedBackupForgets(t *testing.T) {
	nodes := inProcess(t, 3, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := nodes[0].OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if !keeping(nodes[1].keeper, r.Session) {
		t.Fatalf("node 1 does not keep session %d of node 0, its primary", r.Session)
	}
	nodes[1].fence(nodes[1].views.current().v.Epoch)
	if keeping(nodes[1].keeper, r.Session) {
		t.Error("a backup that stopped serving keeps its old generation's records")
	}
}

// keeperBackup is node 0's replicator, whose backup, node 1, is the
// Backup service of keeper k on a loopback port.
func keeperBackup(t *testing.T, k *keeper, suspect time.Duration) *replicator {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	backuppb.RegisterBackupServer(srv, backupServer{k: k})
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	r := newReplicator(Config{Self: 0, Suspect: suspect}, slog.New(slog.DiscardHandler), peerAt{1: ln.Addr().String()}, &sessionTable{byID: map[uint64]*session{}})
	t.Cleanup(r.close)
	return r
}

// TestRecordsForAnotherGeneration: a backup keeps only the records made
// for the generation it serves as. Records made for its earlier
// generation (a restarted process at the same address, which did not
// see the views since) are not kept nor answered; those made for a later
// one wait until it serves as that one; a primary that names none (an
// older version) is kept as before. (The data-path simulator's seed 784.)
func TestRecordsForAnotherGeneration(t *testing.T) {
	const suspect = 300 * time.Millisecond
	k := newKeeper()
	k.takeOver(sessionNow(), 1, view(4, map[int]uint64{0: 1, 1: 2}), control.View{}) // node 1's second run, restarted
	r := keeperBackup(t, k, suspect)
	sess := func(id uint64) *session {
		return &session{id: id, ttl: time.Second, done: make(chan struct{}), st: sm.Opened(id, sessionNow(), time.Second)}
	}
	record := func(to uint64, s *session, wait time.Duration) error {
		q := &backupQueue{node: 1, gen: to, gone: make(chan struct{}), wake: make(chan struct{}, 1)}
		r.mu.Lock()
		r.to, r.view.Epoch, r.gen = q, 5, 1
		r.mu.Unlock()
		go r.send(q)
		defer func() {
			r.mu.Lock()
			r.to = nil
			r.mu.Unlock()
			close(q.gone)
		}()
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		return r.record(ctx, s)
	}

	// Made for node 1's first run, which the restarted process is not.
	if err := record(1, sess(11), 2*suspect); !errors.Is(err, errNoBackup) {
		t.Errorf("recording for the backup's earlier generation: %v, want %v", err, errNoBackup)
	}
	if keeping(k, 11) {
		t.Error("a restarted backup keeps a record made for its earlier generation")
	}

	// Made for its next run: kept once it serves as that one.
	go func() {
		time.Sleep(suspect / 2)
		k.takeOver(sessionNow(), 1, view(5, map[int]uint64{0: 1, 1: 3}), control.View{})
	}()
	if err := record(3, sess(12), 10*suspect); err != nil {
		t.Errorf("recording for the backup's next generation: %v", err)
	}
	if !keeping(k, 12) {
		t.Error("a record made for the generation the backup came to serve as is not kept")
	}

	// From a primary that names no generation: kept as before.
	if err := record(0, sess(13), 10*suspect); err != nil {
		t.Errorf("recording without a generation (an older primary): %v", err)
	}
	if !keeping(k, 13) {
		t.Error("a record of an older primary, naming no generation, is not kept")
	}

	// Once it stopped serving, its own generation's are not kept either.
	k.stop()
	if err := record(3, sess(14), 2*suspect); !errors.Is(err, errNoBackup) {
		t.Errorf("recording at a backup that stopped serving: %v, want %v", err, errNoBackup)
	}
	if keeping(k, 14) {
		t.Error("a backup that stopped serving keeps a record")
	}
}

// TestEndUnansweredBeforeAStop: an end still on its way to the backup
// when the node stopped serving, and given up when the node's next view
// moves its backup, is not counted as recorded either: the backup may
// have adopted the session without it (a node cut off from its backup
// rejoins through the others). Its grant goes back at once, not into the
// lock-delay.
func TestEndUnansweredBeforeAStop(t *testing.T) {
	b := &testBackup{silent: true} // its first connection answers nothing
	n := backupTest(t, b, time.Minute)
	n.expiry, n.metrics = newExpiry(), newMetrics()
	q := &backupQueue{node: 1, gen: 1, gone: make(chan struct{}), wake: make(chan struct{}, 1)}
	n.rep.to, n.rep.view.Epoch, n.rep.gen = q, 5, 1
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		n.rep.send(q)
	}()
	s := &session{id: 21, ttl: time.Second, done: make(chan struct{}), st: sm.Opened(21, sessionNow(), time.Second)}
	g := &grant{GrantLife: sm.GrantLife{ID: 1, State: sm.Answered}, s: s}
	s.grants.Add(g)
	n.sessions.add(s, 10)
	n.end(s, 4*time.Second, "lease expired", true)
	// The node stops serving (fence), then its next view moves the backup.
	n.rep.stopped()
	n.rep.mu.Lock()
	n.rep.to = nil
	n.rep.mu.Unlock()
	close(q.gone)
	<-sent
	if slices.Contains(n.expiry.delayed(), g) {
		t.Fatal("the grant of an end not answered before the node stopped serving is held by the lock-delay")
	}
	s.mu.Lock()
	released := g.State == sm.Released
	s.mu.Unlock()
	if !released {
		t.Error("the grant of an end not answered before the node stopped serving was not given back")
	}
	if !n.sessions.wasHanded(s.id, sessionNow()) {
		t.Error("a session whose end was not answered before the node stopped serving is not counted as handed")
	}
}
