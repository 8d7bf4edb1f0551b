package service

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/service/internal/space"
	sm "github.com/allot-dev/allot/session"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// sessionEpoch is where the sessions' time (session.Time) starts: the
// process's monotonic clock from then on.
var sessionEpoch = time.Now()

// sessionNow is the sessions' time now.
func sessionNow() sm.Time { return sm.Time(time.Since(sessionEpoch)) }

// sessionTable is the node's open sessions, under a lock of its own: a
// session's lookup waits for nothing else of the node.
type sessionTable struct {
	mu   sync.Mutex
	byID map[uint64]*session
	peak int // the most sessions byID held since it was last made afresh
	// handed: this node's sessions it dropped when it stopped serving,
	// without a recorded end: their backup adopts them, and they may be
	// alive there (session.Handed).
	handed sm.Handed
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

// remove removes session id; handed until a time (non-zero): the node
// drops it without a recorded end, and its backup adopts it.
func (t *sessionTable) remove(id uint64, handed sm.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byID, id)
	if handed == 0 {
		t.handed.Remove(id) // adopted back, and ended here for good
	} else {
		t.handed.Add(id, handed)
	}
	if len(t.byID) < t.peak/4 {
		// A Go map never shrinks: after a crowd of sessions is gone, a
		// fresh one gives the memory back (maps.Clone would keep the
		// old one's size).
		fresh := make(map[uint64]*session, len(t.byID))
		maps.Copy(fresh, t.byID)
		t.byID, t.peak = fresh, len(fresh)
	}
}

// refused marks session id, which ended here, as handed until a time
// (its recorded end was refused: its backup may have adopted it), unless
// the table holds it again (adopted back).
func (t *sessionTable) refused(id uint64, handed sm.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID[id] == nil {
		t.handed.Add(id, handed)
	}
}

// get is session id, nil if it is not open.
func (t *sessionTable) get(id uint64) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byID[id]
}

// wasHanded reports whether session id was handed to its backup when
// this node stopped serving (remove), and is kept as such still.
func (t *sessionTable) wasHanded(id uint64, now sm.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.handed.Has(id, now)
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
	id   uint64        // st.ID, read without the lock
	ttl  time.Duration // st.TTL, read without the lock
	done chan struct{}

	mu sync.Mutex
	// grants: the session's grants by id, waiting and held, until it
	// ends (session.Grants: the life of each, under mu too).
	grants sm.Grants[*grant]
	// st: the session's lease (moved on by each keep-alive; expiry ends
	// the session at its deadline), the seq of its newest record at the
	// backup (primary.go), and whether it ended, and how (end): the rules
	// are session.Session's.
	st sm.Session
}

// gone is err, a call's answer, unless it is errExpired and the session
// was handed to its backup (end without record: the node stopped
// serving): then errNotHere, as the session may be alive at the node
// that adopts it.
func (s *session) gone(err error) error {
	if err != errExpired {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Gone() == sm.NotHere {
		return errNotHere
	}
	return err
}

// add adds g to the session's grants, unless the session ended.
func (s *session) add(g *grant) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.grants.Add(g)
}

// answered is the grant s holds of its request call (nil if none, or
// call is 0), or an error if that grant answered another request than
// key and names: a client numbers its requests afresh, and asks one
// again only as it was.
func (s *session) answered(call uint64, key space.Key, names []string) (*grant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, asked := s.grants.Asked(call, func(g *grant) bool { return g.key == key && slices.Equal(g.names, names) })
	switch asked {
	case sm.AskedOther:
		return nil, badInput("call", "call %d of session %d was another request (%s %q): a request is asked again only as it was", call, s.id, g.key.String(), g.names)
	case sm.AskedAgain:
		return g, nil
	}
	return nil, nil
}

// answer marks g answered, unless the session has ended: then the caller
// gives it back (the session could not: it found g still waiting).
func (s *session) answer(g *grant) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	g.since = time.Now()
	return g.Answer()
}

func (s *session) drop(g *grant) {
	s.mu.Lock()
	s.grants.Drop(g.ID)
	s.mu.Unlock()
}

func (s *session) take(id uint64) *grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.grants.Get(id)
	s.grants.Drop(id)
	return g
}

