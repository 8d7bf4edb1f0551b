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
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/backuppb"
	"github.com/allot-dev/allot/service/internal/space"
)

// Sessions that outlive their node. A session lives on the node that
// opened it, its primary, which serves its calls; the primary's backup is
// the next member after it in the view's ring of members (successor). The
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

// primaryRun is a primary's run: its node and its generation in the views.
type primaryRun struct {
	node int
	gen  uint64
}

// keeper is what this node keeps as the backup of other nodes' sessions.
type keeper struct {
	mu sync.Mutex
	of map[primaryRun]*kept
	// gone: runs whose sessions were taken over or dropped; a record of
	// theirs still on its way is refused, not kept again.
	gone map[primaryRun]bool
	// left: runs that moved their backup away from this node, and the
	// view that moved it; a record made in an older view, still on its
	// way, is refused.
	left map[primaryRun]uint64
}

// kept is one primary run's sessions, as of the newest view it recorded
// them in.
type kept struct {
	epoch    uint64
	sessions map[uint64]*backuppb.Session
	// until: when each session is to end if adopted, by this node's
	// clock: its newest record's LeftMs from when it came (none from a
	// primary that sends no LeftMs: a fresh TTL then).
	until map[uint64]time.Time
}

func newKeeper() *keeper {
	return &keeper{of: map[primaryRun]*kept{}, gone: map[primaryRun]bool{}, left: map[primaryRun]uint64{}}
}

// keep takes the records of r.
func (k *keeper) keep(r *backuppb.KeepRequest) {
	pr := primaryRun{int(r.Primary), r.Gen}
	now := time.Now()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.gone[pr] || r.Epoch < k.left[pr] {
		return
	}
	kp := k.of[pr]
	if r.Forget {
		delete(k.of, pr)
		kp = nil
	}
	if len(r.Sessions) == 0 {
		return
	}
	if kp == nil {
		kp = &kept{sessions: map[uint64]*backuppb.Session{}, until: map[uint64]time.Time{}}
		k.of[pr] = kp
	}
	kp.epoch = max(kp.epoch, r.Epoch)
	for _, s := range r.Sessions {
		if old := kp.sessions[s.Id]; old != nil && old.Seq >= s.Seq {
			continue // a record sent before one kept already
		}
		delete(kp.until, s.Id)
		if s.Ended {
			delete(kp.sessions, s.Id)
		} else {
			kp.sessions[s.Id] = s
			if s.LeftMs > 0 {
				kp.until[s.Id] = now.Add(time.Duration(s.LeftMs) * time.Millisecond)
			}
		}
	}
	if len(kp.sessions) == 0 {
		delete(k.of, pr)
	}
}

// keeps reports whether this node keeps session id for another node,
// for which, and until when it would keep it if it adopted it (zero:
// a fresh TTL from the adoption).
func (k *keeper) keeps(id uint64) (primary int, until time.Time, ok bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for pr, kp := range k.of {
		if _, ok := kp.sessions[id]; ok {
			return pr.node, kp.until[id], true
		}
	}
	return -1, time.Time{}, false
}

// successor is the first member of v after node p in the ring of v's
// members by id (-1 if v has no member but p): p's backup while p is a
// member, and the node that adopts p's sessions once v leaves p out.
func successor(p int, v control.View) int {
	for _, m := range v.Members {
		if int(m) > p {
			return int(m)
		}
	}
	if len(v.Members) > 0 && int(v.Members[0]) != p {
		return int(v.Members[0])
	}
	return -1
}

