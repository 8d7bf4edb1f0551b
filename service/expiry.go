package service

import (
	"context"
	"sync"
	"time"

	sm "github.com/allot-dev/allot/session"
)

// expiry ends the sessions whose lease ran out, from one goroutine for all
// of them, in the order of their deadlines (session.Expiry: a keep-alive
// only moves the session's deadline, and its place in the queue is
// corrected when it comes up), and gives back the grants of ended
// sessions whose lock-delay is over (session.Delays: until then a view
// change asks them again, as a live session's, so that the delay
// outlasts it; the node's loss within the delay ends it: the backup has
// the session ended). A timer per session or grant (time.AfterFunc)
// would start a goroutine for each, and many sessions expiring at once (a
// network cut, a client fleet restarting) would leave the runtime with as
// many goroutine records for good: the node's memory would not come back.
type expiry struct {
	mu     sync.Mutex
	q      sm.Expiry[*session]
	delays sm.Delays[*grant]
	wake   chan struct{} // a sooner deadline was added
}

func newExpiry() *expiry { return &expiry{wake: make(chan struct{}, 1)} }

// add queues s to be looked at at at.
func (e *expiry) add(s *session, at sm.Time) {
	e.mu.Lock()
	first := e.q.Add(s, at)
	e.mu.Unlock()
	if first {
		e.woken()
	}
}

// delay holds g, a grant of an ended session, until until.
func (e *expiry) delay(g *grant, until sm.Time) {
	e.mu.Lock()
	first := e.delays.Add(g, until)
	e.mu.Unlock()
	if first {
		e.woken()
	}
}

// delayed is the grants the lock-delay holds now.
func (e *expiry) delayed() []*grant {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.delays.Held()
}

// due takes the grants whose lock-delay is over by now; wait is how long
// until the next is (0: none held).
func (e *expiry) due(now sm.Time) ([]*grant, time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.delays.Due(now)
}

// woken wakes expire: a sooner deadline was added.
func (e *expiry) woken() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// next pops the first session due by now; wait is how long until the
// first is due when none is (0: the queue is empty).
func (e *expiry) next(now sm.Time) (s *session, wait time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, wait, _ = e.q.Next(now)
	return s, wait
}

// expiryRetry is how soon a session due to expire while the node has no
// lease is looked at again (session.Wait says why it is not ended then).
const expiryRetry = 50 * time.Millisecond

// expire ends the sessions of n as their leases run out, while the node
// holds its own lease, and gives back the grants whose lock-delay is
// over, until ctx ends.
func (n *Node) expire(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		now := sessionNow()
		gs, delayWait := n.expiry.due(now)
		if len(gs) > 0 {
			// Off this goroutine: a give-back waits for its instance.
			go func() {
				for _, g := range gs {
					g.release()
				}
			}()
		}
		s, wait := n.expiry.next(now)
		if s != nil {
			s.mu.Lock()
			st := s.st
			s.mu.Unlock()
			switch st.Due(now, n.ctl.leaseLeft() > 0) {
			case sm.Later:
				n.expiry.add(s, st.Deadline)
			case sm.Wait:
				n.expiry.add(s, now.Add(expiryRetry))
			case sm.Expire:
				n.end(s, n.cfg.LockDelay, "lease expired", true)
			}
			continue
		}
		if wait == 0 || delayWait > 0 && delayWait < wait {
			wait = delayWait
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
