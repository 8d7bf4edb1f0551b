package service_test

import (
	"context"
	"math"
	"net"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
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
	api, nd, _ := apiNodeAt(t, edit)
	return api, nd
}

// apiNodeAt is apiNode that also returns the node's address, where it
// serves its port split (Serve): gRPC, the native protocol, the links.
func apiNodeAt(t testing.TB, edit func(*service.Config)) (pb.AllotClient, *service.Node, string) {
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
	// NewServer: the config's server options (a secure node's) apply.
	s, err := nd.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	go nd.Serve(s, ln)
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
	return pb.NewAllotClient(dialRaw(t, ln.Addr().String())), nd, ln.Addr().String()
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
func openSession(t testing.TB, api pb.AllotClient) uint64 {
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

// TestBadInput: every bad input of the API is INVALID_ARGUMENT with
// reason BAD_INPUT and a message naming the limit, never an instance key;
// the good inputs next to each limit pass.
func TestBadInput(t *testing.T) {
	api, _ := apiNode(t, nil)
	ctx := context.Background()
	sid := openSession(t, api)
	long := strings.Repeat("x", service.MaxNameBytes+1)
	many := make([]string, service.MaxLockNames+1)
	for i := range many {
		many[i] = "r" + strconv.Itoa(i)
	}
	lock := func(names ...string) func() error {
		return func() error {
			r, err := api.Lock(ctx, &pb.LockRequest{Session: sid, Resources: names, TryLock: true})
			if err == nil {
				if want := len(slices.Compact(slices.Sorted(slices.Values(names)))); len(r.Tokens) != want {
					t.Errorf("lock of %d names, %d distinct: %d tokens", len(names), want, len(r.Tokens))
				}
				_, err = api.Unlock(ctx, &pb.UnlockRequest{Session: sid, Grant: r.Grant})
			}
			return err
		}
	}
	acquire := func(name string, units int32) func() error {
		return func() error {
			_, err := api.Acquire(ctx, &pb.AcquireRequest{Session: sid, Name: name, Units: units, TryAcquire: true})
			return err
		}
	}
	// Acquire, not TryAcquire, where a free unit must be granted: a try
	// gives up after 20 ms, which a first use (a control log round trip)
	// on a loaded machine can take.
	acquireWait := func(name string, units int32) func() error {
		return func() error {
			r, err := api.Acquire(ctx, &pb.AcquireRequest{Session: sid, Name: name, Units: units})
			if err == nil {
				_, err = api.Release(ctx, &pb.ReleaseRequest{Session: sid, Grant: r.Grant})
			}
			return err
		}
	}
	take := func(name string, n int64) func() error {
		return func() error {
			_, err := api.Take(ctx, &pb.TakeRequest{Session: sid, Name: name, N: n})
			return err
		}
	}
	for _, tc := range []struct {
		what string
		call func() error
		msg  string // in the message; "" for a good input
	}{
		{"lock of nothing", lock(), "lock of no resources"},
		{"lock of an empty name", lock("a", ""), "resource 1: empty name"},
		{"lock of a long name", lock(long), "at most 256 bytes, got 257"},
		{"lock of a name with NUL", lock("a\x00b"), "NUL byte"},
		{"lock of too many names", lock(many...), "at most 128 names, got 129"},
		{"lock of the most names", lock(many[:service.MaxLockNames]...), ""},
		{"lock of the longest name", lock(long[1:]), ""},
		{"lock of a name twice", lock("d", "d"), ""},
		{"lock of names with / and @", lock("a/b@1"), ""},
		{"semaphore of no name", acquire("", 2), "semaphore: empty name"},
		{"semaphore with /", acquire("a/3", 2), "'/' and '@' are not allowed"},
		{"semaphore with @", acquire("a@3:0", 2), "'/' and '@' are not allowed"},
		{"semaphore with NUL", acquire("a\x00", 2), "NUL byte"},
		{"semaphore of a long name", acquire(long, 2), "at most 256 bytes"},
		{"semaphore of 0 units", acquire("s", 0), "a semaphore has 1 to 2147483647 units, got 0"},
		{"semaphore of -1 units", acquire("s", -1), "1 to 2147483647 units, got -1"},
		{"semaphore of 7 units", acquireWait("s7", 7), ""},
		// From the node's slots on: a large semaphore (central-pool,
		// users made per request), up to the most units the API can say.
		{"semaphore of 8 units", acquireWait("s8", 8), ""},
		{"semaphore of MaxInt32 units", acquireWait("smax", math.MaxInt32), ""},
		{"take of 0", take("q", 0), "take of 1 to the quota's budget, 20 permits, got 0"},
		{"take over the budget", take("q", 21), "take of 1 to the quota's budget, 20 permits, got 21"},
		{"take of MaxInt64", take("q", math.MaxInt64), "20 permits, got 9223372036854775807"},
		{"take of no quota", take("nope", 1), `no quota "nope" in this cluster`},
		{"take of 1", take("q", 1), ""},
	} {
		err := tc.call()
		if tc.msg == "" {
			if err != nil {
				t.Errorf("%s: %v, want no error", tc.what, err)
			}
			continue
		}
		msg := status.Convert(err).Message()
		if status.Code(err) != codes.InvalidArgument || reason(err) != pb.ReasonBadInput || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: %v (reason %q), want INVALID_ARGUMENT, BAD_INPUT, %q", tc.what, err, reason(err), tc.msg)
		}
		if strings.Contains(msg, "sem/") || strings.Contains(msg, "quota/") || strings.Contains(msg, "instance") {
			t.Errorf("%s: the message %q names an internal key", tc.what, msg)
		}
	}
}

// TestNotUTF8: a name that is not UTF-8 is refused by the handlers
// (called in-process here: on the wire, proto3 strings are UTF-8, and
// gRPC refuses such a request before any handler, with INTERNAL).
func TestNotUTF8(t *testing.T) {
	_, nd := apiNode(t, nil)
	ctx := context.Background()
	r, err := nd.OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 10000})
	if err != nil {
		t.Fatal(err)
	}
	_, lockErr := nd.Lock(ctx, &pb.LockRequest{Session: r.Session, Resources: []string{"a", "b\xff"}})
	_, semErr := nd.Acquire(ctx, &pb.AcquireRequest{Session: r.Session, Name: "\xc3", Units: 2})
	_, takeErr := nd.Take(ctx, &pb.TakeRequest{Session: r.Session, Name: "q\xff", N: 1})
	for what, err := range map[string]error{"Lock": lockErr, "Acquire": semErr, "Take": takeErr} {
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "a name must be valid UTF-8") {
			t.Errorf("%s of a name not UTF-8: %v, want INVALID_ARGUMENT", what, err)
		}
	}
}

