package service

import (
	"context"
	"log/slog"
	"testing"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/service/internal/backuppb"
	sm "github.com/allot-dev/allot/session"
)

// near reports whether d is within 100ms of want.
func near(d, want time.Duration) bool {
	return d > want-100*time.Millisecond && d < want+100*time.Millisecond
}

// TestAdoptionKeepsTheDeadline: an adopter counts the session's deadline
// from the time left its record carried, from when it came, not a fresh
// TTL; what it records at its own backup carries the same deadline, with
// no slack more, so that adoptions in turn never move it on; a keep-alive
// there moves it on as the primary's do, with the slack. A record of a
// primary that sends no time left gets a fresh TTL.
func TestAdoptionKeepsTheDeadline(t *testing.T) {
	n := &Node{self: 2, log: slog.New(slog.DiscardHandler), keeper: newKeeper(), sessions: sessionTable{byID: map[uint64]*session{}}, expiry: newExpiry(), metrics: newMetrics()}
	n.keeper.keep(&backuppb.KeepRequest{Primary: 1, Gen: 3, Epoch: 5, Sessions: []*backuppb.Session{
		{Id: 71, TtlMs: 10000, Seq: 1, LeftMs: 1500},
		{Id: 72, TtlMs: 10000, Seq: 1}, // an older primary's
	}}, nil)
	if _, until, ok := n.keeper.keeps(71); !ok || !near(until.Sub(sessionNow()), 1500*time.Millisecond) {
		t.Fatalf("the backup keeps session 71 %v more, want 1.5s", until.Sub(sessionNow()))
	}
	got := n.takeOver(view(6, map[int]uint64{2: 1}), view(5, map[int]uint64{1: 3, 2: 1}))
	if len(got) != 2 {
		t.Fatalf("adopted %d sessions, want 2", len(got))
	}
	s, old := n.sessions.get(71), n.sessions.get(72)
	if left := s.st.Deadline.Sub(sessionNow()); !near(left, 1500*time.Millisecond) {
		t.Fatalf("the adopted session has %v left, want the 1.5s its record said, not a fresh TTL of 10s", left)
	}
	if left := old.st.Deadline.Sub(sessionNow()); !near(left, 10*time.Second) {
		t.Fatalf("a session recorded with no time left has %v left, want a fresh TTL of 10s", left)
	}
	const slack = time.Second
	if r, end := snapshot(s, slack); !near(time.Duration(r.LeftMs)*time.Millisecond, 1500*time.Millisecond) || end != s.st.Deadline {
		t.Fatalf("the adopter's record says %dms left (end %v after the deadline), want the adopted deadline, with no slack", r.LeftMs, end.Sub(s.st.Deadline))
	}
	s.mu.Lock()
	s.st.Renew(sessionNow()) // a keep-alive
	s.mu.Unlock()
	if r, _ := snapshot(s, slack); !near(time.Duration(r.LeftMs)*time.Millisecond, s.ttl+slack) {
		t.Fatalf("after a keep-alive the record says %dms left, want the TTL and the slack", r.LeftMs)
	}
}

// TestKeepAliveCountsOnWhatTheBackupKeeps: a keep-alive is answered once
// its record is at the backup, with the node's lease; a backup that does
// not answer in time leaves the answer's lease cut to what the backup
// keeps of the session, so that the client never counts on the session
// past the deadline an adopter would keep; and nothing kept, no answer.
// A keep-alive the backup's last record covers half a lease past its new
// deadline waits for nothing.
func TestKeepAliveCountsOnWhatTheBackupKeeps(t *testing.T) {
	ctl := &ctlHost{start: time.Now()}
	ctl.leaseEnd.Store(60_000) // a lease of a minute
	q := &backupQueue{node: 1, gone: make(chan struct{}), wake: make(chan struct{}, 1)}
	n := &Node{self: 0, cfg: Config{Suspect: 400 * time.Millisecond}, log: slog.New(slog.DiscardHandler), sessions: sessionTable{byID: map[uint64]*session{}}, expiry: newExpiry(), metrics: newMetrics(), ctl: ctl}
	n.rep = newReplicator(n.cfg, n.log, peerAt{}, &n.sessions)
	n.rep.to = q // the test answers the records itself
	ctl.to, ctl.log = n, n.log
	s := &session{id: 5, ttl: 10 * time.Second, done: make(chan struct{}), st: sm.Opened(5, sessionNow(), 10*time.Second)}
	s.st.Recorded = sessionNow().Add(time.Second)
	n.sessions.add(s, 10)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The backup does not answer.
	r, err := n.KeepAlive(ctx, &pb.KeepAliveRequest{Session: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.LeaseMs <= 0 || r.LeaseMs > 1000 {
		t.Fatalf("answered with a lease of %dms while the backup keeps the session 1s at most, want at most that", r.LeaseMs)
	}
	s.st.Recorded = sessionNow().Add(-time.Millisecond)
	if _, err := n.KeepAlive(ctx, &pb.KeepAliveRequest{Session: 5}); err != errNoBackup {
		t.Fatalf("answered %v with nothing kept at the backup, want %v", err, errNoBackup)
	}
	// The backup answers.
	go func() {
		for range q.wake {
			q.mu.Lock()
			items := q.out.Ack(q.out.Made())
			q.mu.Unlock()
			for _, rec := range items {
				close(rec.done)
			}
		}
	}()
	defer close(q.wake)
	r, err = n.KeepAlive(ctx, &pb.KeepAliveRequest{Session: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.LeaseMs < 50_000 {
		t.Fatalf("answered with a lease of %dms once the backup has the keep-alive, want the node's (a minute)", r.LeaseMs)
	}
	if kept := s.st.Recorded.Sub(sessionNow()); !near(kept, s.ttl+n.cfg.Suspect) {
		t.Fatalf("the backup keeps the session %v, want the TTL and a lease of slack", kept)
	}
	// The backup keeps it half a lease past the next deadline: the next keep-alive
	// makes no record.
	q.mu.Lock()
	made := q.out.Made()
	q.mu.Unlock()
	if _, err := n.KeepAlive(ctx, &pb.KeepAliveRequest{Session: 5}); err != nil {
		t.Fatal(err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.out.Made() != made {
		t.Errorf("a keep-alive within the slack of the last one recorded made %d records, want none", q.out.Made()-made)
	}
}