// takeOver moves into the session table the sessions this node keeps for
// primaries that view v leaves out, when this node is the one to adopt
// them (the primary's backup in prev, the view v replaced: the run was
// there), and returns them; it drops the others. Called by adopt before
// it reads the held grants, which are then asked again in v with the
// node's own.
func (n *Node) takeOver(v, prev control.View) []*session {
	k := n.keeper
	var adopt []adoption
	k.mu.Lock()
	for pr, kp := range k.of {
		if v.Epoch <= kp.epoch {
			continue // records of a newer view than v
		}
		if v.Has(proc.ID(pr.node), pr.gen) {
			if successor(pr.node, v) != n.self {
				// Its backup is another node now: what this node kept
				// grows stale (sessions end, grants go back, recorded
				// elsewhere), and must never be adopted.
				delete(k.of, pr)
				k.left[pr] = v.Epoch
			}
			continue
		}
		// A view newer than the primary's last record that does not have
		// its run: that run serves no more (a run once out never comes
		// back: it rejoins as a new generation).
		delete(k.of, pr)
		k.gone[pr] = true
		if !prev.Has(proc.ID(pr.node), pr.gen) || successor(pr.node, prev) != n.self {
			// Another member was its backup when it was lost (or this
			// node moved on from a snapshot and does not know): what
			// this node kept dates from an older view.
			n.log.Warn("dropping the sessions of a lost node: this node was not its last backup", "primary", pr.node, "gen", pr.gen, "sessions", len(kp.sessions))
			continue
		}
		for id, s := range kp.sessions {
			adopt = append(adopt, adoption{s, kp.until[id]})
		}
		n.log.Info("adopting the sessions of a lost node", "primary", pr.node, "gen", pr.gen, "epoch", v.Epoch, "sessions", len(kp.sessions))
	}
	k.mu.Unlock()
	var out []*session
	for _, a := range adopt {
		s, err := n.adoptSession(a.r, a.until)
		if err != nil {
			n.log.Error("adopting a session", "session", a.r.Id, "err", err)
			continue
		}
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// adoption is a kept session to adopt, and until when (kept.until).
type adoption struct {
	r     *backuppb.Session
	until time.Time
}

// adoptSession enters the kept session r in the session table, its
// grants held (to be asked again in the new view), with the deadline
// until its primary recorded (zero: a fresh TTL, for a primary that
// records none); nil if the table has it already. The deadline is kept,
// not started afresh: a session whose client stopped ends when it would
// have at its node, however many nodes adopt it in turn.
func (n *Node) adoptSession(r *backuppb.Session, until time.Time) (*session, error) {
	if n.sessions.get(r.Id) != nil {
		return nil, nil
	}
	s := &session{id: r.Id, ttl: time.Duration(r.TtlMs) * time.Millisecond, done: make(chan struct{}), grants: map[uint64]*grant{}}
	for _, rg := range r.Grants {
		key, err := space.ParseKey(rg.Key)
		if err != nil {
			return nil, fmt.Errorf("grant %d: %w", rg.Id, err)
		}
		// Not in an instance of this node yet (in is nil): regrant puts
		// it in one (a lock's names get their ids of the view there); a
		// give-back before that is done there.
		s.grants[rg.Id] = &grant{id: rg.Id, key: key, names: rg.Names, epoch: rg.Epoch, counter: rg.Counter, unit: rg.Unit, tokenUnit: rg.Unit, answered: true}
	}
	// Past the node's session limit if need be: the session is one the
	// cluster has promised to keep.
	s.deadline = until
	if until.IsZero() {
		s.deadline = time.Now().Add(s.ttl)
	}
	s.adopted = s.deadline
	n.sessions.add(s, int(^uint(0)>>1))
	n.metrics.sessions.Inc()
	n.expiry.add(s, s.deadline)
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
func (n *Node) moving(primary int, until time.Time) error {
	lease := n.ctl.leaseLeft()
	if lease <= 0 {
		return status.Error(codes.Unavailable, "this node is not serving")
	}
	meta := []string{"lease_ms", strconv.FormatInt(lease.Milliseconds(), 10), "node_addr", n.memberAddr(primary)}
	if !until.IsZero() {
		// What it keeps, rounded down: the client counts on no more.
		meta = append(meta, "kept_ms", strconv.FormatInt(max(time.Until(until).Milliseconds(), 0), 10))
	}
	return statusError(codes.Unavailable, pb.ReasonSessionMoving, "the session is served by another node, and this node adopts it if that node is lost: try the other nodes", meta...)
}

// backupServer is the Backup service of the node: the records of other
// nodes' sessions. Nodes only (secure.go: every service but Allot).
type backupServer struct {
	backuppb.UnimplementedBackupServer
	n *Node
}

// Keep implements backuppb.BackupServer: each request is answered once
// kept.
func (b backupServer) Keep(stream backuppb.Backup_KeepServer) error {
	for {
		r, err := stream.Recv()
		if err != nil {
			return nil // the primary closed it, or it broke: it opens another
		}
		b.n.keeper.keep(r)
		if err := stream.Send(&backuppb.KeepResponse{Batch: r.Batch}); err != nil {
			return err
		}
	}
}
