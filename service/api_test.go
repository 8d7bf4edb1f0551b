package service_test

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/service"
)

// apiNode starts a one-node cluster in this process, with the quota q
// (budget 20, waste 4), its config changed by edit (nil: none), and
// returns a raw gRPC client of it and the node.
func apiNode(t *testing.T, edit func(*service.Config)) (pb.AllotClient, *service.Node) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := service.Config{Cluster: service.Cluster{Nodes: []string{ln.Addr().String()}, Slots: 8,
		Quotas: map[string]service.QuotaSpec{"q": {Budget: 20, Waste: 4}}}}
	if edit != nil {
		edit(&cfg)
	}
	nd, err := service.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	if err := nd.Register(s); err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		nd.Shutdown(ctx)
		s.Stop()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := nd.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return pb.NewAllotClient(dialRaw(t, ln.Addr().String())), nd
}

// reason is the ErrorInfo reason of err's status ("" if none).
func reason(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.Domain == pb.ErrorDomain {
			return info.Reason
		}
	}
	return ""
}

// openSession opens a session of 10s on api.
func openSession(t *testing.T, api pb.AllotClient) uint64 {
	t.Helper()
	r, err := api.OpenSession(context.Background(), &pb.OpenSessionRequest{TtlMs: 10000})
	if err != nil {
		t.Fatal(err)
	}
	return r.Session
}

// TestNotHeld: Unlock and Release of a grant given back already is
// NOT_FOUND (what older clients read) with reason NOT_HELD, and the
// session lives on; a closed session's is NOT_FOUND with SESSION_EXPIRED.
func TestNotHeld(t *testing.T) {
	api, _ := apiNode(t, nil)
	ctx := context.Background()
	sid := openSession(t, api)
	lk, err := api.Lock(ctx, &pb.LockRequest{Session: sid, Resources: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	sem, err := api.Acquire(ctx, &pb.AcquireRequest{Session: sid, Name: "s", Units: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, give := range []struct {
		what string
		call func() error
	}{
		{"Unlock", func() error {
			_, err := api.Unlock(ctx, &pb.UnlockRequest{Session: sid, Grant: lk.Grant})
			return err
		}},
		{"Release", func() error {
			_, err := api.Release(ctx, &pb.ReleaseRequest{Session: sid, Grant: sem.Grant})
			return err
		}},
	} {
		if err := give.call(); err != nil {
			t.Fatalf("%s: %v", give.what, err)
		}
		err := give.call()
		if status.Code(err) != codes.NotFound || reason(err) != pb.ReasonNotHeld {
			t.Errorf("%s twice: %v (reason %q), want NOT_FOUND with %s", give.what, err, reason(err), pb.ReasonNotHeld)
		}
	}
	if _, err := api.KeepAlive(ctx, &pb.KeepAliveRequest{Session: sid}); err != nil {
		t.Fatalf("the session after a second Unlock: %v", err)
	}
	if _, err := api.CloseSession(ctx, &pb.CloseSessionRequest{Session: sid}); err != nil {
		t.Fatal(err)
	}
	_, err = api.Unlock(ctx, &pb.UnlockRequest{Session: sid, Grant: lk.Grant})
	if status.Code(err) != codes.NotFound || reason(err) != pb.ReasonSessionExpired {
		t.Errorf("Unlock in a closed session: %v (reason %q), want NOT_FOUND with %s", err, reason(err), pb.ReasonSessionExpired)
	}
}
