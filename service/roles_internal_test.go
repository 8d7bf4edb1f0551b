package service

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/space"
	tgrpc "github.com/allot-dev/allot/transport/grpc"
)

// gather is what c reports when scraped, one "name{label=value} value"
// line per metric, sorted.
func gather(t *testing.T, c prometheus.Collector) []string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			out = append(out, fmt.Sprintf("%s{%s} %g", mf.GetName(), strings.Join(labels, ","), v))
		}
	}
	slices.Sort(out)
	return out
}

// objectsCount is an objectCounter that says what it is told.
type objectsCount struct{ idle, inUse int }

func (o objectsCount) objects() (int, int) { return o.idle, o.inUse }

// TestObjectsGauge: allot_instances is what the node's objectCounter
// counts, idle and in use.
func TestObjectsGauge(t *testing.T) {
	got := gather(t, objectsGauge{c: objectsCount{idle: 3, inUse: 2}})
	want := []string{`allot_instances{state=idle} 3`, `allot_instances{state=in_use} 2`}
	if !slices.Equal(got, want) {
		t.Errorf("allot_instances = %q, want %q", got, want)
	}
}

// sent is a sentCounter of fixed counts.
type sent map[string]int64

func (s sent) addSent(byKind map[string]int64) {
	for k, v := range s {
		byKind[k] += v
	}
}

// TestMessagesSum: allot_messages_total sums, by message kind, what each
// of its sentCounters (the live instances, the retired ones) counts.
func TestMessagesSum(t *testing.T) {
	got := gather(t, messages{from: []sentCounter{sent{"a.Req": 2, "a.Grant": 1}, sent{"a.Req": 5}}})
	want := []string{`allot_messages_total{message=a.Grant} 1`, `allot_messages_total{message=a.Req} 7`}
	if !slices.Equal(got, want) {
		t.Errorf("allot_messages_total = %q, want %q", got, want)
	}
}

// place is a placeReader that says what it is told.
type place struct {
	v       space.View
	serving bool
	grants  int
	names   int
	linked  bool // the node has its transport
	stats   tgrpc.LinkStats
	peers   []peerLink
}

func (p place) viewNow() space.View { return p.v }
func (p place) servesNow() bool     { return p.serving }
func (p place) held() int           { return p.grants }
func (p place) nameCount() int      { return p.names }
func (p place) links() (tgrpc.LinkStats, []peerLink, bool) {
	return p.stats, p.peers, p.linked
}

// TestStateGauges: the node's place in the cluster on /metrics is what
// its placeReader says; the links' families only once it has its
// transport.
func TestStateGauges(t *testing.T) {
	p := place{v: space.View{Epoch: 7, Members: space.SetOf(0) | space.SetOf(2)}, serving: true, grants: 4, names: 9}
	before := []string{
		`allot_held_grants{} 4`, `allot_lock_names{} 9`, `allot_serving{} 1`, `allot_view_epoch{} 7`, `allot_view_members{} 2`,
	}
	if got := gather(t, state{p: p, l: p}); !slices.Equal(got, before) {
		t.Errorf("without a transport: %q, want %q", got, before)
	}
	p.linked, p.stats = true, tgrpc.LinkStats{Frames: 11, Batches: 5}
	p.peers = []peerLink{{2, tgrpc.PeerState{Up: true, Carrier: tgrpc.PlainCarrier}}, {1, tgrpc.PeerState{}}}
	want := append(slices.Clone(before),
		`allot_link_batches_total{} 5`, `allot_link_messages_total{} 11`,
		`allot_peer_link_plain{peer=1} 0`, `allot_peer_link_plain{peer=2} 1`,
		`allot_peer_link_up{peer=1} 0`, `allot_peer_link_up{peer=2} 1`)
	slices.Sort(want)
	if got := gather(t, state{p: p, l: p}); !slices.Equal(got, want) {
		t.Errorf("with links: %q, want %q", got, want)
	}
}

// serves is a servingReader that says what it is told.
type serves struct{ now atomic.Bool }

func (s *serves) servesNow() bool { return s.now.Load() }

