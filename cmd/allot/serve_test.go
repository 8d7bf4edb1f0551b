package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/service/store"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"gopkg.in/yaml.v3"

	"github.com/allot-dev/allot/service"
)

func TestServeBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("nodes: [127.0.0.1:1\n"), 0o644)
	unknown := filepath.Join(dir, "unknown.yaml")
	os.WriteFile(unknown, []byte("nodes: [127.0.0.1:1]\nlocks: central\n"), 0o644)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	// A data directory of another node, and a corrupt one.
	other := filepath.Join(dir, "other")
	st, err := store.Open(other, store.Identity{Nodes: []string{"127.0.0.1:0", "127.0.0.1:1"}, Node: 1})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	// Node 1's data dir with the cluster's description, as every store
	// has it now.
	described := filepath.Join(dir, "described")
	st, err = store.Open(described, store.Identity{Nodes: []string{"127.0.0.1:0", "127.0.0.1:1"}, Node: 1, Spec: []byte(`{"Nodes":["127.0.0.1:0","127.0.0.1:1"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	corrupt := filepath.Join(dir, "corrupt")
	os.MkdirAll(corrupt, 0o755)
	os.WriteFile(filepath.Join(corrupt, store.FileName), []byte("no store at all"), 0o600)
	var many []string // one node more than an id has room for
	for i := range service.MaxNodes + 1 {
		many = append(many, fmt.Sprintf("127.0.0.1:%d", 2000+i))
	}
	for _, args := range [][]string{
		{"serve", "--nodes", strings.Join(many, ",")},
		{"serve", "--nodes", "127.0.0.1:0,127.0.0.1:1", "--data-dir", other},
		{"serve", "--nodes", "127.0.0.1:0", "--data-dir", corrupt},
		{"serve"},
		{"serve", "--cluster", bad},
		{"serve", "--cluster", unknown},
		{"serve", "--cluster", filepath.Join(dir, "missing.yaml")},
		{"serve", "--nodes", "127.0.0.1:1,nohost"},
		{"serve", "--nodes", "127.0.0.1:1,127.0.0.1:1"},
		{"serve", "--nodes", "127.0.0.1:1", "--node", "3"},
		{"serve", "--nodes", "127.0.0.1:1", "--lock", "pool"},
		{"serve", "--nodes", "127.0.0.1:1", "--semaphore", "nope"},
		{"serve", "--nodes", busy.Addr().String()},
		{"serve", "--nodes", "127.0.0.1:0,127.0.0.1:1", "--peer-timeout", "300ms", "--data-dir", filepath.Join(dir, "alone")},
		{"serve", "--nodes", "127.0.0.1:1,127.0.0.1:2", "--peer-addrs", "127.0.0.1:3"},
		{"serve", "--nodes", "127.0.0.1:1,127.0.0.1:2", "--peer-addrs", "127.0.0.1:3,nohost"},
		{"cluster", "--nodes", "0"},
		{"cluster", "--quota", "x"},
		{"cluster", "--restart-delay", "-1s"},
		{"cluster", "--suspect", "-1s"},
		{"serve", "--nodes", "127.0.0.1:1", "--quota", "q=5:9"},
		{"serve", "--nodes", "127.0.0.1:1", "--quota", "q=-1"},
		{"bench", "--format", "xml"},
		{"bench", "--workloads", "W9"},
		{"bench", "--protocol", "http"},
		{"bench", "--duration", "-1s"},
		{"bench", "--warmup", "-1s"},
		{"bench", "--metrics", "127.0.0.1:1"},
		{"bench", "--nodes", "0"},
		{"bench", "--nodes", "65"},
		{"bench", "--w4-sessions", "0"},
		{"bench", "--w4-names", "0"},
		{"bench", "--lock", "hygienic"},
		{"bench", "--addr", "127.0.0.1:1", "--lock", "modular-ordered"}, // the cluster serves its own
		{"bench", "--addr", "127.0.0.1:1", "--nodes", "3"},              // the cluster is the addresses given
		{"serve", "--nodes", "127.0.0.1:1", "--block-profile-rate", "100"},
		{"serve", "--nodes", "127.0.0.1:1", "--metrics", "127.0.0.1:0", "--mutex-profile-fraction", "-1"},
		{"cluster", "--mutex-profile-fraction", "5"},
		{"serve", "--nodes", "127.0.0.1:1", "--log-format", "xml"},
		{"serve", "--nodes", "127.0.0.1:1", "--log-level", "loud"},
		{"serve", "--nodes", "127.0.0.1:1", "--max-sessions", "0"},
		{"serve", "--nodes", "127.0.0.1:1", "--max-locks", "0"},
		{"serve", "--nodes", "127.0.0.1:1", "--max-locks", "262145"},
		{"serve", "--nodes", "127.0.0.1:1", "--lock", "modular-hygienic"}, // needs a static user set
		{"serve", "--nodes", "127.0.0.1:1", "--max-semaphores", "-3"},
		{"serve", "--nodes", "127.0.0.1:1", "--snapshot-every", "0"},
		{"serve", "--nodes", "127.0.0.1:1", "--snapshot-every", "-2"},
		{"cluster", "--log-format", "JSON"},
		{"serve", "--join", "127.0.0.1:1"},                                         // no --node
		{"serve", "--join", "127.0.0.1:1", "--node", "3", "--quota", "q=5"},        // the cluster is the joined one's
		{"serve", "--data-dir", filepath.Join(dir, "empty")},                       // no store
		{"serve", "--data-dir", other, "--node", "0"},                              // a store without the cluster description
		{"serve", "--nodes", "127.0.0.1:1", "--listen", "127.0.0.1:2"},             // not the node's address
		{"serve", "--join", "127.0.0.1:1", "--node", "3", "--data-dir", described}, // node 1's store, not 3's
	} {
		out, errs, code := allot(t, args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "allot: ") {
			t.Errorf("allot %q: exit %d, stdout %q, stderr %q; want one allot: line and exit 2", args, code, out, errs)
		}
	}
}

func TestServeHelp(t *testing.T) {
	for _, cmd := range []string{"serve", "cluster", "bench", "member"} {
		out, _, code := allot(t, cmd, "--help")
		if code != 0 || !strings.Contains(out, "usage: allot "+cmd) {
			t.Errorf("allot %s --help: exit %d, %q", cmd, code, out)
		}
	}
}

// TestBenchJSON runs W1 and W2 briefly on an in-process cluster.
func TestBenchJSON(t *testing.T) {
	var addrs, metrics []string
	var lns []net.Listener
	for range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	for i := range 3 {
		n, err := service.New(service.Config{Cluster: service.Cluster{Nodes: addrs}, Self: i})
		if err != nil {
			t.Fatal(err)
		}
		s, err := n.NewServer() // as allot serve does: its calls counted
		if err != nil {
			t.Fatal(err)
		}
		go s.Serve(lns[i])
		m := httptest.NewServer(n.Metrics())
		metrics = append(metrics, strings.TrimPrefix(m.URL, "http://"))
		t.Cleanup(func() {
			m.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			n.Shutdown(ctx)
			s.Stop()
		})
	}
	out, errs, code := allot(t, "bench", "--addr", strings.Join(addrs, ","), "--duration", "200ms", "--warmup", "50ms", "--workloads", "W1,W2", "--format", "json", "--metrics", strings.Join(metrics, ","))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Nodes     int `json:"nodes"`
		Workloads []struct {
			Name         string             `json:"name"`
			OpsPerSecond float64            `json:"ops_per_second"`
			P50          float64            `json:"p50_us"`
			P99          float64            `json:"p99_us"`
			PerClient    []int              `json:"per_client"`
			CPU          *float64           `json:"node_cpu_us_per_op"`
			Messages     *float64           `json:"messages_per_op"`
			Calls        *float64           `json:"calls_per_op"`
			Link         *float64           `json:"link_messages_per_op"`
			Batches      *float64           `json:"link_batches_per_op"`
			ByNode       map[string]float64 `json:"p50_us_by_node"`
		} `json:"workloads"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Nodes != 3 || len(r.Workloads) != 2 || r.Workloads[0].Name != "W1" || len(r.Workloads[1].PerClient) != 8 {
		t.Fatalf("%s", out)
	}
	// W1's one session went round the three nodes, a share of the run on
	// each; W2's eight clients did not.
	by := r.Workloads[0].ByNode
	for _, a := range addrs {
		if by[a] <= 0 {
			t.Errorf("W1's p50 by node: %v, want one for each of %v", by, addrs)
		}
	}
	if r.Workloads[1].ByNode != nil {
		t.Errorf("W2's p50 by node: %v, want none", r.Workloads[1].ByNode)
	}
	for _, w := range r.Workloads {
		if w.OpsPerSecond <= 0 || w.P50 <= 0 || w.P99 < w.P50 {
			t.Errorf("%s: %+v", w.Name, w)
		}
		// The nodes share this process, so its CPU is theirs; an
		// operation is at least its Lock and Unlock, and a lock's
		// request and release cross at least one message each.
		if w.CPU == nil || w.Messages == nil || w.Calls == nil || w.Link == nil || w.Batches == nil ||
			*w.CPU <= 0 || *w.Messages < 2 || *w.Calls < 2 || *w.Link <= 0 || *w.Batches <= 0 {
			t.Errorf("%s: per op: %s", w.Name, out)
		}
	}

	// --near: W1's session on its key's home alone.
	out, errs, code = allot(t, "bench", "--addr", strings.Join(addrs, ","), "--duration", "200ms", "--workloads", "W1", "--format", "json", "--near")
	if code != 0 {
		t.Fatalf("--near: exit %d: %s", code, errs)
	}
	r.Workloads = nil
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	cc, err := grpc.NewClient(addrs[0], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	home, err := pb.NewAllotClient(cc).Locate(context.Background(), &pb.LocateRequest{Name: "k0"})
	if err != nil {
		t.Fatal(err)
	}
	if by := r.Workloads[0].ByNode; len(by) != 1 || by[home.NodeAddr] <= 0 {
		t.Errorf("--near: W1's p50 by node %v, want one, on k0's home %s", by, home.NodeAddr)
	}

	// W4: independent names, its sessions and space from the flags, with
	// the busiest node's share of the messages.
	out, errs, code = allot(t, "bench", "--addr", strings.Join(addrs, ","), "--duration", "300ms", "--workloads", "W4", "--w4-sessions", "5", "--w4-names", "100000", "--format", "json", "--metrics", strings.Join(metrics, ","))
	if code != 0 {
		t.Fatalf("W4: exit %d: %s", code, errs)
	}
	var w4 struct {
		Workloads []struct {
			Name         string   `json:"name"`
			OpsPerSecond float64  `json:"ops_per_second"`
			PerClient    []int    `json:"per_client"`
			Messages     *float64 `json:"messages_per_op"`
			Share        *float64 `json:"busiest_node_message_share"`
		} `json:"workloads"`
	}
	if err := json.Unmarshal([]byte(out), &w4); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(w4.Workloads) != 1 || w4.Workloads[0].Name != "W4" || len(w4.Workloads[0].PerClient) != 5 || w4.Workloads[0].OpsPerSecond <= 0 ||
		w4.Workloads[0].Messages == nil || *w4.Workloads[0].Messages < 2 || w4.Workloads[0].Share == nil || *w4.Workloads[0].Share < 1.0/3 || *w4.Workloads[0].Share > 1 {
		t.Errorf("W4: %s", out)
	}
}

func TestShellQuote(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"allot", "serve", "--node", "1"}, "allot serve --node 1"},
		{[]string{"/a b/allot", "--data-dir", "it's"}, `'/a b/allot' --data-dir 'it'\''s'`},
		{[]string{"x", ""}, "x ''"},
	} {
		if got := shellQuote(tc.args); got != tc.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

func TestCoLocated(t *testing.T) {
	got := coLocated([]string{"A=1", "GOMAXPROCS="}, 1<<20)
	if got[len(got)-1] != "GOMAXPROCS=1" {
		t.Errorf("many nodes on this machine: %v, want GOMAXPROCS=1 added", got)
	}
	set := []string{"GOMAXPROCS=7"}
	if got := coLocated(set, 3); len(got) != 1 || got[0] != "GOMAXPROCS=7" {
		t.Errorf("GOMAXPROCS set by the user: %v, want it kept", got)
	}
}

// TestDeployCluster: deploy/cluster.yaml is a cluster allot serve
// --cluster accepts, and it sets every field a cluster file has (so each
// is documented there); allot serve --help names every field too.
func TestDeployCluster(t *testing.T) {
	path := filepath.Join("..", "..", "deploy", "cluster.yaml")
	o := serveOpts{clusterFile: path}
	c, err := o.cluster()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Nodes) != 3 || len(c.Quotas) == 0 {
		t.Errorf("deploy/cluster.yaml: %+v, want 3 nodes and quotas", c)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var set map[string]any
	if err := yaml.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	help, _, _ := allot(t, "serve", "--help")
	for f := range reflect.TypeFor[service.Cluster]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "resources" { // deprecated: shown in a comment, not set
			if !strings.Contains(string(b), "# resources: deprecated") {
				t.Errorf("deploy/cluster.yaml does not say resources is deprecated")
			}
			continue
		}
		if _, ok := set[name]; !ok {
			t.Errorf("deploy/cluster.yaml does not show the field %q", name)
		}
		if !regexp.MustCompile(`\b` + name + `\b`).MatchString(help) {
			t.Errorf("allot serve --help does not name the field %q", name)
		}
	}
	for f := range reflect.TypeFor[service.QuotaSpec]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !strings.Contains(string(b), "    "+name+":") || !strings.Contains(help, name) {
			t.Errorf("the quota field %q is not in deploy/cluster.yaml or allot serve --help", name)
		}
	}
}

// TestLogFormat: --log-format json writes one JSON object a line, text
// key=value pairs.
func TestLogFormat(t *testing.T) {
	for _, tc := range []struct {
		format string
		want   *regexp.Regexp
	}{
		{"json", regexp.MustCompile(`^\{"time":"[^"]+","level":"WARN","msg":"m","k":1\}\n$`)},
		{"text", regexp.MustCompile(`^time=\S+ level=WARN msg=m k=1\n$`)},
	} {
		var b strings.Builder
		log, err := newLogger(&b, tc.format, "warn")
		if err != nil {
			t.Fatal(err)
		}
		log.Info("below the level")
		log.Warn("m", "k", 1)
		if !tc.want.MatchString(b.String()) {
			t.Errorf("%s: %q", tc.format, b.String())
		}
	}
}