// end ends the session: every grant goes back, after delay for an expired
// lease. A grant still waiting is marked lost and goes back when its
// request finds out (acquire). With record, the end is recorded at the
// session's backup before anything goes back (so that the backup never
// adopts grants someone else may hold by then); without (the node
// stopped serving), the backup keeps the session and adopts it. An end
// the backup refused, or did not answer before this node stopped
// serving, is not recorded (primary.go): the backup may have adopted the
// session, so it counts as handed, and its grants go back at once rather
// than into the lock-delay, whose grants this node would ask again in its
// next view beside the adopter's.
func (n *Node) end(s *session, delay time.Duration, why string, record bool) {
	s.mu.Lock()
	handed, ok := s.st.End(record)
	if !ok {
		s.mu.Unlock()
		return
	}
	close(s.done)
	held, waiting := s.grants.End() // those waiting are lost: acquire gives them back
	s.mu.Unlock()
	n.sessions.remove(s.id, handed)
	n.metrics.sessions.Dec()
	n.log.Info("session ended", "session", s.id, "why", why, "grants", len(held)+len(waiting))
	give := func(recorded bool) {
		if !recorded {
			s.mu.Lock()
			handed, ok := s.st.Refused()
			s.mu.Unlock()
			if ok {
				n.sessions.refused(s.id, handed)
				n.log.Warn("the session's end was not recorded at its backup, which may have adopted it: its grants go back here without a lock-delay", "session", s.id)
			}
			for _, g := range held {
				g.release()
			}
			return
		}
		until := sessionNow().Add(delay)
		for _, g := range held {
			if delay > 0 {
				n.expiry.delay(g, until) // expire gives it back then
			} else {
				g.release()
			}
		}
	}
	if record {
		n.rep.push(s, give)
		return
	}
	give(true)
}

// session is the session id this node serves. Otherwise the error says
// SESSION_EXPIRED only where the session is known to have ended
// (session.Find says where it stands): SESSION_MOVING where the node
// keeps it as a backup, SESSION_NOT_HERE where it may be alive
// elsewhere, and the client looks for its node.
func (n *Node) session(id uint64) (*session, error) {
	if s := n.sessions.get(id); s != nil {
		return s, nil
	}
	primary, until, kept := n.keeper.keeps(id)
	switch sm.Find(kept, !kept && n.sessions.wasHanded(id, sessionNow()), n.ownRun(id)) {
	case sm.Moving:
		return nil, n.moving(primary, until)
	case sm.NotHere:
		return nil, errNotHere
	}
	return nil, errExpired
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
	s := &session{id: n.id(), ttl: time.Duration(r.TtlMs) * time.Millisecond, done: make(chan struct{})}
	s.st = sm.Opened(s.id, sessionNow(), s.ttl)
	if !n.sessions.add(s, n.cfg.MaxSessions) {
		return nil, n.limitReached("sessions", "this node has its most sessions open, %d (--max-sessions): close some, or open on another node", n.cfg.MaxSessions)
	}
	n.metrics.sessions.Inc()
	n.expiry.add(s, s.st.Deadline)
	rctx, cancel := context.WithTimeout(ctx, 3*n.cfg.Suspect)
	defer cancel()
	if err := n.rep.record(rctx, s); err != nil {
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

// KeepAlive implements the Allot service. The node that adopts the
// session keeps its deadline (backup.go), so the client must never count
// on the session past the time its backup keeps it: the new deadline is
// recorded at the backup before the answer, unless the backup keeps the
// session half a lease past the new deadline already (each record asks
// for a lease more than the deadline: snapshot), so about twice per
// lease; a keep-alive is off the path of every grant. A backup that does not answer in time
// (lost, until a view moves the backup) leaves the answer's lease cut
// to what the backup keeps: the keep-alives go on for a lease after the
// backup's last answer before the client's count stops moving.
func (n *Node) KeepAlive(ctx context.Context, r *pb.KeepAliveRequest) (*pb.KeepAliveResponse, error) {
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
	if !s.st.KeepAlive(sessionNow()) {
		// Run out: expiry ends it, if it has not yet.
		s.mu.Unlock()
		return nil, s.gone(errExpired)
	}
	// The backup keeping the session half a lease past the new deadline
	// already (each record adds a lease), the answer waits for nothing:
	// a keep-alive is recorded about twice per lease, not each time, and
	// the backup's last record is never more than half a lease and a
	// keep-alive old, which leaves a lost backup's replacement a TTL and
	// half a lease, less a keep-alive, to be recorded.
	covered := s.st.Covered(n.cfg.Suspect)
	s.mu.Unlock()
	if covered {
		return &pb.KeepAliveResponse{TtlMs: s.ttl.Milliseconds(), LeaseMs: lease.Milliseconds()}, nil
	}
	// A round trip to the backup, normally; a quarter of a lease at
	// most, and half of what the caller waits.
	wait := n.cfg.Suspect / 4
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d)/2)
	}
	rctx, cancel := context.WithTimeout(ctx, wait)
	err = n.rep.record(rctx, s)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil, status.FromContextError(ctx.Err()).Err()
		}
		s.mu.Lock()
		promised, ok := s.st.Promise(sessionNow(), lease)
		s.mu.Unlock()
		if !ok {
			return nil, errNoBackup
		}
		lease = promised
	}
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
