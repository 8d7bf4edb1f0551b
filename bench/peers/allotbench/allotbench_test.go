package allotbench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const good = `{
  "nodes": 3, "protocol": "native",
  "workloads": [
    {"name": "W1", "ops_per_second": 1800.5, "p50_us": 549, "p99_us": 900, "per_client": [5400], "p50_us_by_node": {"127.0.0.1:7001": 400, "127.0.0.1:7002": 549, "127.0.0.1:7003": 700}},
    {"name": "W2", "ops_per_second": 2250, "p50_us": 3000, "p99_us": 9000, "per_client": [800, 850, 820, 840, 830, 845, 810, 835]},
    {"name": "W3", "ops_per_second": 1800, "p50_us": 15000, "p99_us": 31000, "per_client": [160, 170]},
    {"name": "W4", "ops_per_second": 950, "p50_us": 7300, "p99_us": 173000, "per_client": [180, 175, 190], "node_cpu_us_per_op": 518, "messages_per_op": 8.02, "busiest_node_message_share": 0.354, "busiest_node_cpu_share": 0.342}
  ]
}`

func TestParse(t *testing.T) {
	r, err := Parse([]byte(good), 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.Protocol != "native" || r.CPUSeconds != 0 {
		t.Errorf("protocol %q, CPU %v", r.Protocol, r.CPUSeconds)
	}
	if old, err := Parse([]byte(strings.Replace(good, `"protocol": "native",`, ``, 1)), time.Second); err != nil || old.Protocol != "" {
		t.Errorf("a bench that does not say its protocol: %q, %v", old.Protocol, err)
	}
	ws := r.Workloads
	if len(ws) != 4 || ws[0].Workload != "W1" || ws[0].P50us != 549 || ws[1].Clients != 8 || ws[1].Ops != 6630 || ws[2].P99us != 31000 || ws[2].OpsPerSec != 1800 || ws[0].WindowS != 3 {
		t.Errorf("%+v", ws)
	}
	if w4 := ws[3]; w4.Workload != "W4" || w4.Clients != 3 || w4.Ops != 545 || w4.OpsPerSec != 950 || w4.P50us != 7300 || w4.P99us != 173000 || w4.ServerCPUusPerOp != 518 || ws[0].ServerCPUusPerOp != 0 {
		t.Errorf("W4: %+v", w4)
	}
	if ws[0].P50usByNode["127.0.0.1:7002"] != 549 || len(ws[0].P50usByNode) != 3 || ws[1].P50usByNode != nil {
		t.Errorf("p50 by node: W1 %v, W2 %v", ws[0].P50usByNode, ws[1].P50usByNode)
	}
	// Each bad report is the good one with one thing wrong.
	for name, bad := range map[string]string{
		"not JSON":          "allot: no cluster",
		"no workloads":      `{"workloads": []}`,
		"no W3":             strings.Replace(good, `"W3"`, `"W5"`, 1),
		"no W4":             strings.Replace(good, `"W4"`, `"W5"`, 1),
		"W3 for W4":         strings.Replace(good, `"W4"`, `"W3"`, 1),
		"W4 without p50":    strings.Replace(good, `"p50_us": 7300, `, ``, 1),
		"W1 twice":          strings.Replace(good, `"W2"`, `"W1"`, 1),
		"renamed p50":       strings.Replace(good, `"p50_us": 549`, `"p50": 549`, 1),
		"no p99":            strings.Replace(good, `"p99_us": 9000, `, ``, 1),
		"no per_client":     strings.Replace(good, `, "per_client": [160, 170]`, ``, 1),
		"no ops_per_second": strings.Replace(good, `"ops_per_second": 2250, `, ``, 1),
	} {
		if bad == good {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if _, err := Parse([]byte(bad), time.Second); !errors.Is(err, ErrReport) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestArgs(t *testing.T) {
	got := Options{Window: 3 * time.Second, Warmup: time.Second, MaxOps: 500}.Args()
	want := []string{"bench", "--format", "json", "--workloads", "W1,W2,W3,W4", "--duration", "3s", "--max-ops", "500", "--warmup", "1s"}
	if !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	got = Options{Window: time.Second, MaxOps: 9, W4Sessions: 16, W4Names: 1000000, Near: true}.Args()
	want = []string{"bench", "--format", "json", "--workloads", "W1,W2,W3,W4", "--duration", "1s", "--max-ops", "9", "--w4-sessions", "16", "--w4-names", "1000000", "--near"}
	if !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	if got := (Options{Window: time.Second, MaxOps: 1}).Args(); slices.Contains(got, "--warmup") {
		t.Errorf("no warm-up asked: %q", got)
	}
}

func TestBuildWantsTheProject(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/other\n"), 0o644)
	if _, err := Build(context.Background(), dir, t.TempDir()); !errors.Is(err, ErrNotProject) {
		t.Errorf("another module: %v", err)
	}
	if _, err := Build(context.Background(), t.TempDir(), t.TempDir()); !errors.Is(err, ErrNotProject) {
		t.Errorf("no module: %v", err)
	}
}

// TestRunAllotBench builds this repository's allot and runs its bench
// briefly: the contract between the two modules (allot bench's flags and
// JSON) holds.
func TestRunAllotBench(t *testing.T) {
	if testing.Short() {
		t.Skip("builds allot and starts a cluster")
	}
	bin, err := Build(context.Background(), filepath.Join("..", "..", ".."), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), bin, Options{Window: 200 * time.Millisecond, Warmup: 50 * time.Millisecond, MaxOps: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if r.Protocol != "native" {
		t.Errorf("allot bench's client went on %q, want its default, native", r.Protocol)
	}
	for _, w := range r.Workloads {
		if w.Ops == 0 || w.OpsPerSec <= 0 || w.P50us <= 0 || w.P99us < w.P50us || w.Ops > 1000 {
			t.Errorf("%+v", w)
		}
	}
	if r.CPUSeconds <= 0 {
		t.Errorf("allot bench used %v CPU s", r.CPUSeconds)
	}
}
