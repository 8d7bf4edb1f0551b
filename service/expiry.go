package service

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// expiry ends the sessions whose lease ran out, from one goroutine for all
// of them. A timer per session (time.AfterFunc) would start a goroutine per
// expiry, and many sessions expiring at once (a network cut, a client
// fleet restarting) would leave the runtime with as many goroutine records
// for good: the node's memory would not come back. A keep-alive only moves
// the session's deadline; its place in the queue is corrected when it comes
// up (lazily), so a keep-alive costs no more than it did.
type expiry struct {
	mu   sync.Mutex
	q    deadlines
	wake chan struct{} // a sooner deadline was added
}

// deadline is a session due to be looked at, at.
type deadline struct {
	at time.Time
	s  *session
}

// deadlines is a min-heap by at.
type deadlines []deadline

func (d deadlines) Len() int           { return len(d) }
func (d deadlines) Less(i, j int) bool { return d[i].at.Before(d[j].at) }
func (d deadlines) Swap(i, j int)      { d[i], d[j] = d[j], d[i] }
func (d *deadlines) Push(x any)        { *d = append(*d, x.(deadline)) }
func (d *deadlines) Pop() any {
	old := *d
	x := old[len(old)-1]
	old[len(old)-1] = deadline{}
	*d = old[:len(old)-1]
	return x
}

func newExpiry() *expiry { return &expiry{wake: make(chan struct{}, 1)} }

// add queues s to be looked at at at.
func (e *expiry) add(s *session, at time.Time) {
	e.mu.Lock()
	heap.Push(&e.q, deadline{at: at, s: s})
	first := e.q[0].s == s
	e.mu.Unlock()
	if first {
		select {
		case e.wake <- struct{}{}:
		default:
		}
	}
}

// next pops the first session due by now; wait is how long until the
// first is due when none is (0: the queue is empty).
func (e *expiry) next(now time.Time) (s *session, wait time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.q) == 0 {
		return nil, 0
	}
	if d := e.q[0].at.Sub(now); d > 0 {
		return nil, d
	}
	s = heap.Pop(&e.q).(deadline).s
	if cap(e.q) > 64 && len(e.q) < cap(e.q)/4 {
		// The queue shrank a lot: its array goes back too.
		e.q = append(make(deadlines, 0, 2*len(e.q)), e.q...)
	}
	return s, 0
}

// expiryRetry is how soon a session due to expire while the node has no
// lease is looked at again.
const expiryRetry = 50 * time.Millisecond

// expire ends the sessions of n as their leases run out, while the node
// holds its own lease, until ctx ends.
func (n *Node) expire(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		s, wait := n.expiry.next(time.Now())
		if s != nil {
			s.mu.Lock()
			dead, at := s.dead, s.deadline
			s.mu.Unlock()
			switch {
			case dead: // closed
			case time.Now().Before(at):
				n.expiry.add(s, at) // kept alive meanwhile
			case n.ctl.leaseLeft() <= 0:
				// Past the node's own lease the session is not this
				// node's to end: the cluster may have moved on without
				// the node (frozen, cut off) and the session's backup
				// adopted it, grants and all, for a client that kept it
				// alive there. Ended here, its grants would be held
				// under the lock-delay and asked for again in the next
				// view beside the backup's, each waiting for the other:
				// that view would never serve. The node fences itself if
				// it was left out (its sessions end, nothing delayed);
				// if its lease comes back, the session is looked at then.
				n.expiry.add(s, time.Now().Add(expiryRetry))
			default:
				n.end(s, n.cfg.LockDelay, "lease expired", true)
			}
			continue
		}
		if wait == 0 {
			wait = time.Hour
		}
		t.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-n.expiry.wake:
		case <-t.C:
		}
	}
}
