package service

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/backuppb"
	sm "github.com/allot-dev/allot/session"
	tgrpc "github.com/allot-dev/allot/transport/grpc"
)

// The primary's side of sessions that outlive their node (backup.go says
// the design): the records of this node's sessions go to its backup in
// the view it is in, in order, over the node's gRPC server (the Backup
// service's stream: a record and its answer are two messages on a stream
// that lives as long as the backup does; the link transport's one-way
// messages would need the answers rebuilt). One queue per backup keeps
// the records of a session in the order they were made, and sends what
// has piled up in one message.

// errNoBackup: a record could not reach the backup within the caller's
// time; the call (an open, a keep-alive, a grant) is not answered.
var errNoBackup = status.Error(codes.Unavailable, "the session's backup node did not answer in time: the call is not answered before the backup has its record")

// replicator sends this node's session records to its backup: it
// follows the views the node adopts (move), and records a session there
// before the node answers a call of it (record).
type replicator struct {
	// What the node is, fixed once New returns, and the roles it reads
	// of the node's other parts.
	self     int
	suspect  time.Duration     // Config.Suspect, the lease: a record's slack, an answer's longest wait
	dial     []grpc.DialOption // Config.DialOptions: a secure cluster's credentials
	log      *slog.Logger
	peers    peerReader    // where to dial the backup (the membership)
	sessions sessionLister // the sessions to record again at a new backup (the session table)

	mu    sync.Mutex   // the fields below
	view  control.View // the view the node is in (Epoch 0: none yet)
	gen   uint64       // this node's generation in it
	to    *backupQueue // the queue to the backup (nil: the view has no other member)
	conns map[int]*grpc.ClientConn
	// stops counts the times this node stopped serving (fence): a record
	// made before a stop and not answered by then may not be kept (the
	// backup may have adopted the session since).
	stops uint64
}

// peerReader is what the replicator reads of the membership: the
// address member k is linked to at (membership.peerAddr), where its
// Backup service is (the node's one port).
type peerReader interface {
	peerAddr(k int) (string, bool)
}

// sessionLister is what the replicator reads of the session table: the
// sessions open at this node, all of which a new backup must have.
type sessionLister interface {
	list() []*session
}

func newReplicator(cfg Config, log *slog.Logger, peers peerReader, sessions sessionLister) *replicator {
	return &replicator{self: cfg.Self, suspect: cfg.Suspect, dial: cfg.DialOptions, log: log, peers: peers, sessions: sessions, conns: map[int]*grpc.ClientConn{}}
}

// backupQueue is the records on their way to one backup.
type backupQueue struct {
	node int
	gen  uint64        // the backup's run: a new run keeps nothing of the old one's records
	gone chan struct{} // closed when the node is this node's backup no more

	mu   sync.Mutex
	out  sm.Outbox[*record] // not answered yet, in order; closed once the sender stopped
	wake chan struct{}
}

// record is one request of the queue, and its answer.
type record struct {
	req  *backuppb.KeepRequest
	done chan struct{} // closed once the backup has it
	end  sm.Time       // until when it asks the backup to keep the session (snapshot)
	// refused: the backup answered it without keeping it (it took this
	// run over, or moved away from it); set before done is closed.
	refused bool
	stops   uint64 // the node's stops when it was made
	// then, if set, runs once the backup has it, or once the queue is
	// gone (the backup moved: the view that moved it records the
	// sessions again where they must be); recorded is false when the
	// record may not be kept (refused, or the queue went after this node
	// stopped serving without an answer to it).
	then func(recorded bool)
}

// backupOf is the backup of this node in view v (-1: none).
func (r *replicator) backupOf(v control.View) int {
	if !v.Has(proc.ID(r.self), genOf(r.self, v)) {
		return -1
	}
	return sm.Successor(r.self, sessionView(v))
}

