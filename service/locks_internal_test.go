package service

import (
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/names"
	"github.com/allot-dev/allot/service/internal/space"
)

// inProcess starts n nodes of cfg (its cluster's Nodes and Self filled
// in) in this process, on loopback ports, with a lease of 3s unless cfg
// says (a loaded machine must not fence them), and waits until they
// serve; they stop when the test ends.
func inProcess(t *testing.T, n int, cfg Config) []*Node {
	t.Helper()
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		cfg.Cluster.Nodes = append(cfg.Cluster.Nodes, ln.Addr().String())
	}
	if cfg.Suspect == 0 {
		cfg.Suspect = 3 * time.Second
	}
	nodes := make([]*Node, n)
	for i := range nodes {
		cfg.Self = i
		nd, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s := grpc.NewServer()
		if err := nd.Register(s); err != nil {
			t.Fatal(err)
		}
		go s.Serve(lns[i])
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			nd.Shutdown(ctx)
			s.Stop()
		})
		nodes[i] = nd
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, nd := range nodes {
		if err := nd.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return nodes
}

// TestLockPlacement: on three nodes, 30 names locked one after another
// from one session: each name's id is in its home's range and its manager
// is made on its home only; the other nodes that locked it keep the home's
// answer; and the locking node reused its user (one for all: each Lock
// comes once the user the last one had is idle again).
func TestLockPlacement(t *testing.T) {
	nodes := inProcess(t, 3, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ses, err := nodes[0].OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 10000})
	if err != nil {
		t.Fatal(err)
	}
	v := nodes[0].views.current().v
	lock := func(n *Node) *instance {
		n.views.mu.Lock()
		defer n.views.mu.Unlock()
		return n.views.instances[space.Space{Key: space.Lock, View: v}]
	}
	// An Unlock answers before its release has run on the user (after
	// the give-back's backup record): the user is idle again only then.
	idle := func() {
		in := lock(nodes[0])
		for {
			in.mu.Lock()
			made := in.users.Len()
			in.mu.Unlock()
			if len(in.free) == made {
				return
			}
			select {
			case <-ctx.Done():
				t.Fatalf("node 0's lock users never all idle: %d of %d", len(in.free), made)
			case <-time.After(time.Millisecond):
			}
		}
	}
	var ns []string
	for i := range 30 {
		name := fmt.Sprintf("placed/%d", i)
		ns = append(ns, name)
		r, err := nodes[0].Lock(ctx, &pb.LockRequest{Session: ses.Session, Resources: []string{name}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := nodes[0].Unlock(ctx, &pb.UnlockRequest{Session: ses.Session, Grant: r.Grant}); err != nil {
			t.Fatal(err)
		}
		idle()
	}
	homed := map[int]int{}
	for _, name := range ns {
		home := names.Home(name, v.Members)
		homed[home]++
		h := nodes[home]
		h.names.mu.Lock()
		k, ok := h.names.byEpoch[v.Epoch].ids.Given(name)
		h.names.mu.Unlock()
		if !ok {
			t.Fatalf("%s: no id at its home, node %d", name, home)
		}
		if lockOwner(v, lockRange+proc.ID(k)) != home || int(k)%v.Members.Len() != v.Members.Rank(home) {
			t.Fatalf("%s: id %d is not in its home %d's range", name, k, home)
		}
		if home != 0 {
			n0 := nodes[0]
			n0.names.mu.Lock()
			known, _ := n0.names.byEpoch[v.Epoch].ids.Known(name)
			n0.names.mu.Unlock()
			if known != k {
				t.Fatalf("%s: node 0 keeps id %d, its home gave %d", name, known, k)
			}
		}
		// The manager may still be on its way to be made at the home
		// (the release's messages): wait for it a little.
		for range 100 {
			in := lock(h)
			in.mu.Lock()
			made := in.made[lockRange+proc.ID(k)]
			in.mu.Unlock()
			if made {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		for i, n := range nodes {
			in := lock(n)
			if in == nil {
				continue
			}
			in.mu.Lock()
			made := in.made[lockRange+proc.ID(k)]
			in.mu.Unlock()
			if made != (i == home) {
				t.Fatalf("%s (home %d): its manager made on node %d: %v", name, home, i, made)
			}
		}
	}
	if len(homed) != 3 {
		t.Errorf("30 names homed on %d nodes: %v", len(homed), homed)
	}
	if in := lock(nodes[0]); in.users.Len() != 1 {
		t.Errorf("node 0 made %d users for 30 locks one after another, each once the last was idle, want 1", in.users.Len())
	}
}

// TestLockAfterUnlockAtTheLimit: at --max-locks, a Lock sent right after
// an Unlock is not refused: the Unlock answered before the backup had the
// give-back and the release ran, so the node's only user is not idle yet,
// and the Lock waits for it rather than count it open. Two Locks at the
// limit with one user on its way back: one waits for it, the other is
// refused.
func TestLockAfterUnlockAtTheLimit(t *testing.T) {
	nodes := inProcess(t, 3, Config{MaxLocks: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ses, err := nodes[0].OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 10000})
	if err != nil {
		t.Fatal(err)
	}
	lock := func(name string) (uint64, error) {
		r, err := nodes[0].Lock(ctx, &pb.LockRequest{Session: ses.Session, Resources: []string{name}})
		if err != nil {
			return 0, err
		}
		return r.Grant, nil
	}
	g, err := lock("a")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := nodes[0].Unlock(ctx, &pb.UnlockRequest{Session: ses.Session, Grant: g}); err != nil {
			t.Fatal(err)
		}
		if g, err = lock(fmt.Sprintf("n%d", i)); err != nil {
			t.Fatalf("Lock %d, right after an Unlock at --max-locks 1: %v", i, err)
		}
	}
	if _, err := nodes[0].Unlock(ctx, &pb.UnlockRequest{Session: ses.Session, Grant: g}); err != nil {
		t.Fatal(err)
	}
	// Each of the 51 grants waited for its record at the backup.
	rec := httptest.NewRecorder()
	nodes[0].Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if want := `allot_grant_record_seconds_count{kind="exclusive"} 51`; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("/metrics lacks %s", want)
	}
	errs := make(chan error, 2)
	for _, name := range []string{"x", "y"} {
		go func() { _, err := lock(name); errs <- err }()
	}
	var refused, granted int
	for range 2 {
		switch err := <-errs; {
		case err == nil:
			granted++
		case status.Code(err) == codes.ResourceExhausted:
			refused++
		default:
			t.Fatal(err)
		}
	}
	if granted != 1 || refused != 1 {
		t.Errorf("two Locks at the limit with one user given back: %d granted, %d refused; want 1 and 1", granted, refused)
	}
}
