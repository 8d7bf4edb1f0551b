package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Failover, as the caller sees it. A call of a session whose node is
// lost (killed, cut off, stopped serving: UNAVAILABLE, connection
// refused, a stream broken, SESSION_MOVING or SESSION_NOT_HERE) is not
// answered with that: the session waits until its node serves it again
// (the keep-alive finds it, or the node it moved to), and the call is
// made again there, until it is answered, the session is lost by the
// client's own count (Done: ErrSessionExpired), or the caller's context
// ends (its error, saying what the cluster answered meanwhile).
//
// Unlock and Release are safe to repeat (NOT_HELD: done already). A Take
// cut off takes what it lacks again: the permits of a Take cut off with
// no answer are not counted (they are consumed, as the quota's waste). A
// Lock or an Acquire cut off may have been granted and recorded at the
// session's backup before its node was lost without answering: the
// adopted session holds it. Made again blindly, a Lock would wait behind
// its own grant until the session ends. So before a Lock or Acquire is
// made again, the session's node is asked which grants of the session
// hold its names (Holders): one the client was never answered is the
// call's. That is exact unless another Lock of the same names (Acquire
// of the same semaphore) of the session is on its way meanwhile: its
// grant and the cut-off one cannot be told apart, and the call is
// ErrUnavailable, as is one to a node of an earlier version (no
// Holders): the grant may be held by the session until it ends.
//
// A client given one address cannot move a session: a call's errors
// reach the caller as before.

// flight is a Lock (its names) or an Acquire (its semaphore) sent and
// not answered yet.
type flight struct {
	names     []string
	semaphore string
}

// overlaps reports whether f and g may be granted the same grant's
// names.
func (f *flight) overlaps(g *flight) bool {
	if f.semaphore != "" || g.semaphore != "" {
		return f.semaphore == g.semaphore
	}
	for _, n := range f.names {
		if slices.Contains(g.names, n) {
			return true
		}
	}
	return false
}

// Pacing of the calls made again while a session's node does not serve
// it (a view change: the keep-alives may succeed while the calls are
// refused): the first pause, doubled each time up to the last.
const (
	againPause    = 5 * time.Millisecond
	againPauseMax = 200 * time.Millisecond
)

// rideOver waits, after a call of s was cut off by err (its node does
// not serve the session now: elsewhere), for the session's node to
// answer a keep-alive again — the same node or the one the session
// moved to — and a pause that grows with try, the calls made so far.
// nil: make the call again. Otherwise the call's error: ErrSessionExpired
// once Done has closed, ctx's once it ends.
func (s *Session) rideOver(ctx context.Context, err error, try int) error {
	s.mu.Lock()
	renewal := s.renewal
	s.mu.Unlock()
	s.moveNow()
	pause := time.NewTimer(min(againPause<<min(try, 8), againPauseMax))
	defer pause.Stop()
	select {
	case <-pause.C:
	case <-s.done:
		return s.lostMeanwhile(err)
	case <-ctx.Done():
		return s.ended(ctx, err)
	}
	select {
	case <-renewal:
		return nil
	case <-s.done:
		return s.lostMeanwhile(err)
	case <-ctx.Done():
		return s.ended(ctx, err)
	}
}

// lostMeanwhile is ErrSessionExpired, for a call whose last try was cut
// off by err when the session was lost.
func (s *Session) lostMeanwhile(err error) error {
	return fmt.Errorf("%w: lost while its node did not serve it (%v)", ErrSessionExpired, wrap(err))
}

// ended is ctx's error, for a call whose last try was cut off by err:
// what the cluster answered is said, but only ctx's error is wrapped.
func (s *Session) ended(ctx context.Context, err error) error {
	return fmt.Errorf("%w (the session's node did not serve it meanwhile: %v)", ctx.Err(), s.wrap(err))
}

// callOnce makes f once at the session's node, with ctx, and says which
// node that was. A call the node has not answered when the session moves
// (a frozen node answers nothing) is given up: UNAVAILABLE, as if its
// node were lost, which it is to the session; so is one the node answers
// it does not serve the session, and the session looks for its node.
func (s *Session) callOnce(ctx context.Context, f func(context.Context, pb.AllotClient) error) (int, error) {
	api, at, moved := s.node()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-moved:
			cancel()
		case <-cctx.Done():
		}
	}()
	err := f(cctx, api)
	if err != nil && ctx.Err() == nil && status.Code(err) == codes.Canceled {
		select {
		case <-moved:
			err = status.Error(codes.Unavailable, "the session moved while its node had not answered the call")
		default:
		}
	}
	if err != nil && len(s.c.conns) > 1 && elsewhere(err) {
		s.moveNow()
	}
	return at, err
}