// TestHealthFollows: the health service is NOT_SERVING once registered,
// follows what its servingReader says, and is NOT_SERVING once its
// context ends.
func TestHealthFollows(t *testing.T) {
	var h nodeHealth
	h.register(grpc.NewServer())
	wait := func(want healthpb.HealthCheckResponse_ServingStatus) {
		t.Helper()
		for range 100 {
			r, err := h.s.Check(context.Background(), &healthpb.HealthCheckRequest{Service: pb.Allot_ServiceDesc.ServiceName})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status == want {
				return
			}
			time.Sleep(healthEvery)
		}
		t.Fatalf("health never %v", want)
	}
	wait(healthpb.HealthCheckResponse_NOT_SERVING)
	var s serves
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.follow(ctx, &s); close(done) }()
	s.now.Store(true)
	wait(healthpb.HealthCheckResponse_SERVING)
	s.now.Store(false)
	wait(healthpb.HealthCheckResponse_NOT_SERVING)
	s.now.Store(true)
	wait(healthpb.HealthCheckResponse_SERVING)
	cancel()
	<-done
	wait(healthpb.HealthCheckResponse_NOT_SERVING)
}

// members is a memberLister whose membership is ms, and a memberCtl
// whose control node refuses every change with err.
type members struct {
	ms  []MemberInfo
	err error
}

func (m members) list() ([]MemberInfo, uint64)       { return m.ms, 4 }
func (m members) appliedIndex() uint64               { return 12 }
func (m members) leaseLeft() time.Duration           { return 1500 * time.Millisecond }
func (m members) proposeAdd(string) (proc.ID, error) { return 0, m.err }
func (m members) proposeRemove(proc.ID) error        { return m.err }

// TestAdminWithoutALeader: the Admin API on its roles alone: the
// list says what the node applied; a change refused for want of a
// leader is Unavailable, whether none is known or the call was forwarded
// once already (it is never forwarded twice); a refusal of the leader's
// has its code.
func TestAdminWithoutALeader(t *testing.T) {
	ms := []MemberInfo{{ID: 0, Addr: "127.0.0.1:1", Voter: true}, {ID: 1, Addr: "127.0.0.1:2", Voter: true, Leader: true}}
	m := members{ms: ms[:1], err: control.ErrNotLeader}
	a := admin{members: m, ctl: m, c: Cluster{Nodes: []string{"127.0.0.1:1"}}, status: "127.0.0.1:9", wait: time.Second, log: slog.New(slog.DiscardHandler)}
	ctx := context.Background()
	r, err := a.ListMembers(ctx, &pb.ListMembersRequest{})
	if err != nil || len(r.Members) != 1 || r.Epoch != 4 || r.Applied != 12 || r.LeaseLeftMs != 1500 || r.StatusAddress != "127.0.0.1:9" || len(r.Cluster.GetBootstrap()) != 1 {
		t.Fatalf("list: %v, %v", r, err)
	}
	if _, err := a.AddMember(ctx, &pb.AddMemberRequest{Address: "127.0.0.1:3"}); status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "no leader") {
		t.Errorf("add with no leader known: %v, want Unavailable, no leader", err)
	}
	m = members{ms: ms, err: control.ErrNotLeader}
	a.members, a.ctl = m, m
	fwd := metadata.NewIncomingContext(ctx, metadata.Pairs(forwarded, "1"))
	if _, err := a.RemoveMember(fwd, &pb.RemoveMemberRequest{Id: 0}); status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "no longer leads") {
		t.Errorf("remove forwarded to a node that does not lead: %v, want Unavailable, no longer leads", err)
	}
	m = members{ms: ms, err: control.ErrLastMember}
	a.members, a.ctl = m, m
	if _, err := a.RemoveMember(ctx, &pb.RemoveMemberRequest{Id: 0}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("remove refused by the leader: %v, want FailedPrecondition", err)
	}
}

// nodeHolders lists where the files' code holds or is handed a *Node
// (or a Node) other than as a method's receiver: a struct field, or a
// parameter of a func or of a func type. New's result is not held.
func nodeHolders(fset *token.FileSet, files []*ast.File) []string {
	isNode := func(e ast.Expr) bool {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		id, ok := e.(*ast.Ident)
		return ok && id.Name == "Node"
	}
	var found []string
	for _, f := range files {
		ast.Inspect(f, func(x ast.Node) bool {
			var fields *ast.FieldList
			switch x := x.(type) {
			case *ast.StructType:
				fields = x.Fields
			case *ast.FuncType:
				fields = x.Params // a method's receiver is not among them
			}
			if fields == nil {
				return true
			}
			for _, fd := range fields.List {
				if isNode(fd.Type) {
					found = append(found, fset.Position(fd.Pos()).String())
				}
			}
			return true
		})
	}
	return found
}