// TestTakeCounts: a Take answers the permits it took; one the quota
// cannot fill ends RESOURCE_EXHAUSTED with reason QUOTA_EXHAUSTED and
// the count it took (consumed) and asked in the ErrorInfo.
func TestTakeCounts(t *testing.T) {
	api, _ := apiNode(t, nil) // q: budget 20, waste 4
	ctx := context.Background()
	sid := openSession(t, api)
	r, err := api.Take(ctx, &pb.TakeRequest{Session: sid, Name: "q", N: 14})
	if err != nil || r.Permits != 14 {
		t.Fatalf("Take(14): %v, %v", r, err)
	}
	_, err = api.Take(ctx, &pb.TakeRequest{Session: sid, Name: "q", N: 10})
	meta := map[string]string{}
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			meta = info.Metadata
		}
	}
	taken, _ := strconv.Atoi(meta["taken"])
	// The controller issues at least budget − waste = 16 and at most 20.
	if status.Code(err) != codes.ResourceExhausted || reason(err) != pb.ReasonExhausted || meta["asked"] != "10" || taken < 2 || taken > 6 {
		t.Fatalf("Take(10) after 14 of 20: %v, reason %q, metadata %v; want RESOURCE_EXHAUSTED, %s, 2 to 6 of 10 taken", err, reason(err), meta, pb.ReasonExhausted)
	}
	if !strings.Contains(status.Convert(err).Message(), "after "+meta["taken"]+" of 10 permits") {
		t.Errorf("message %q does not say the count", status.Convert(err).Message())
	}
}

// metric is the value of the node's metric series (name and labels, as
// the exposition format writes them).
func metric(t *testing.T, nd *service.Node, series string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	nd.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for line := range strings.Lines(rec.Body.String()) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), series+" "); ok {
			return v
		}
	}
	t.Fatalf("no %s in the metrics", series)
	return ""
}

// limitRejects is the node's allot_limit_rejects_total{limit=limit}.
func limitRejects(t *testing.T, nd *service.Node, limit string) string {
	t.Helper()
	return metric(t, nd, `allot_limit_rejects_total{limit="`+limit+`"}`)
}