// obtain makes call, a Lock or an Acquire of f, and returns its grant:
// made again where the session's node serves it if it is cut off, or
// found held by the session (failover.go's top). A grant from a Lock's
// answer has only its id (call keeps the answer's tokens); one found
// held has its token too.
func (s *Session) obtain(ctx context.Context, f *flight, call func(context.Context, pb.AllotClient) (*pb.Holder, error)) (*pb.Holder, error) {
	for try := 0; ; try++ {
		var h *pb.Holder
		mark := s.mark()
		s.mu.Lock()
		s.flying[f] = true
		s.mu.Unlock()
		at, err := s.callOnce(ctx, func(ctx context.Context, api pb.AllotClient) (err error) {
			h, err = call(ctx, api)
			return err
		})
		s.mu.Lock()
		delete(s.flying, f)
		if err == nil {
			s.held[h.Grant] = true
		}
		s.mu.Unlock()
		if err == nil {
			s.recorded(mark, at)
			return h, nil
		}
		if ctx.Err() != nil || len(s.c.conns) == 1 || !elsewhere(err) {
			return nil, s.wrap(err)
		}
		cut := err
		for {
			if err := s.rideOver(ctx, cut, try); err != nil {
				return nil, err
			}
			h, err = s.reclaim(ctx, f)
			if err == nil || !elsewhere(err) {
				break
			}
			cut = err // the node was lost again: ride over it too
			try++
		}
		switch {
		case errors.Is(err, errAmbiguous) || status.Code(err) == codes.Unimplemented:
			return nil, fmt.Errorf("%w: the call was cut off by its node's loss, and may be held by the session until it ends (%v)", ErrUnavailable, s.wrap(cut))
		case err != nil:
			return nil, s.wrap(err)
		case h != nil:
			return h, nil
		}
	}
}

// errAmbiguous: a grant of the session found held that the client was
// never answered may be another call's, on its way.
var errAmbiguous = errors.New("another call of the same names is on its way")

// reclaim asks the session's node for a grant of the session that holds
// f's names and that the client was never answered (nor gave back): the
// grant of f's call, cut off after its grant was recorded, which it then
// claims. nil, nil: none (the call was not granted: make it again).
func (s *Session) reclaim(ctx context.Context, f *flight) (*pb.Holder, error) {
	req := &pb.HoldersRequest{Session: s.id, Name: f.semaphore, Semaphore: true}
	if f.semaphore == "" {
		req = &pb.HoldersRequest{Session: s.id, Name: f.names[0]}
	}
	// At the session's node as any call of it: given up if the session
	// moves before the node answers (a node frozen after it answered the
	// keep-alive that sent the client here would hold the call, and the
	// cut-off Lock with it, until the caller's context ends).
	var r *pb.HoldersResponse
	if _, err := s.callOnce(ctx, func(ctx context.Context, api pb.AllotClient) (err error) {
		r, err = api.Holders(ctx, req)
		return err
	}); err != nil {
		return nil, err
	}
	want := slices.Compact(slices.Sorted(slices.Values(f.names)))
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range r.Holders {
		if s.held[h.Grant] || slices.ContainsFunc(s.given, func(g givenBack) bool { return g.grant == h.Grant }) {
			continue
		}
		if f.semaphore == "" && !slices.Equal(h.Resources, want) {
			continue
		}
		for g := range s.flying {
			if g.overlaps(f) {
				return nil, errAmbiguous
			}
		}
		s.held[h.Grant] = true
		return h, nil
	}
	return nil, nil
}

// take is Quota.Take of n permits of quota name: a Take cut off takes
// again what it lacks, where the session's node serves it (failover.go's
// top): the permits a cut-off Take says it took count towards n (they
// are consumed, counted in the quota as any other). An error counts the
// permits of every try (ExhaustedError, CutShortError).
func (s *Session) take(ctx context.Context, name string, n int) error {
	taken := 0
	for try := 0; ; try++ {
		_, err := s.callOnce(ctx, func(ctx context.Context, api pb.AllotClient) error {
			_, err := api.Take(ctx, &pb.TakeRequest{Session: s.id, Name: name, N: int64(n - taken)})
			return err
		})
		if err == nil {
			return nil
		}
		w := s.wrap(err)
		var ex *ExhaustedError
		var cs *CutShortError
		switch {
		case errors.As(w, &ex):
			return &ExhaustedError{Taken: taken + ex.Taken, Asked: n, msg: ex.msg}
		case errors.As(w, &cs):
			taken += cs.Taken
			w = cs.err
		}
		if ctx.Err() == nil && len(s.c.conns) > 1 && elsewhere(err) {
			w = s.rideOver(ctx, err, try)
		}
		if w == nil {
			if taken >= n {
				// Cut short once every permit was taken (the node's
				// lease ran out as it answered): they are consumed, and
				// counted in the quota as any other.
				return nil
			}
			continue
		}
		if taken > 0 {
			return &CutShortError{Taken: taken, Asked: n, err: w}
		}
		return w
	}
}