// genOf is node k's generation in v (0 if it is no member).
func genOf(k int, v control.View) uint64 {
	i, ok := slices.BinarySearch(v.Members, proc.ID(k))
	if !ok {
		return 0
	}
	return v.Gens[i]
}

// conn is the connection to node k, dialled once.
func (r *replicator) conn(k int) (*grpc.ClientConn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.conns[k]; c != nil {
		return c, nil
	}
	addr, ok := r.peers.peerAddr(k)
	if !ok {
		return nil, status.Errorf(codes.Unavailable, "no address of node %d", k)
	}
	// The links' options (transport/grpc): a short reconnect backoff,
	// keep-alive pings that find a silently dead connection, fixed
	// flow-control windows.
	opts := append(tgrpc.DialOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	opts = append(opts, r.dial...) // a secure cluster's credentials replace these
	c, err := grpc.NewClient(addr, opts...)
	if err != nil {
		return nil, err
	}
	r.conns[k] = c
	return c, nil
}

// dropConn closes the connection c to node k, so that the next call
// dials afresh.
func (r *replicator) dropConn(k int, c *grpc.ClientConn) {
	r.mu.Lock()
	if r.conns[k] == c {
		delete(r.conns, k)
	}
	r.mu.Unlock()
	c.Close()
}

// move makes the node's backup the one of view v, and, if it moved
// (another node, or a new run of it: restarted faster than a view could
// leave it out, it lost what it kept), records every session at the new
// one, waiting a lease at most (the old one drops what it kept when it
// adopts v: takeOver); if it did not, records the sessions adopted in v.
// Called by adopt before the node reports ready: the view serves once its
// sessions are recorded again.
func (r *replicator) move(v control.View, adopted []*session) {
	to := r.backupOf(v)
	// The new queue is ready before the old one goes: a record is never
	// pushed into a gap and taken for "no backup".
	var q *backupQueue
	if to >= 0 {
		q = &backupQueue{node: to, gen: genOf(to, v), gone: make(chan struct{}), wake: make(chan struct{}, 1)}
	}
	r.mu.Lock()
	if v.Epoch < r.view.Epoch {
		r.mu.Unlock()
		return // an older view's adopt, late: the newer one decided
	}
	old, oldGen, gen := r.to, r.gen, genOf(r.self, v)
	r.view, r.gen = v, gen
	moved := old == nil || old.node != to || old.gen != q.gen || oldGen != gen
	if moved {
		if old != nil {
			close(old.gone)
		}
		r.to = q
	}
	r.mu.Unlock()
	if q == nil {
		return
	}
	if !moved {
		r.recordAll(adopted, to)
		return
	}
	go r.send(q)
	sessions := r.sessions.list()
	for _, s := range sessions {
		// What the old backup kept is no promise of the new one's.
		s.mu.Lock()
		s.st.Moved()
		s.mu.Unlock()
	}
	r.recordAll(sessions, to)
}

// recordAll records sessions at the backup (node to), waiting a lease at
// most.
func (r *replicator) recordAll(sessions []*session, to int) {
	ctx, cancel := context.WithTimeout(context.Background(), r.suspect)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(func() {
			if err := r.record(ctx, s); err != nil {
				r.log.Warn("recording a session at the backup", "session", s.id, "backup", to, "err", err)
			}
		})
	}
	wg.Wait()
}

// snapshot is session s as it is now, under a new seq: its held grants,
// or its end; and end, until when the backup is to keep it
// (session.Session.Record: the deadline, plus slack when this node's
// keep-alives set it), which it says as the time left from now (LeftMs,
// counted by the backup from when it gets it).
func snapshot(s *session, slack time.Duration) (out *backuppb.Session, end sm.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var grants []sm.Grant
	for _, g := range s.grants.Held() {
		// The rest is fixed once answered.
		grants = append(grants, sm.Grant{ID: g.ID, Key: g.key.String(), Names: g.names, Epoch: g.epoch, Counter: g.counter, Unit: g.tokenUnit, Call: g.Call})
	}
	r, end := s.st.Record(sessionNow(), slack, grants)
	return recordPB(r), end
}

