package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	pb "github.com/allot-dev/allot/api/allot/v1"

	"github.com/allot-dev/allot/proc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Take implements the Allot service: n requests of one permit each, in
// turn, on one user slot of this node. A reject ends the Take with
// RESOURCE_EXHAUSTED; the permits issued before it are consumed. A view
// change goes on in the next view with the permits still to take (those
// of the old view are on disk first).
func (n *Node) Take(ctx context.Context, r *pb.TakeRequest) (*pb.TakeResponse, error) {
	if err := checkName("name", "quota", r.Name, false); err != nil {
		return nil, err
	}
	q, ok := n.c.Quotas[r.Name]
	if !ok {
		return nil, badInput("name", "no quota %q in this cluster", r.Name)
	}
	// More than the budget could never be taken: refused before a permit
	// is consumed.
	if r.N <= 0 || r.N > int64(q.Budget) {
		return nil, badInput("n", "take of 1 to the quota's budget, %d permits, got %d", q.Budget, r.N)
	}
	s, err := n.session(r.Session)
	if err != nil {
		return nil, err
	}
	var taken int64
	for {
		st, err := n.current(ctx, s.done)
		if err != nil {
			return nil, takeShort(s.gone(err), taken, r.N)
		}
		got, err := n.take(ctx, s, st, r.Name, taken, r.N)
		taken += got
		switch {
		case errors.Is(err, errViewChanged) && taken < r.N:
			continue // the rest in the next view
		case err != nil && !errors.Is(err, errViewChanged):
			return nil, takeShort(s.gone(err), taken, r.N)
		}
		return &pb.TakeResponse{Permits: r.N}, nil
	}
}

// errViewChanged: a Take's view retired; what it issued is on disk.
var errViewChanged = errors.New("the view changed")

