package service

import (
	"context"
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
)

// The primary's side of sessions that outlive their node (backup.go says
// the design): the records of this node's sessions go to its backup in
// the view it is in, in order, over the node's gRPC server (the Backup
// service; a call with a deadline and an answer, which the link
// transport's one-way messages would need to rebuild). One queue per
// backup keeps the records of a session in the order they were made, and
// sends what has piled up in one call.

// errNoBackup: a record could not reach the backup within the caller's
// time; the grant is not answered.
var errNoBackup = status.Error(codes.Unavailable, "the session's backup node did not answer: the grant is not answered unrecorded")

// replicator sends this node's session records to its backup.
type replicator struct {
	mu    sync.Mutex
	view  control.View // the view the node is in (Epoch 0: none yet)
	gen   uint64       // this node's generation in it
	to    *backupQueue // the queue to the backup (nil: the view has no other member)
	conns map[int]*grpc.ClientConn
}

// backupQueue is the records on their way to one backup.
type backupQueue struct {
	node   int
	api    backuppb.BackupClient
	gone   chan struct{} // closed when the node is this node's backup no more
	mu     sync.Mutex
	items  []*record
	closed bool // the sender stopped: no record is queued any more
	wake   chan struct{}
}

// record is one request of the queue, and its acknowledgement.
type record struct {
	req  *backuppb.KeepRequest
	done chan struct{} // closed once the backup has it
	// then, if set, runs once the backup has it, or once the queue is
	// gone (the backup moved: the view that moved it records the
	// sessions again where they must be).
	then func()
}

// backupOf is the backup of this node in view v (-1: none).
func (n *Node) backupOf(v control.View) int {
	if !v.Has(proc.ID(n.self), genOf(n.self, v)) {
		return -1
	}
	return successor(n.self, v)
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
func (n *Node) backupConn(k int) (*grpc.ClientConn, error) {
	r := n.rep
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.conns[k]; c != nil {
		return c, nil
	}
	n.pmu.Lock()
	addr, ok := n.peers[k]
	n.pmu.Unlock()
	if !ok {
		return nil, status.Errorf(codes.Unavailable, "no address of node %d", k)
	}
	opts := n.cfg.DialOptions
	if len(opts) == 0 {
		opts = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	c, err := grpc.NewClient(addr, opts...)
	if err != nil {
		return nil, err
	}
	r.conns[k] = c
	return c, nil
}

// moveBackup makes the node's backup the one of view v, and, if it moved,
// records every session at the new one (waiting, at most a lease) and
// tells the old one to forget them; if it did not, records the sessions
// adopted in v. Called by adopt before the node reports ready: the view
// serves once its sessions are recorded again.
func (n *Node) moveBackup(v control.View, adopted []*session) {
	r := n.rep
	to := n.backupOf(v)
	// The new queue is ready before the old one goes: a record is never
	// pushed into a gap and taken for "no backup".
	var q *backupQueue
	if to >= 0 {
		c, err := n.backupConn(to)
		if err != nil {
			n.log.Error("backup", "node", to, "err", err)
		} else {
			q = &backupQueue{node: to, api: backuppb.NewBackupClient(c), gone: make(chan struct{}), wake: make(chan struct{}, 1)}
		}
	}
	r.mu.Lock()
	if v.Epoch < r.view.Epoch {
		r.mu.Unlock()
		return // an older view's adopt, late: the newer one decided
	}
	old, oldGen, gen := r.to, r.gen, genOf(n.self, v)
	r.view, r.gen = v, gen
	moved := old == nil || old.node != to || oldGen != gen
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
		n.recordAll(adopted, to)
		return
	}
	go n.send(q)
	n.recordAll(n.sessions.list(), to)
	if old != nil && old.node != to && v.Has(proc.ID(old.node), genOf(old.node, v)) {
		// The old backup would adopt sessions that are not its to keep
		// any more, as they were when it last heard of them.
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), n.cfg.Suspect)
			defer cancel()
			if _, err := old.api.Keep(ctx, &backuppb.KeepRequest{Primary: int32(n.self), Gen: oldGen, Forget: true}); err != nil {
				n.log.Warn("telling the old backup to forget", "node", old.node, "err", err)
			}
		}()
	}
}

