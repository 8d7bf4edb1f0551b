package service

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"

	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/service/internal/backuppb"
	"github.com/allot-dev/allot/service/internal/space"
	sm "github.com/allot-dev/allot/session"
)

// Sessions that outlive their node. A session lives on the node that
// opened it, its primary, which serves its calls; the primary's backup is
// the next member after it in the view's ring of members (Successor). The
// primary records at its backup (primary.go) the session when it opens,
// each grant before the grant is answered, and a give-back or the
// session's end before the resources go back; the backup keeps the
// records here (keeper). When a view leaves the primary's run out (it
// died, or was cut off past its lease), the backup adopts the sessions it
// keeps for it (takeOver): the backup of the view before, the one the
// primary last recorded at, whichever member follows the primary in the
// new view (a node that was its backup in an older view and was away
// since keeps records grown stale: give-backs and ends were recorded
// elsewhere). They enter its session table with the deadline their
// records gave them, and their grants are asked again in the new view
// with their tokens, as the node's own held grants are, before the node
// reports ready. The view serves no
// request before every member is ready (control/state.go: the ReadyEntry
// that opens a view only once every member's is applied;
// control.Node.step: Serve, on each node, only once its log has the view
// open), so nobody else is granted those names meanwhile. Two nodes lost
// at once, the primary and its backup, lose the primary's sessions, as
// does a backup that moved on from a snapshot of the control log past the
// view before (it cannot tell it was the last backup).
//
// The deadline. Each record says how long the session has left (LeftMs),
// which the backup counts from when it gets it (the nodes' monotonic
// clocks differ): the adopter keeps the session's deadline rather than
// start a fresh TTL, and records the same deadline at its own backup, so
// a session adopted again and again still ends when its client stopped.
// The time left is the deadline plus a slack of one lease (--suspect)
// when the node's keep-alives set it (snapshot; an adopted deadline is
// passed on as it is). A keep-alive is recorded before it is answered
// when the backup does not keep the session half a lease past the new
// deadline already, and
// a backup that does not answer in time (lost) cuts the answer's lease
// to what it keeps (KeepAlive): the client never counts on the session
// past what an adopter keeps, and its keep-alives go on for a lease after
// the backup's last answer, time for the view change that moves the
// backup. So a session whose client stopped ends at most TTL + --suspect
// after the last keep-alive its node received, plus the time its newest
// record took to reach the backup at each adoption (milliseconds, unless
// their link was cut), or at the adoption if that comes later; a client
// that keeps it alive is never told it expired.
//
// The records a backup keeps, and what it answers. A record names the
// backup's generation it is made for (KeepRequest.To): a backup keeps
// only its current generation's (one made for a later generation waits
// until this node adopts the view that gives it; one made for an earlier
// generation, or sent after this node stopped serving, is not kept nor
// answered: a restarted process at the same address, or a node that
// rejoined, is not the backup it was made for, and kept, it would be
// adopted later, stale; the primary's view moves its backup and records
// again). A node that stops serving (fence) forgets what it kept, for the
// same reason. A record of a run the keeper took over, or moved away
// from, is answered as refused (KeepResponse.Refused): the primary does
// not count a refused end as recorded, nor one still unanswered when it
// stopped serving and its queue went (the backup may have adopted the
// session without it): the session counts as handed, and its grants go
// back at once, not into the lock-delay, whose grants the node asks again
// in its next view beside the adopter's; a refused grant is not answered.
// A primary of an earlier version sends no To (kept as before), and one
// reads no Refused (every answer means kept, as before).
//
// The rules above (the deadline's, the records', what a view change does
// with them) are the pure package session's (Lease, Outbox, Keeper),
// which a simulator can run as well; this file and primary.go drive it:
// the streams, the locks, the goroutines.

// keeper is what this node keeps as the backup of other nodes' sessions
// (session.Keeper: the records, for which of this node's generations,
// and the rules of a view change), under a lock of its own: the Backup
// service's streams and a view change's takeOver meet here.
type keeper struct {
	mu sync.Mutex
	k  *sm.Keeper
	// moved is closed, and made afresh, when the generation the node
	// serves as changes, or it stops: a request for a generation the
	// node has not reached yet waits (session.AdmitLater).
	moved chan struct{}
}

