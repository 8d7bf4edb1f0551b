package client_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// TestCallsOfASessionElsewhere is the .proto's "Which node serves a
// session" as a client of another language sees it: a session opened on
// node 0 is served there; its backup, node 1 (the next member), answers
// its calls UNAVAILABLE with reason SESSION_MOVING, the backup's lease
// what it keeps the session for, and node 0's address; node 2 does not
// know it and cannot tell it ended (UNAVAILABLE, SESSION_NOT_HERE). Once
// closed, node 0 says it ended (NOT_FOUND, SESSION_EXPIRED), and its
// backup no longer keeps it.
func TestCallsOfASessionElsewhere(t *testing.T) {
	addrs, _ := cluster(t, 3, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	api := make([]pb.AllotClient, 3)
	for i, a := range addrs {
		cc, err := grpc.NewClient(a, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		api[i] = pb.NewAllotClient(cc)
	}
	r, err := api[0].OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api[0].KeepAlive(ctx, &pb.KeepAliveRequest{Session: r.Session}); err != nil {
		t.Fatalf("KeepAlive at the session's node: %v", err)
	}
	info := func(err error) (codes.Code, *errdetails.ErrorInfo) {
		st := status.Convert(err)
		for _, d := range st.Details() {
			if i, ok := d.(*errdetails.ErrorInfo); ok {
				return st.Code(), i
			}
		}
		return st.Code(), nil
	}
	_, err = api[1].KeepAlive(ctx, &pb.KeepAliveRequest{Session: r.Session})
	code, ei := info(err)
	if code != codes.Unavailable || ei == nil || ei.Reason != pb.ReasonSessionMoving {
		t.Fatalf("KeepAlive at the backup: %v, want UNAVAILABLE, SESSION_MOVING", err)
	}
	if ms, err := strconv.Atoi(ei.Metadata["lease_ms"]); err != nil || ms <= 0 || ei.Metadata["node_addr"] != addrs[0] {
		t.Errorf("SESSION_MOVING's metadata %v, want lease_ms > 0 and node_addr %s", ei.Metadata, addrs[0])
	}
	// The backup keeps the session until the deadline its last record
	// gave it: the TTL from the keep-alive, and a lease (the cluster's
	// --suspect, 3s) of slack.
	if ms, err := strconv.Atoi(ei.Metadata["kept_ms"]); err != nil || ms < 5000 || ms > 8000 {
		t.Errorf("SESSION_MOVING's metadata %v, want kept_ms within the TTL (5000) and a lease (3000) of the keep-alive", ei.Metadata)
	}
	_, err = api[1].Lock(ctx, &pb.LockRequest{Session: r.Session, Resources: []string{"a"}})
	if code, ei := info(err); code != codes.Unavailable || ei == nil || ei.Reason != pb.ReasonSessionMoving {
		t.Errorf("Lock at the backup: %v, want UNAVAILABLE, SESSION_MOVING", err)
	}
	_, err = api[2].KeepAlive(ctx, &pb.KeepAliveRequest{Session: r.Session})
	if code, ei := info(err); code != codes.Unavailable || ei == nil || ei.Reason != pb.ReasonSessionNotHere {
		t.Errorf("KeepAlive at a node that does not keep the session: %v, want UNAVAILABLE, SESSION_NOT_HERE", err)
	}
	// Closed, the session is forgotten by its backup too.
	if _, err := api[0].CloseSession(ctx, &pb.CloseSessionRequest{Session: r.Session}); err != nil {
		t.Fatal(err)
	}
	_, err = api[0].KeepAlive(ctx, &pb.KeepAliveRequest{Session: r.Session})
	if code, ei := info(err); code != codes.NotFound || ei == nil || ei.Reason != pb.ReasonSessionExpired {
		t.Errorf("KeepAlive at the session's node after the close: %v, want NOT_FOUND, SESSION_EXPIRED", err)
	}
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, err = api[1].KeepAlive(ctx, &pb.KeepAliveRequest{Session: r.Session})
		if _, ei := info(err); ei == nil || ei.Reason != pb.ReasonSessionMoving {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("KeepAlive at the backup 2s after the close: %v, want no SESSION_MOVING", err)
		}
	}
}