// recordPB is r on the wire; fromPB (backup.go) reads it back.
func recordPB(r sm.Record) *backuppb.Session {
	out := &backuppb.Session{Id: r.ID, TtlMs: r.TTL.Milliseconds(), Seq: r.Seq, Ended: r.Ended, LeftMs: r.Left.Milliseconds()}
	for _, g := range r.Grants {
		out.Grants = append(out.Grants, &backuppb.Grant{Id: g.ID, Key: g.Key, Names: g.Names, Epoch: g.Epoch, Counter: g.Counter, Unit: g.Unit, Call: g.Call})
	}
	return out
}

// push queues the record of s at the backup now, to run then (if set)
// once it is there; q is nil when the view has no other member (nothing
// to record: then has run).
func (r *replicator) push(s *session, then func(recorded bool)) (*backupQueue, *record) {
	r.mu.Lock()
	q, epoch, gen, stops := r.to, r.view.Epoch, r.gen, r.stops
	r.mu.Unlock()
	if q == nil {
		if then != nil {
			then(true)
		}
		return nil, nil
	}
	snap, end := snapshot(s, r.suspect)
	// To: the backup's generation the record is made for (a restarted
	// process at its address is not that backup, and keeps none of it).
	rec := &record{req: &backuppb.KeepRequest{Primary: int32(r.self), Gen: gen, Epoch: epoch, To: q.gen, Sessions: []*backuppb.Session{snap}}, done: make(chan struct{}), end: end, stops: stops, then: then}
	q.mu.Lock()
	_, queued := q.out.Push(rec)
	q.mu.Unlock()
	if !queued {
		if then != nil {
			then(true)
		}
		return q, rec // gone: the caller records again
	}
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return q, rec
}

// record records s at the backup and waits until the backup has
// it, or ctx ends (errNoBackup). The backup may move meanwhile: then it
// is recorded at the new one. Once it has it, s.st says until when
// the backup keeps s.
func (r *replicator) record(ctx context.Context, s *session) error {
	for {
		q, rec := r.push(s, nil)
		if q == nil {
			return nil // no other member: no backup (a one-node cluster)
		}
		select {
		case <-rec.done:
			if rec.refused {
				// Not kept: the backup took this run over, or moved
				// away from it. Only the view that moves the backup
				// records it again, if this node serves in it.
				select {
				case <-q.gone:
					continue
				case <-ctx.Done():
					return errNoBackup
				}
			}
			r.mu.Lock()
			same := r.to == q
			r.mu.Unlock()
			if same {
				s.mu.Lock()
				s.st.Acked(rec.end)
				s.mu.Unlock()
				return nil
			}
		case <-q.gone:
		case <-ctx.Done():
			return errNoBackup
		}
	}
}

// recordLater records s at the backup and calls then once the backup has
// it, or once the backup has moved; no goroutine waits meanwhile (many
// sessions may end at once).
func (r *replicator) recordLater(s *session, then func()) {
	r.push(s, func(bool) { then() })
}