// TestLimits: past its most sessions, or its most semaphores in use, a
// node answers RESOURCE_EXHAUSTED with reason NODE_LIMIT naming the limit,
// and counts it; a session closed, or a name in use, is not refused, and a
// name refused is served once a refresh collected the idle one.
func TestLimits(t *testing.T) {
	api, nd := apiNode(t, func(c *service.Config) {
		c.MaxSessions, c.MaxSemaphores, c.RefreshEvery = 2, 1, 100*time.Millisecond
	})
	ctx := context.Background()
	a, b := openSession(t, api), openSession(t, api)
	_, err := api.OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 10000})
	if status.Code(err) != codes.ResourceExhausted || reason(err) != pb.ReasonLimit || !strings.Contains(err.Error(), "most sessions open, 2 (--max-sessions)") {
		t.Errorf("a third session of 2: %v, want RESOURCE_EXHAUSTED, NODE_LIMIT, naming --max-sessions", err)
	}
	if got := limitRejects(t, nd, "sessions"); got != "1" {
		t.Errorf("allot_limit_rejects_total{limit=sessions} %s, want 1", got)
	}
	if _, err := api.CloseSession(ctx, &pb.CloseSessionRequest{Session: b}); err != nil {
		t.Fatal(err)
	}
	openSession(t, api) // room again
	acquire := func(name string) error {
		r, err := api.Acquire(ctx, &pb.AcquireRequest{Session: a, Name: name, Units: 2})
		if err == nil {
			_, err = api.Release(ctx, &pb.ReleaseRequest{Session: a, Grant: r.Grant})
		}
		return err
	}
	if err := acquire("one"); err != nil {
		t.Fatal(err)
	}
	epoch := metric(t, nd, "allot_view_epoch")
	err = acquire("two")
	if status.Code(err) != codes.ResourceExhausted || reason(err) != pb.ReasonLimit || !strings.Contains(err.Error(), "most semaphores in use, 1 (--max-semaphores)") {
		t.Errorf("a second semaphore of 1: %v, want RESOURCE_EXHAUSTED, NODE_LIMIT, naming --max-semaphores", err)
	}
	if got := limitRejects(t, nd, "semaphores"); got != "1" {
		t.Errorf("allot_limit_rejects_total{limit=semaphores} %s, want 1", got)
	}
	if err := acquire("one"); err != nil && metric(t, nd, "allot_view_epoch") == epoch {
		t.Errorf("the semaphore in use at the limit: %v", err)
	}
	// The refusal asked for a refresh: it collects "one" (idle), and
	// "two" is served.
	for give := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		err := acquire("two")
		if err == nil {
			break
		}
		if status.Code(err) != codes.ResourceExhausted || time.Now().After(give) {
			t.Fatalf("a second semaphore of 1, with the first idle: %v (epoch %s, was %s)", err, metric(t, nd, "allot_view_epoch"), epoch)
		}
	}
	if got := metric(t, nd, "allot_view_epoch"); got == epoch {
		t.Errorf("served in epoch %s: no refresh", got)
	}
}

// TestSessionsGiveMemoryBack: 20000 sessions opened and expired leave the
// node's heap within 20% of what it was before them.
func TestSessionsGiveMemoryBack(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 20000 sessions")
	}
	_, nd := apiNode(t, func(c *service.Config) { c.MaxSessions = 20000 })
	ctx := context.Background()
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	// Warm up: the node settles in its view, and every path below runs
	// once (its lazily built tables are not the sessions').
	r, err := nd.OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 10})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := nd.KeepAlive(ctx, &pb.KeepAliveRequest{Session: r.Session}); status.Code(err) != codes.NotFound {
		t.Fatalf("a session of 10ms after 200ms: %v", err)
	}
	before := heap()
	ids := make([]uint64, 0, 20000)
	for range 20000 {
		r, err := nd.OpenSession(ctx, &pb.OpenSessionRequest{TtlMs: 1000})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.Session)
	}
	full := heap()
	for _, id := range ids {
		if _, err := nd.KeepAlive(ctx, &pb.KeepAliveRequest{Session: id}); err != nil && status.Code(err) != codes.NotFound {
			t.Fatal(err)
		}
	}
	// Every session ended (the node's allot_sessions gauge is 0).
	for give := time.Now().Add(10 * time.Second); metric(t, nd, "allot_sessions") != "0"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(give) {
			t.Fatalf("%s sessions open 10s after their TTL of 1s", metric(t, nd, "allot_sessions"))
		}
	}
	after := heap()
	t.Logf("heap: %d KiB before, %d KiB with 20000 sessions, %d KiB once they expired", before>>10, full>>10, after>>10)
	if float64(after) > 1.2*float64(before) {
		t.Errorf("the heap grew from %d to %d KiB with every session expired, more than 20%%", before>>10, after>>10)
	}
}