func newKeeper() *keeper { return &keeper{k: sm.NewKeeper(), moved: make(chan struct{})} }

// keep takes the records of r, once this node serves as the generation
// r.To they were made for (a primary may adopt the view that names it
// before this node does: the request waits, until done is closed). It
// reports whether to answer r (session.Keeper.Admit says which are
// neither kept nor answered), and whether it kept the records (refused:
// the keeper took the run over or moved away from it).
func (k *keeper) keep(r *backuppb.KeepRequest, done <-chan struct{}) (answer, kept bool) {
	recs := make([]sm.Record, len(r.Sessions))
	for i, s := range r.Sessions {
		recs[i] = fromPB(s)
	}
	k.mu.Lock()
	for k.k.Admit(r.To) == sm.AdmitLater {
		moved := k.moved
		k.mu.Unlock()
		select {
		case <-moved:
		case <-done:
			return false, false
		}
		k.mu.Lock()
	}
	defer k.mu.Unlock()
	if k.k.Admit(r.To) == sm.AdmitDrop {
		return false, false
	}
	return true, k.k.Keep(sessionNow(), sm.Run{Node: int(r.Primary), Gen: r.Gen}, r.Epoch, r.Forget, recs)
}

// takeOver takes over, at now, the sessions this node (self) keeps for
// primaries that view v leaves out, as session.Keeper.TakeOver says (prev
// the view v replaced), and makes this node's generation in v the one it
// keeps records for, waking the requests waiting for it.
func (k *keeper) takeOver(now sm.Time, self int, v, prev control.View) sm.TakeOver {
	k.mu.Lock()
	defer k.mu.Unlock()
	t := k.k.TakeOver(now, self, sessionView(v), sessionView(prev))
	k.k.Serve(genOf(self, v))
	k.wake()
	return t
}

// stop forgets every record: this node stopped serving (session.Keeper's
// Stop says why); the requests waiting for a generation are woken.
func (k *keeper) stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.k.Stop()
	k.wake()
}

// wake wakes the requests waiting for the generation this node serves as
// to change. Called with k.mu held.
func (k *keeper) wake() {
	close(k.moved)
	k.moved = make(chan struct{})
}

// fromPB is the record s from the wire (recordPB, primary.go, writes it).
func fromPB(s *backuppb.Session) sm.Record {
	r := sm.Record{ID: s.Id, TTL: time.Duration(s.TtlMs) * time.Millisecond, Seq: s.Seq, Ended: s.Ended, Left: time.Duration(s.LeftMs) * time.Millisecond}
	for _, g := range s.Grants {
		r.Grants = append(r.Grants, sm.Grant{ID: g.Id, Key: g.Key, Names: g.Names, Epoch: g.Epoch, Counter: g.Counter, Unit: g.Unit, Call: g.Call})
	}
	return r
}

// keeps reports whether this node keeps session id for another node,
// for which, and until when it would keep it if it adopted it (zero:
// a fresh TTL from the adoption).
func (k *keeper) keeps(id uint64) (primary int, until sm.Time, ok bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.k.Keeps(id)
}

// sessionView is v as the session package reads it.
func sessionView(v control.View) sm.View {
	return sm.View{Epoch: v.Epoch, Members: v.Members, Gens: v.Gens}
}