// send sends q's records, in order, on a stream to the backup until q is
// gone; on a new stream after a broken one, it sends again what was not
// answered. A stream on which a record waits a lease for its answer is
// taken for silently dead (the backup answers at once what it gets; a
// connection whose far side went away without a reset breaks nothing on
// this side until keep-alive finds it, seconds later): its connection is
// closed and the next stream is on a new one. Once gone, what is left
// runs its then.
func (r *replicator) send(q *backupQueue) {
	defer func() {
		q.mu.Lock()
		left := q.out.Close()
		q.mu.Unlock()
		r.mu.Lock()
		stops := r.stops
		r.mu.Unlock()
		for _, rec := range left {
			if rec.then != nil {
				// Not answered before this node stopped serving: the
				// backup may have adopted the session without it.
				rec.then(rec.stops == stops)
			}
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wait := 10 * time.Millisecond
	for {
		c, err := r.conn(q.node)
		var stream backuppb.Backup_KeepClient
		sctx, scancel := context.WithCancel(ctx)
		if err == nil {
			stream, err = backuppb.NewBackupClient(c).Keep(sctx)
		}
		if err == nil {
			broken := make(chan struct{})
			go answers(q, stream, broken)
			err = pump(q, stream, broken, r.suspect)
			scancel()
			<-broken
			if err == nil {
				return // gone
			}
			if err == errSilent {
				r.log.Warn("the backup's stream is silent: dialling it afresh", "backup", q.node, "after", r.suspect)
				r.dropConn(q.node, c)
			}
		}
		scancel()
		r.log.Debug("backup stream", "node", q.node, "err", err)
		select {
		case <-q.gone:
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// errBroken: the stream's answers stopped; errSilent: a record sent on it
// was not answered within a lease.
var (
	errBroken = status.Error(codes.Unavailable, "the backup's stream broke")
	errSilent = status.Error(codes.Unavailable, "the backup's stream is silent")
)

// pump sends q's records on stream, from the first not answered, until q
// is gone (nil), the stream breaks, or the oldest record sent on it waits
// longer than silent for its answer.
func pump(q *backupQueue, stream backuppb.Backup_KeepClient, broken <-chan struct{}, silent time.Duration) error {
	tick := time.NewTicker(silent / 4)
	defer tick.Stop()
	var sent uint64 // the last record sent on this stream
	for {
		q.mu.Lock()
		batch := q.out.Send(sent, sessionNow())
		q.mu.Unlock()
		for len(batch) > 0 {
			// One message for the records of one view.
			first := batch[0].Record.req
			// The queue's first record drops whatever the backup kept of
			// this run before: a node that was its backup once, left the
			// view and came back, keeps records since grown stale.
			req := &backuppb.KeepRequest{Primary: first.Primary, Gen: first.Gen, Epoch: first.Epoch, To: first.To, Forget: batch[0].ID == 1}
			k := 0
			for _, p := range batch {
				if p.Record.req.Gen != req.Gen || p.Record.req.Epoch != req.Epoch {
					break
				}
				req.Sessions = append(req.Sessions, p.Record.req.Sessions...)
				k++
			}
			req.Batch = batch[k-1].ID
			if err := stream.Send(req); err != nil {
				return err
			}
			sent = req.Batch
			batch = batch[k:]
		}
		select {
		case <-q.gone:
			return nil
		case <-broken:
			return errBroken
		case <-q.wake:
		case <-tick.C:
			q.mu.Lock()
			late := q.out.Silent(sent, sessionNow(), silent)
			q.mu.Unlock()
			if late {
				return errSilent
			}
		}
	}
}

// answers takes the backup's answers on stream until it breaks (then it
// closes broken): each answers the records up to its batch, kept or
// refused (one request's records are kept, or refused, together).
func answers(q *backupQueue, stream backuppb.Backup_KeepClient, broken chan<- struct{}) {
	defer close(broken)
	for {
		r, err := stream.Recv()
		if err != nil {
			return
		}
		q.mu.Lock()
		answered := q.out.Ack(r.Batch)
		q.mu.Unlock()
		for _, rec := range answered {
			rec.refused = r.Refused
			close(rec.done)
			if rec.then != nil {
				rec.then(!r.Refused)
			}
		}
	}
}

// stopped counts a stop of this node's serving (fence): what is on its
// way to the backup by then may not be kept.
func (r *replicator) stopped() {
	r.mu.Lock()
	r.stops++
	r.mu.Unlock()
}

// close closes the queue to the backup and the connections to the
// backups.
func (r *replicator) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.to != nil {
		close(r.to.gone)
		r.to = nil
	}
	for _, c := range r.conns {
		c.Close()
	}
}
