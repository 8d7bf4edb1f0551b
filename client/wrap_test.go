package client

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// TestWrap: each code and reason a node answers maps to its error, and a
// status without a reason (a node of an older version) keeps its code's
// old meaning.
func TestWrap(t *testing.T) {
	with := func(c codes.Code, reason string, meta map[string]string) error {
		s, err := status.New(c, "msg").WithDetails(&errdetails.ErrorInfo{Domain: pb.ErrorDomain, Reason: reason, Metadata: meta})
		if err != nil {
			t.Fatal(err)
		}
		return s.Err()
	}
	counts := map[string]string{"taken": "3", "asked": "7"}
	for _, tc := range []struct {
		what  string
		err   error
		is    error
		isNot error
	}{
		{"old NOT_FOUND", status.Error(codes.NotFound, "no grant"), ErrSessionExpired, ErrNotHeld},
		{"NOT_HELD", with(codes.NotFound, pb.ReasonNotHeld, nil), ErrNotHeld, ErrSessionExpired},
		{"SESSION_EXPIRED", with(codes.NotFound, pb.ReasonSessionExpired, nil), ErrSessionExpired, ErrNotHeld},
		{"old FAILED_PRECONDITION", status.Error(codes.FailedPrecondition, "taken"), ErrLocked, ErrMismatch},
		{"UNITS_MISMATCH", with(codes.FailedPrecondition, pb.ReasonUnitsMismatch, nil), ErrMismatch, ErrLocked},
		{"another domain's reason", func() error {
			s, _ := status.New(codes.FailedPrecondition, "x").WithDetails(&errdetails.ErrorInfo{Domain: "other", Reason: pb.ReasonUnitsMismatch})
			return s.Err()
		}(), ErrLocked, ErrMismatch},
		{"old RESOURCE_EXHAUSTED", status.Error(codes.ResourceExhausted, "exhausted"), ErrExhausted, ErrUnavailable},
		{"QUOTA_EXHAUSTED", with(codes.ResourceExhausted, pb.ReasonExhausted, counts), ErrExhausted, ErrUnavailable},
		{"TAKE_CUT_SHORT", with(codes.Unavailable, pb.ReasonCutShort, counts), ErrUnavailable, ErrExhausted},
		{"TAKE_CUT_SHORT cancelled", with(codes.Canceled, pb.ReasonCutShort, counts), context.Canceled, ErrUnavailable},
	} {
		err := wrap(tc.err)
		if !errors.Is(err, tc.is) || errors.Is(err, tc.isNot) {
			t.Errorf("%s: %v, want %v and not %v", tc.what, err, tc.is, tc.isNot)
		}
	}
	var ex *ExhaustedError
	if err := wrap(with(codes.ResourceExhausted, pb.ReasonExhausted, counts)); !errors.As(err, &ex) || ex.Taken != 3 || ex.Asked != 7 {
		t.Errorf("QUOTA_EXHAUSTED of 3 of 7: %v (%+v)", err, ex)
	}
	var cut *CutShortError
	if err := wrap(with(codes.Unavailable, pb.ReasonCutShort, counts)); !errors.As(err, &cut) || cut.Taken != 3 || cut.Asked != 7 {
		t.Errorf("TAKE_CUT_SHORT of 3 of 7: %v (%+v)", err, cut)
	}
}
