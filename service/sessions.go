package service

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// sessionTable is the node's open sessions, under a lock of its own: a
// session's lookup waits for nothing else of the node.
type sessionTable struct {
	mu   sync.Mutex
	byID map[uint64]*session
	peak int // the most sessions byID held since it was last made afresh
}

// add adds s unless the table holds most sessions already.
func (t *sessionTable) add(s *session, most int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.byID) >= most {
		return false
	}
	t.byID[s.id] = s
	t.peak = max(t.peak, len(t.byID))
	return true
}

func (t *sessionTable) remove(id uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byID, id)
	if len(t.byID) < t.peak/4 {
		// A Go map never shrinks: after a crowd of sessions is gone, a
		// fresh one gives the memory back (maps.Clone would keep the
		// old one's size).
		fresh := make(map[uint64]*session, len(t.byID))
		maps.Copy(fresh, t.byID)
		t.byID, t.peak = fresh, len(fresh)
	}
}

// get is session id, nil if it is not open.
func (t *sessionTable) get(id uint64) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byID[id]
}

// list is the open sessions now.
func (t *sessionTable) list() []*session {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*session, 0, len(t.byID))
	for _, s := range t.byID {
		out = append(out, s)
	}
	return out
}

// session is a client's session: a lease renewed by keep-alives.
type session struct {
	id   uint64
	ttl  time.Duration
	done chan struct{}

	mu       sync.Mutex
	grants   map[uint64]*grant
	dead     bool
	deadline time.Time // the lease runs out (moved on by each keep-alive); expiry ends it then
	seq      uint64    // the last record of the session sent to its backup (primary.go)
}

func (s *session) add(g *grant) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return false
	}
	s.grants[g.id] = g
	return true
}

func (s *session) drop(g *grant) {
	s.mu.Lock()
	delete(s.grants, g.id)
	s.mu.Unlock()
}

func (s *session) take(id uint64) *grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.grants[id]
	delete(s.grants, id)
	return g
}

// end ends the session: every grant goes back, after delay for an expired
// lease. A grant still waiting is marked lost and goes back when its
// request finds out (acquire). With record, the end is recorded at the
// session's backup before anything goes back (so that the backup never
// adopts grants someone else may hold by then); without (the node
// stopped serving), the backup keeps the session and adopts it.
func (n *Node) end(s *session, delay time.Duration, why string, record bool) {
	s.mu.Lock()
	if s.dead {
		s.mu.Unlock()
		return
	}
	s.dead = true
	close(s.done)
	gs := s.grants
	s.grants = nil
	s.mu.Unlock()
	n.sessions.remove(s.id)
	n.metrics.sessions.Dec()
	n.log.Info("session ended", "session", s.id, "why", why, "grants", len(gs))
	var held []*grant
	for _, g := range gs {
		g.mu.Lock()
		g.lost = true
		answered := g.answered
		g.mu.Unlock()
		if answered {
			held = append(held, g) // the rest still wait: acquire gives them back
		}
	}
	give := func() {
		for _, g := range held {
			if delay > 0 {
				n.delayed.add(g)
				time.AfterFunc(delay, func() {
					g.release()
					n.delayed.remove(g)
				})
			} else {
				g.release()
			}
		}
	}
	if record {
		n.recordLater(s, give)
		return
	}
	give()
}

// delayed are the grants of ended sessions that the lock-delay holds
// still: out of the session table, they are asked again at a view change
// all the same (adopt), so that the delay outlasts it. (The node's loss
// within the delay ends it: the backup has the session ended.)
type delayed struct {
	mu     sync.Mutex
	grants map[*grant]struct{}
}

func (d *delayed) add(g *grant) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.grants[g] = struct{}{}
}

func (d *delayed) remove(g *grant) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.grants, g)
}

// list is the grants the delay holds now.
func (d *delayed) list() []*grant {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Collect(maps.Keys(d.grants))
}

func (n *Node) session(id uint64) (*session, error) {
	s := n.sessions.get(id)
	if s == nil {
		if primary, ok := n.keeper.keeps(id); ok {
			return nil, n.moving(primary)
		}
		return nil, errExpired
	}
	return s, nil
}

// OpenSession implements the Allot service.
func (n *Node) OpenSession(ctx context.Context, r *pb.OpenSessionRequest) (*pb.OpenSessionResponse, error) {
	if r.TtlMs <= 0 || r.TtlMs > MaxTTL.Milliseconds() {
		return nil, status.Errorf(codes.InvalidArgument, "session TTL must be positive and at most %dms (%v), got %dms", MaxTTL.Milliseconds(), MaxTTL, r.TtlMs)
	}
	if n.draining.Load() {
		return nil, errDraining
	}
	lease, err := n.waitLease(ctx)
	if err != nil {
		return nil, err
	}
	s := &session{id: n.id(), ttl: time.Duration(r.TtlMs) * time.Millisecond, done: make(chan struct{}), grants: map[uint64]*grant{}}
	s.deadline = time.Now().Add(s.ttl)
	if !n.sessions.add(s, n.cfg.MaxSessions) {
		return nil, n.limitReached("sessions", "this node has its most sessions open, %d (--max-sessions): close some, or open on another node", n.cfg.MaxSessions)
	}
	n.metrics.sessions.Inc()
	n.expiry.add(s, s.deadline)
	rctx, cancel := context.WithTimeout(ctx, 3*n.cfg.Suspect)
	defer cancel()
	if err := n.recordSession(rctx, s); err != nil {
		n.end(s, 0, "its backup did not answer", true) // its record may reach the backup yet
		return nil, err
	}
	return &pb.OpenSessionResponse{Session: s.id, TtlMs: r.TtlMs, LeaseMs: lease.Milliseconds()}, nil
}

// waitLease waits until the node serves (a node starting, or between two
// views, will soon), for at most three leases and a second.
func (n *Node) waitLease(ctx context.Context) (time.Duration, error) {
	give := time.Now().Add(3*n.cfg.Suspect + time.Second)
	for {
		if lease := n.ctl.leaseLeft(); lease > 0 {
			return lease, nil
		}
		if time.Now().After(give) {
			return 0, status.Error(codes.Unavailable, "this node is not serving: not in the cluster's view, or cut off from its majority")
		}
		select {
		case <-ctx.Done():
			return 0, status.FromContextError(ctx.Err()).Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// KeepAlive implements the Allot service.
func (n *Node) KeepAlive(_ context.Context, r *pb.KeepAliveRequest) (*pb.KeepAliveResponse, error) {
	if n.draining.Load() {
		return nil, errDraining
	}
	s, err := n.session(r.Session)
	if err != nil {
		return nil, err
	}
	// The lease is read first: what the answer says is left is never
	// more than is.
	lease := n.ctl.leaseLeft()
	if lease <= 0 {
		// The node is fencing itself: the session ends with it.
		return nil, status.Error(codes.Unavailable, "this node is not serving")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.dead || !now.Before(s.deadline) {
		// Run out: expiry ends it, if it has not yet.
		return nil, errExpired
	}
	s.deadline = now.Add(s.ttl)
	return &pb.KeepAliveResponse{TtlMs: s.ttl.Milliseconds(), LeaseMs: lease.Milliseconds()}, nil
}

// CloseSession implements the Allot service.
func (n *Node) CloseSession(_ context.Context, r *pb.CloseSessionRequest) (*pb.CloseSessionResponse, error) {
	s, err := n.session(r.Session)
	if err != nil {
		return nil, err
	}
	n.end(s, 0, "closed", true)
	return &pb.CloseSessionResponse{}, nil
}
