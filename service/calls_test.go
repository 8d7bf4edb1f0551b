package service_test

import (
	"context"
	"strings"
	"testing"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// callsStream opens a Calls stream on api and returns a function that
// sends a call and one that reads the next result (failing the test
// past 5 s).
func callsStream(t testing.TB, api pb.AllotClient) (send func(*pb.Call), recv func() *pb.CallResult) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, err := api.Calls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	results := make(chan *pb.CallResult, 16)
	go func() {
		defer close(results)
		for {
			r, err := st.Recv()
			if err != nil {
				return
			}
			results <- r
		}
	}()
	send = func(c *pb.Call) {
		t.Helper()
		if err := st.Send(c); err != nil {
			t.Fatalf("send %v: %v", c, err)
		}
	}
	recv = func() *pb.CallResult {
		t.Helper()
		select {
		case r, ok := <-results:
			if !ok {
				t.Fatal("the stream ended")
			}
			return r
		case <-time.After(5 * time.Second):
			t.Fatal("no result in 5 s")
			return nil
		}
	}
	return send, recv
}

// code is a result's status code (OK without an error).
func code(r *pb.CallResult) codes.Code {
	if r.Error == nil {
		return codes.OK
	}
	return codes.Code(r.Error.Code)
}

// errStatus is a failed result's status.
func errStatus(r *pb.CallResult) *spb.Status {
	return &spb.Status{Code: r.Error.Code, Message: r.Error.Message, Details: r.Error.Details}
}

// TestCalls: the Calls stream answers each call by its id as the unary
// call would, its status and details included; a Lock waiting behind
// another holder holds up no other call on the stream; a cancel and a
// timeout end a waiting Lock, which is then granted to nobody; a
// duplicate open id and a call without a request are INVALID_ARGUMENT.
//
// It runs on the gRPC stream and on the native protocol, where a call
// without a request is refused (UNIMPLEMENTED) with the connection.
func TestCalls(t *testing.T) {
	for _, native := range []bool{false, true} {
		t.Run(map[bool]string{false: "grpc", true: "native"}[native], func(t *testing.T) { testCalls(t, native) })
	}
}

func testCalls(t *testing.T, native bool) {
	api, nd, addr := apiNodeAt(t, nil)
	a, b := openSession(t, api), openSession(t, api)
	send, recv := callsStream(t, api)
	if native {
		send, recv = nativeCalls(t, addr, nil, "")
	}
	lock := func(id, sid uint64, timeout time.Duration, names ...string) {
		send(&pb.Call{Id: id, TimeoutUs: timeout.Microseconds(), Request: &pb.Call_Lock{Lock: &pb.LockRequest{Session: sid, Resources: names}}})
	}

	lock(1, a, 0, "x", "y")
	r := recv()
	if r.Id != 1 || code(r) != codes.OK || len(r.GetLock().GetTokens()) != 2 {
		t.Fatalf("Lock x y: %v", r)
	}
	held := r.GetLock().Grant

	// b's Lock waits behind a's; the calls after it are answered first.
	lock(2, b, 0, "x")
	send(&pb.Call{Id: 3, Request: &pb.Call_Unlock{Unlock: &pb.UnlockRequest{Session: a, Grant: held + 1000}}})
	if r := recv(); r.Id != 3 || code(r) != codes.NotFound || reason(status.FromProto(errStatus(r)).Err()) != pb.ReasonNotHeld {
		t.Fatalf("Unlock of a grant not held: %v, want 3 NOT_FOUND %s", r, pb.ReasonNotHeld)
	}
	send(&pb.Call{Id: 2, Request: &pb.Call_Cancel{Cancel: true}})
	if r := recv(); r.Id != 2 || code(r) != codes.Canceled {
		t.Fatalf("cancelled Lock: %v, want 2 CANCELLED", r)
	}
	// A's give-back lets b's next Lock through: the cancelled one holds
	// nothing.
	send(&pb.Call{Id: 4, Request: &pb.Call_Unlock{Unlock: &pb.UnlockRequest{Session: a, Grant: held}}})
	if r := recv(); r.Id != 4 || code(r) != codes.OK || r.GetUnlock() == nil {
		t.Fatalf("Unlock: %v", r)
	}
	lock(5, b, 0, "x")
	if r := recv(); r.Id != 5 || code(r) != codes.OK {
		t.Fatalf("b's Lock after a's Unlock: %v", r)
	}

	// A timeout ends a Lock as a unary call's deadline does.
	start := time.Now()
	lock(6, a, 50*time.Millisecond, "x")
	if r := recv(); r.Id != 6 || code(r) != codes.DeadlineExceeded {
		t.Fatalf("Lock with 50ms behind b: %v, want 6 DEADLINE_EXCEEDED", r)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a 50ms timeout answered after %v", d)
	}

	lock(7, a, 0, "x")
	lock(7, a, 0, "y")
	if r := recv(); r.Id != 7 || code(r) != codes.InvalidArgument {
		t.Fatalf("a second call 7 while 7 is open: %v, want INVALID_ARGUMENT", r)
	}
	send(&pb.Call{Id: 7, Request: &pb.Call_Cancel{Cancel: true}})
	if r := recv(); r.Id != 7 || code(r) != codes.Canceled {
		t.Fatalf("cancelled Lock 7: %v", r)
	}
	// Bad input is the unary call's error.
	lock(9, a, 0)
	if r := recv(); r.Id != 9 || code(r) != codes.InvalidArgument || !strings.Contains(r.Error.Message, "resource") {
		t.Fatalf("Lock of no resources: %v", r)
	}

	sem := func(id uint64) {
		send(&pb.Call{Id: id, Request: &pb.Call_Acquire{Acquire: &pb.AcquireRequest{Session: a, Name: "s", Units: 1}}})
	}
	sem(10)
	r = recv()
	if r.Id != 10 || code(r) != codes.OK || r.GetAcquire().GetToken() == nil {
		t.Fatalf("Acquire: %v", r)
	}
	send(&pb.Call{Id: 11, Request: &pb.Call_Release{Release: &pb.ReleaseRequest{Session: a, Grant: r.GetAcquire().Grant}}})
	if r := recv(); r.Id != 11 || code(r) != codes.OK || r.GetRelease() == nil {
		t.Fatalf("Release: %v", r)
	}

	if native {
		send(&pb.Call{Id: 8})
		if r := recv(); r.Id != 8 || code(r) != codes.Unimplemented || !strings.Contains(r.Error.Message, "no method") {
			t.Fatalf("a call without a request: %v, want UNIMPLEMENTED", r)
		}
	} else {
		send(&pb.Call{Id: 8})
		if r := recv(); r.Id != 8 || code(r) != codes.InvalidArgument {
			t.Fatalf("a call without a request: %v, want INVALID_ARGUMENT", r)
		}
	}

	for _, want := range []string{
		`allot_stream_calls_total{grpc_code="OK",grpc_method="Lock"} 2`,
		`allot_stream_calls_total{grpc_code="Canceled",grpc_method="Lock"} 2`,
		`allot_stream_calls_total{grpc_code="NotFound",grpc_method="Unlock"} 1`,
		`allot_stream_calls_total{grpc_code="OK",grpc_method="Release"} 1`,
	} {
		i := strings.LastIndexByte(want, ' ')
		if got := metric(t, nd, want[:i]); got != want[i+1:] {
			t.Errorf("metrics: %s %s, want %s", want[:i], got, want[i+1:])
		}
	}
}
