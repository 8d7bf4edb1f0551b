package service

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/space"
	sm "github.com/allot-dev/allot/session"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

var errDraining = status.Error(codes.Unavailable, "the node is shutting down")

// acquire runs one request of a session on the instance of key in this
// node's view: waits for the view to be ready and for a free slot (the
// lock makes one: locks.go), asks, waits for the answer (fenced by the
// instance). A lock's names are its request: they are resolved to their
// resource ids in each view (names.go). The grant is registered with the
// session before the request is made, so an expiring session finds it. A
// request still waiting when the view changes starts over in the next
// one. A request the session made before under the same call number
// (not 0), and holds the grant of, is answered with that grant: the
// client asks again a request whose answer it did not get (its node
// lost, the connection cut), and the first try's grant may be held,
// here or at the backup that adopted the session.
func (n *Node) acquire(ctx context.Context, s *session, key space.Key, req proc.Request, lockNames []string, try bool, call uint64) (*grant, error) {
	for {
		if n.draining.Load() {
			return nil, errDraining
		}
		st, err := n.current(ctx, s.done)
		if err != nil {
			return nil, err
		}
		// In a ready view: an adopted grant is held again there. Like
		// any answer, never before the session's backup has it (an
		// adopter records its sessions at its own backup anew).
		if g, err := s.answered(call, key, lockNames); err != nil {
			return nil, err
		} else if g != nil {
			if err := n.rep.record(ctx, s); err != nil {
				return nil, err
			}
			return g, nil
		}
		if key.Kind == algo.Pool {
			// A semaphore's units are checked in the view it is asked
			// in: a refresh forgets those nobody holds (semaphores.go).
			if err := n.checkUnits(ctx, s, key, st); err != nil {
				return nil, err
			}
		}
		in, err := n.instance(space.Space{Key: key, View: st.v})
		if errors.Is(err, errRetiredView) {
			continue
		}
		if err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
		if key.Kind == algo.Exclusive {
			req.Res, err = n.resolve(ctx, st, s.done, lockNames)
			if errors.Is(err, errRetiredView) {
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		sl, claimed, err := in.grab(false)
		switch {
		case errors.Is(err, errRetiredView):
			continue
		case errors.Is(err, errFull) && key.Kind == algo.Pool:
			return nil, n.limitReached("holders", "this node has its most requests of semaphore %q open at once, %d (--max-sessions): release some, or acquire on another node", key.Name, in.users.Most())
		case errors.Is(err, errFull):
			return nil, n.limitReached("locks", "this node has its most lock requests open at once, %d (--max-locks): unlock some, or lock on another node", n.cfg.MaxLocks)
		case err != nil:
			return nil, status.Error(codes.Internal, err.Error())
		}
		var trying <-chan time.Time
		if try {
			// From here on: the view's wait and a new semaphore's first
			// record in the control log (a Raft round, which a loaded
			// machine draws out past TryWait) say nothing of whether the
			// resource is taken.
			t := time.NewTimer(n.cfg.TryWait)
			defer t.Stop()
			trying = t.C
		}
		if sl == nil {
			sl, err = in.idle(ctx, st.retired, s.done, trying, claimed)
			if errors.Is(err, errRetiredView) {
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		g := &grant{GrantLife: sm.GrantLife{ID: n.id(), Call: call}, s: s, key: key, req: req, names: lockNames, in: in, sl: sl, epoch: st.v.Epoch}
		if !s.add(g) {
			in.putBack(sl)
			return nil, errExpired
		}
		in.request(sl, req, g.ID, g.keys())
		var behind <-chan struct{}
		stop := make(chan struct{})
		if q, ok := sl.p.(proc.Queued); ok && try {
			// No guess with a timer: the algorithm tells when the
			// request waits behind another user, and until then it is
			// on its way to a grant.
			trying = nil
			behind = in.watch(sl, q, stop)
		}
		var a answer
		select {
		case a = <-sl.answer:
		case <-behind:
			close(stop)
			s.drop(g)
			in.abandon(sl)
			return nil, errTaken
		case <-st.retired:
			close(stop)
			s.drop(g)
			in.abandon(sl)
			continue
		case <-ctx.Done():
			close(stop)
			s.drop(g)
			in.abandon(sl)
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-s.done:
			close(stop)
			s.drop(g)
			in.abandon(sl)
			return nil, errExpired
		case <-trying:
			close(stop)
			s.drop(g)
			in.abandon(sl)
			return nil, errTaken
		}
		close(stop)
		g.unit, g.tokenUnit, g.counter = a.ev.Unit, a.ev.Unit, a.counter
		serving := n.ctl.serving(st.v.Epoch) && !n.draining.Load()
		moved, ok := n.views.answerIn(st, serving, func() bool { return s.answer(g) })
		if moved {
			// The view changed before the answer was taken (a grant of
			// a replaced view is not asked again: adopt did not see
			// it), or the node's lease ran out: this request starts
			// over in the next view.
			s.drop(g)
			g.release()
			continue
		}
		if !ok {
			// The session ended while the answer was on its way: it goes
			// back.
			s.drop(g)
			g.release()
			return nil, errExpired
		}
		// Never answered before the session's backup has it (backup.go).
		recording := time.Now()
		if err := n.rep.record(ctx, s); err != nil {
			// Its record may reach the backup yet: it goes back after
			// one without it.
			s.drop(g)
			n.rep.recordLater(s, g.release)
			return nil, err
		}
		n.metrics.record.WithLabelValues(key.Kind.String()).Observe(time.Since(recording).Seconds())
		select {
		case <-s.done:
			return nil, errExpired // ended meanwhile: end gives g back
		default:
		}
		return g, nil
	}
}

// idle waits for one of this node's users of in to be idle; claimed: the
// wait counts on a lock user given back (grab), which it uncounts.
func (in *instance) idle(ctx context.Context, retired, done <-chan struct{}, trying <-chan time.Time, claimed bool) (*slot, error) {
	if claimed {
		defer in.unclaim()
	}
	select {
	case sl := <-in.free:
		in.idleAgain(sl)
		return sl, nil
	case <-retired:
		return nil, errRetiredView
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	case <-done:
		return nil, errExpired
	case <-trying:
		return nil, errTaken
	}
}

// watch asks slot s's process every 2ms, between its inputs, whether its
// open request waits behind another user's (proc.Queued: an observation,
// the algorithm does nothing else), until stop is closed; the channel it
// returns gets a value once it does.
func (in *instance) watch(s *slot, q proc.Queued, stop <-chan struct{}) <-chan struct{} {
	behind := make(chan struct{}, 1)
	go func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			in.call(s, func(proc.Env) {
				if known, b := q.Behind(); known && b {
					select {
					case behind <- struct{}{}:
					default:
					}
				}
			})
		}
	}()
	return behind
}

// regrant asks in view st for grant g again, for a holder whose grant was
// made in an earlier view. g keeps its token (of the earlier, smaller
// epoch). Given back meanwhile, it is released as soon as it is granted.
func (n *Node) regrant(g *grant, st *epochState) {
	in, err := n.instance(space.Space{Key: g.key, View: st.v})
	if err != nil {
		n.log.Error("regrant", "key", g.key.String(), "err", err)
		return
	}
	req := g.req
	if g.key.Kind == algo.Exclusive {
		// The names have other ids in this view.
		if req.Res, err = n.resolve(context.Background(), st, nil, g.names); err != nil {
			if !errors.Is(err, errRetiredView) {
				n.log.Error("regrant", "key", g.key.String(), "err", err)
			}
			return
		}
	}
	sl, claimed, err := in.grab(true)
	if err != nil && !errors.Is(err, errFull) {
		if !errors.Is(err, errRetiredView) {
			n.log.Error("regrant", "key", g.key.String(), "err", err)
		}
		return
	}
	if sl == nil {
		// Every slot is taken: a held grant waits for one (a lock's
		// holders were within the limit in the view before).
		if sl, err = in.idle(context.Background(), st.retired, nil, nil, claimed); err != nil {
			return
		}
	}
	in.request(sl, req, g.ID, g.keys())
	var a answer
	select {
	case a = <-sl.answer:
	case <-st.retired:
		in.abandon(sl)
		return
	}
	g.s.mu.Lock()
	released := g.State == sm.Released
	g.mu.Lock()
	g.in, g.sl, g.unit = in, sl, a.ev.Unit
	g.mu.Unlock()
	g.s.mu.Unlock()
	if released {
		in.release(sl, a.ev.Unit)
	}
}

// grant is one Lock or Acquire answered to a session.
type grant struct {
	// s is the session whose lock guards GrantLife and since, after the
	// session ended too (the lock-delay holds its grants): the grant's
	// id, the client's number of its request (0: none), and whether it
	// waits, is held, given back or lost, as the session's grants read
	// and move it (session.Grants); since: when this node answered the
	// grant, or adopted the session that holds it (Holders).
	s *session
	sm.GrantLife
	since time.Time

	key     space.Key    // the lock or a semaphore
	req     proc.Request // what was asked (a lock: in the view it was asked in)
	names   []string     // a lock's names, as asked
	epoch   uint64       // the view the token was issued in
	counter uint64       // the fencing counter
	// tokenUnit is a semaphore grant's unit in view epoch, the one its
	// token names; unit is where it is held now (a view change numbers
	// the units afresh, and regrant moves it).
	tokenUnit int32

	// mu guards where the grant is held now (moved by regrant), which a
	// give-back reads under it (givenBack), and with s.mu (release),
	// so that a regrant and a release agree on who gives it back.
	mu   sync.Mutex
	in   *instance
	sl   *slot
	unit int32
}

// keys are the fenced keys of a lock's grant: "lock/" + each distinct
// name, sorted (nil for a semaphore).
func (g *grant) keys() []string {
	if g.key.Kind != algo.Exclusive {
		return nil
	}
	ks := make([]string, 0, len(g.names))
	for _, name := range g.names {
		ks = append(ks, lockKey(name))
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

// held reports whether g is held: answered, not given back. For a grant
// out of its session's table (a lock-delay holds it), whose lock the
// caller does not hold.
func (g *grant) held() bool {
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	return g.Held()
}

// givenBack notes that g's user was given back (locks.go, grab).
func (g *grant) givenBack() {
	g.mu.Lock()
	in, sl := g.in, g.sl
	g.mu.Unlock()
	if in != nil {
		in.givenBack(sl)
	}
}

// release gives the grant back, once.
func (g *grant) release() {
	g.s.mu.Lock()
	first := g.Release()
	g.mu.Lock()
	in, sl, unit := g.in, g.sl, g.unit
	g.mu.Unlock()
	g.s.mu.Unlock()
	// in is nil for a grant adopted from a lost node and not asked again
	// yet: regrant gives it back once it is.
	if first && in != nil {
		in.release(sl, unit)
	}
}