// recordAll records sessions at the backup (node to), waiting a lease at
// most.
func (n *Node) recordAll(sessions []*session, to int) {
	ctx, cancel := context.WithTimeout(context.Background(), n.cfg.Suspect)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(func() {
			if err := n.recordSession(ctx, s); err != nil {
				n.log.Warn("recording a session at the backup", "session", s.id, "backup", to, "err", err)
			}
		})
	}
	wg.Wait()
}

// snapshot is session s as it is now, under a new seq: its held grants,
// or its end.
func snapshot(s *session) *backuppb.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	out := &backuppb.Session{Id: s.id, TtlMs: s.ttl.Milliseconds(), Seq: s.seq, Ended: s.dead}
	for _, g := range s.grants {
		if !g.held() {
			continue
		}
		rg := &backuppb.Grant{Id: g.id, Key: g.key.String(), Epoch: g.epoch, Counter: g.counter, Unit: g.unit}
		for _, x := range g.req.Res {
			rg.Res = append(rg.Res, int32(x))
		}
		out.Grants = append(out.Grants, rg)
	}
	return out
}

// push queues the record of s at the backup now, to run then (if set)
// once it is there; q is nil when the view has no other member (nothing
// to record: then has run).
func (n *Node) push(s *session, then func()) (*backupQueue, *record) {
	r := n.rep
	r.mu.Lock()
	q, epoch, gen := r.to, r.view.Epoch, r.gen
	r.mu.Unlock()
	if q == nil {
		if then != nil {
			then()
		}
		return nil, nil
	}
	rec := &record{req: &backuppb.KeepRequest{Primary: int32(n.self), Gen: gen, Epoch: epoch, Sessions: []*backuppb.Session{snapshot(s)}}, done: make(chan struct{}), then: then}
	q.mu.Lock()
	closed := q.closed
	if !closed {
		q.items = append(q.items, rec)
	}
	q.mu.Unlock()
	if closed {
		if then != nil {
			then()
		}
		return q, rec // gone: the caller records again
	}
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return q, rec
}

// recordSession records s at the backup and waits until the backup has
// it, or ctx ends (errNoBackup). The backup may move meanwhile: then it
// is recorded at the new one.
func (n *Node) recordSession(ctx context.Context, s *session) error {
	for {
		q, rec := n.push(s, nil)
		if q == nil {
			return nil // no other member: no backup (a one-node cluster)
		}
		select {
		case <-rec.done:
			n.rep.mu.Lock()
			same := n.rep.to == q
			n.rep.mu.Unlock()
			if same {
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
func (n *Node) recordLater(s *session, then func()) { n.push(s, then) }

// send sends q's records, in order, until q is gone; a failed call is
// tried again (the backup may be slow, or briefly cut off). Once gone,
// what is left runs its then.
func (n *Node) send(q *backupQueue) {
	defer func() {
		q.mu.Lock()
		q.closed = true
		left := q.items
		q.items = nil
		q.mu.Unlock()
		for _, rec := range left {
			if rec.then != nil {
				rec.then()
			}
		}
	}()
	wait := 10 * time.Millisecond
	for {
		select {
		case <-q.gone:
			return
		case <-q.wake:
		}
		for {
			q.mu.Lock()
			batch := q.items
			q.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			// One call for the records of one view.
			req := &backuppb.KeepRequest{Primary: batch[0].req.Primary, Gen: batch[0].req.Gen, Epoch: batch[0].req.Epoch}
			k := 0
			for _, rec := range batch {
				if rec.req.Gen != req.Gen || rec.req.Epoch != req.Epoch {
					break
				}
				req.Sessions = append(req.Sessions, rec.req.Sessions...)
				k++
			}
			ctx, cancel := context.WithTimeout(context.Background(), n.cfg.Suspect)
			_, err := q.api.Keep(ctx, req)
			cancel()
			if err != nil {
				select {
				case <-q.gone:
					return
				case <-time.After(wait):
				}
				wait = min(2*wait, 200*time.Millisecond)
				continue
			}
			wait = 10 * time.Millisecond
			q.mu.Lock()
			q.items = q.items[k:]
			q.mu.Unlock()
			for _, rec := range batch[:k] {
				close(rec.done)
				if rec.then != nil {
					rec.then()
				}
			}
		}
	}
}

// closeBackups closes the connections to the backups.
func (n *Node) closeBackups() {
	r := n.rep
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