// TestNoNodeBackPointers: no part of the node holds the *Node, nor is
// handed it: each takes the role it needs of it, an interface defined
// next to it (changeTaker, memberFollower, memberLog, memberLister,
// memberCtl, peerReader, sessionLister, leaseReader, placeReader,
// linkReader, servingReader, sentCounter, objectCounter), so that what a
// part may reach of the node is written down where the part is.
func TestNoNodeBackPointers(t *testing.T) {
	fset := token.NewFileSet()
	bad, err := parser.ParseFile(fset, "bad.go", `package service
type part struct{ n *Node }
func use(n *Node) {}
var f func(Node)
func (n *Node) fine() {}`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := nodeHolders(fset, []*ast.File{bad}); len(got) != 3 {
		t.Fatalf("in a hand-made file with a field, a parameter and a func type of *Node, found %q: want those 3", got)
	}
	for _, at := range nodeHolders(fset, packageFiles(t, fset)) {
		t.Errorf("%s: holds or is handed the *Node: give it the role it needs, an interface next to it", at)
	}
}

// packageFiles parses the package's files, its tests left out.
func packageFiles(t *testing.T, fset *token.FileSet) []*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) < 10 {
		t.Fatalf("parsed %d files of package service: want all of them", len(files))
	}
	return files
}

// ownLocked are the parts of the node, by the Node's field that holds
// each, whose lock only their own methods take: the lock and what it
// guards, which nothing else reaches through that field.
var ownLocked = map[string][]string{
	"ctl":    {"mu", "cmu", "calls", "node", "broken", "removed", "qmu", "queue", "iss"},
	"keeper": {"mu", "k", "moved"},
	"views":  {"mu", "cur", "adopted", "fenced", "instances", "retired"},
}

// reachedInto lists where the files' code reaches a guarded field of a
// part through the field that holds it (n.ctl.mu, n.keeper.k), or
// names the part by a variable of its own (vs := &n.views), through
// which it would reach them unseen: a part's own methods name them on
// their receiver (h.mu, k.k), and the node hands the part on as a role
// (an argument, an element of a list, another part's field), never into
// a variable.
func reachedInto(fset *token.FileSet, files []*ast.File) []string {
	var found []string
	for _, f := range files {
		ast.Inspect(f, func(x ast.Node) bool {
			if as, ok := x.(*ast.AssignStmt); ok {
				for i, r := range as.Rhs {
					if i >= len(as.Lhs) {
						break
					}
					if _, local := as.Lhs[i].(*ast.Ident); !local {
						continue // a part handed to another (n.members.ctl = n.ctl): a role
					}
					if u, ok := r.(*ast.UnaryExpr); ok {
						r = u.X
					}
					if part, ok := r.(*ast.SelectorExpr); ok && ownLocked[part.Sel.Name] != nil {
						found = append(found, fmt.Sprintf("%s: a variable of %s", fset.Position(r.Pos()), part.Sel.Name))
					}
				}
				return true
			}
			sel, ok := x.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			part, ok := sel.X.(*ast.SelectorExpr)
			if ok && slices.Contains(ownLocked[part.Sel.Name], sel.Sel.Name) {
				found = append(found, fmt.Sprintf("%s: %s.%s", fset.Position(sel.Pos()), part.Sel.Name, sel.Sel.Name))
			}
			return true
		})
	}
	return found
}

// TestPartsLockThemselves: the control host's lock, the keeper's and the
// views' are taken by their own methods only (ctl.go, backup.go,
// view.go), and what they guard is read there: the node asks the host
// for a semaphore's units, a proposal, the keeper for a view's take-over
// and a stop, and the views for an instance, built on first use, and a
// grant's answer taken only while its view is the node's.
func TestPartsLockThemselves(t *testing.T) {
	fset := token.NewFileSet()
	bad, err := parser.ParseFile(fset, "bad.go", `package service
func (n *Node) bad() { n.ctl.mu.Lock(); _ = n.ctl.node.State(); n.keeper.mu.Unlock(); _ = n.views.instances }
func (n *Node) alias() { vs := &n.views; vs.mu.Lock() }
func (h *ctlHost) fine() { h.mu.Lock(); _ = h.node }`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := reachedInto(fset, []*ast.File{bad}); len(got) != 5 {
		t.Fatalf("in a hand-made file reaching ctl.mu, ctl.node, keeper.mu and views.instances, and naming &n.views by a variable, found %q: want those 5", got)
	}
	for _, at := range reachedInto(fset, packageFiles(t, fset)) {
		t.Errorf("%s: reached from outside its part: make it a method of the part's", at)
	}
}