// takeOver moves into the session table the sessions this node keeps for
// primaries that view v leaves out, when this node is the one to adopt
// them (the primary's backup in prev, the view v replaced: the run was
// there), and returns them; it drops the others (session.Keeper.TakeOver
// says the rules). Called by adopt before it reads the held grants,
// which are then asked again in v with the node's own.
func (n *Node) takeOver(v, prev control.View) []*session {
	t := n.keeper.takeOver(sessionNow(), n.self, v, prev)
	for _, c := range t.Dropped {
		n.log.Warn("dropping the sessions of a lost node: this node was not its last backup", "primary", c.Run.Node, "gen", c.Run.Gen, "sessions", c.Sessions)
	}
	for _, c := range t.Adopted {
		n.log.Info("adopting the sessions of a lost node", "primary", c.Run.Node, "gen", c.Run.Gen, "epoch", v.Epoch, "sessions", c.Sessions)
	}
	var out []*session
	for _, a := range t.Adopt {
		s, err := n.adoptSession(a)
		if err != nil {
			n.log.Error("adopting a session", "session", a.Record.ID, "err", err)
			continue
		}
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// adoptSession enters the kept session of a in the session table, its
// grants held (to be asked again in the new view), with the lease of a
// (the deadline its primary recorded, kept: a session whose client
// stopped ends when it would have at its node, however many nodes adopt
// it in turn); nil if the table has it already.
func (n *Node) adoptSession(a sm.Adoption) (*session, error) {
	r := a.Record
	if n.sessions.get(r.ID) != nil {
		return nil, nil
	}
	s := &session{id: r.ID, ttl: r.TTL, done: make(chan struct{}), st: sm.Adopted(a)}
	for _, rg := range r.Grants {
		key, err := space.ParseKey(rg.Key)
		if err != nil {
			return nil, fmt.Errorf("grant %d: %w", rg.ID, err)
		}
		// Not in an instance of this node yet (in is nil): regrant puts
		// it in one (a lock's names get their ids of the view there); a
		// give-back before that is done there.
		s.grants.Add(&grant{GrantLife: sm.GrantLife{ID: rg.ID, Call: rg.Call, State: sm.Answered}, since: time.Now(), s: s, key: key, names: rg.Names, epoch: rg.Epoch, counter: rg.Counter, unit: rg.Unit, tokenUnit: rg.Unit})
	}
	// Past the node's session limit if need be: the session is one the
	// cluster has promised to keep.
	n.sessions.add(s, int(^uint(0)>>1))
	n.metrics.sessions.Inc()
	n.expiry.add(s, s.st.Deadline)
	return s, nil
}

// moving is the answer of a node that keeps a session of primary as its
// backup to a call of it: UNAVAILABLE with reason SESSION_MOVING, the
// session is alive; metadata "lease_ms" is how long this node serves at
// least (the client may count the session alive that much longer than
// its last keep-alive, within its TTL: the session cannot be lost before
// this node's lease runs out, as this node adopts it if its node is
// lost), "node_addr" the address of the node serving it as far as this
// node knows, "kept_ms" how long this node would keep the session if it
// adopted it now (until: the deadline its newest record gives it; none
// if zero: a fresh TTL then): the client counts on no more than that
// either.
func (n *Node) moving(primary int, until sm.Time) error {
	lease := n.ctl.leaseLeft()
	if lease <= 0 {
		return status.Error(codes.Unavailable, "this node is not serving")
	}
	meta := []string{"lease_ms", strconv.FormatInt(lease.Milliseconds(), 10), "node_addr", n.members.addr(primary)}
	if until != 0 {
		meta = append(meta, "kept_ms", strconv.FormatInt(sm.Kept(sessionNow(), until).Milliseconds(), 10))
	}
	return statusError(codes.Unavailable, pb.ReasonSessionMoving, "the session is served by another node, and this node adopts it if that node is lost: try the other nodes", meta...)
}

// backupServer is the Backup service of the node: the records of other
// nodes' sessions, kept by its keeper. Nodes only (secure.go: every
// service but Allot).
type backupServer struct {
	backuppb.UnimplementedBackupServer
	k *keeper
}

// Keep implements backuppb.BackupServer: each request is answered once
// kept, or refused (keeper.keep); one made for another generation of
// this node is not answered: its primary's view moves the backup to
// this generation, or elsewhere, and records there again.
func (b backupServer) Keep(stream backuppb.Backup_KeepServer) error {
	for {
		r, err := stream.Recv()
		if err != nil {
			return nil // the primary closed it, or it broke: it opens another
		}
		answer, kept := b.k.keep(r, stream.Context().Done())
		if !answer {
			continue
		}
		if err := stream.Send(&backuppb.KeepResponse{Batch: r.Batch, Refused: !kept}); err != nil {
			return err
		}
	}
}