// take takes the permits of quota name from taken to want in view st,
// and returns how many it took, and why it stopped short (errViewChanged:
// the view retired). Permits are on disk before it returns: a permit the
// node would not know of after a crash is never handed out.
func (n *Node) take(ctx context.Context, s *session, st *epochState, name string, taken, want int64) (int64, error) {
	defer n.ctl.issuing()()
	select {
	case <-st.retired:
		return 0, errViewChanged
	default:
	}
	if st.spent[name] {
		if st.guess[name] {
			return 0, status.Errorf(codes.Unavailable, "quota %s: what is left is held for a node away since an earlier view, until it is back on its data", name)
		}
		return 0, status.Errorf(codes.ResourceExhausted, "quota %s exhausted: every permit was issued", name)
	}
	sp, ok := st.quotas[name]
	if !ok {
		return 0, status.Errorf(codes.Unavailable, "quota %s has no instance in this view", name)
	}
	in, err := n.instance(sp)
	if errors.Is(err, errRetiredView) {
		return 0, errViewChanged
	}
	if err != nil {
		return 0, status.Error(codes.Unavailable, err.Error())
	}
	qi, _ := slices.BinarySearch(n.ctl.quotas, name)
	var got int64
	var refused error
	reserved := 0  // permits reserved in the node's chunk, not yet settled
	var kept int64 // permits of got already on disk
	defer func() {
		if reserved > 0 && got == kept {
			n.ctl.chunks.settle(qi, reserved, 0) // never issued: the view retired first
		}
	}()
	for taken+got < want && refused == nil {
		if n.draining.Load() {
			refused = errDraining
			break
		}
		var sl *slot
		select {
		case sl = <-in.free:
		case <-st.retired:
			refused = errViewChanged
		case <-ctx.Done():
			refused = status.FromContextError(ctx.Err()).Err()
		case <-s.done:
			refused = errExpired
		}
		if refused != nil {
			break
		}
		// The permit is within this node's chunk of the view, or waits
		// for the report that grants the next one to commit (package
		// chunk's Reserve, which the data plane's model runs too).
		refused = n.ctl.chunks.reserve(st.v.Epoch, qi, func(wait <-chan struct{}) error {
			if got > kept {
				// The chunk is used up: what this Take got so far goes
				// on disk first, so that the report it waits for can
				// count it.
				count, err := n.ctl.store.AddIssued(name, uint64(got-kept))
				if err != nil {
					return status.Errorf(codes.Unavailable, "quota %s: the node could not record its permits", name)
				}
				n.ctl.chunks.settle(qi, int(got-kept), count)
				reserved -= int(got - kept)
				kept = got
				n.ctl.issued()
			}
			select {
			case <-wait:
				return nil
			case <-st.retired:
				return errViewChanged
			case <-ctx.Done():
				return status.FromContextError(ctx.Err()).Err()
			case <-s.done:
				return errExpired
			}
		})
		if refused != nil {
			in.free <- sl
			break
		}
		reserved++
		in.request(sl, proc.Request{}, 0, nil)
		// A caller that gives up (its context, its session, the view)
		// does not abandon the request: the controller may have issued
		// its permit already, or issue it yet, and an issued permit is
		// consumed, so it goes on disk with the others. The ledger takes
		// the node's counts for what its views issued: a permit left out
		// would be issued again by a later view. The wait ends at the
		// answer, or at the view's retire (a view change, or the fence
		// once the lease runs out).
		var gaveUp error
		var a answer
		answered := false
		select {
		case a = <-sl.answer:
			answered = true
		case <-st.retired:
			gaveUp = errViewChanged
		case <-ctx.Done():
			gaveUp = status.FromContextError(ctx.Err()).Err()
		case <-s.done:
			gaveUp = errExpired
		}
		if gaveUp != nil {
			a, answered = in.outcome(sl, st)
			refused = gaveUp
		}
		if !answered {
			break // the view retired first: not issued (settled below)
		}
		in.free <- sl
		if a.ev.Kind != proc.EvReject {
			got++
			continue
		}
		// Not issued: its reservation ends now.
		n.ctl.chunks.settle(qi, 1, 0)
		reserved--
		switch {
		case refused != nil:
		case st.guess[name]:
			// The view began short of an absent member's report: this
			// reject proves nothing of the quota's waste.
			refused = status.Errorf(codes.Unavailable, "quota %s: what is left is held for a node away since an earlier view, until it is back on its data", name)
		default:
			refused = status.Errorf(codes.ResourceExhausted, "quota %s exhausted after %d of %d permits", name, taken+got, want)
		}
	}
	if got > kept {
		count, err := n.ctl.store.AddIssued(name, uint64(got-kept))
		if err != nil {
			// Held as reserved for good: the node may have issued them.
			n.log.Error("quota: the permit count could not be kept", "quota", name, "err", err)
			return got, status.Errorf(codes.Unavailable, "quota %s: the node could not record its permits", name)
		}
		n.ctl.chunks.settle(qi, reserved, count)
		reserved = 0
		n.ctl.issued()
	}
	lapsed := refused == nil && !n.ctl.serving(st.v.Epoch) || errors.Is(refused, errViewChanged) && n.ctl.leaseLeft() <= 0
	if got > 0 && lapsed {
		// The lease ran out meanwhile (and the view with it, perhaps: a
		// view change alone goes on in the next view): the permits are
		// spent, not handed out.
		refused = status.Errorf(codes.Unavailable, "quota %s: this node stopped serving", name)
	}
	return got, refused
}

// takeShort is the error of a Take of asked permits that ended with err
// after taken of them, which are consumed (the controller cannot take a
// permit back): the count goes in the ErrorInfo, taken and asked, for
// the client to return (client.ExhaustedError). RESOURCE_EXHAUSTED has
// reason QUOTA_EXHAUSTED, another code with permits taken TAKE_CUT_SHORT;
// other errors, with none taken, go as they are.
func takeShort(err error, taken, asked int64) error {
	st := status.Convert(err)
	meta := []string{"taken", strconv.FormatInt(taken, 10), "asked", strconv.FormatInt(asked, 10)}
	switch {
	case st.Code() == codes.ResourceExhausted:
		return statusError(codes.ResourceExhausted, pb.ReasonExhausted, st.Message(), meta...)
	case taken > 0:
		return statusError(st.Code(), pb.ReasonCutShort, fmt.Sprintf("%s (%d of %d permits taken)", st.Message(), taken, asked), meta...)
	}
	return err
}
