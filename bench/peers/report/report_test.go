package report

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-dev/allot/bench/peers/backend"
	"github.com/allot-dev/allot/bench/peers/workload"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// run builds a run of the three workloads: W1's p50, W2's rate and
// per-client counts, W3's rate and p99.
func run(name string, n int, w1p50, w2rate float64, per []int64, w3rate, w3p99 float64) Run {
	return Run{Backend: name, Run: n, Info: map[string]string{"server": name + " 1.2.3 (test)"}, Workloads: []workload.Stats{
		{Workload: "W1", Clients: 1, Ops: 100, OpsPerSec: 1e6 / w1p50, P50us: w1p50, P99us: 2 * w1p50, PerClient: []int64{100}},
		{Workload: "W2", Clients: len(per), OpsPerSec: w2rate, P50us: 100, P99us: 900, PerClient: per},
		{Workload: "W3", Clients: 32, OpsPerSec: w3rate, P50us: 5000, P99us: w3p99, PerClient: []int64{10, 12}},
	}}
}

// withW4 adds W4, its rate and p50, to a run.
func withW4(r Run, rate, p50 float64) Run {
	// The server busy half the time.
	r.Workloads = append(r.Workloads, workload.Stats{Workload: "W4", Clients: 16, OpsPerSec: rate, P50us: p50, P99us: 20 * p50, PerClient: []int64{60, 70},
		ServerCPUPct: 50, ServerCPUusPerOp: 0.5e6 / rate})
	return r
}

// fixture is a run in which allot meets every target.
func fixture() Doc {
	d := Doc{
		Date: time.Date(2026, 11, 24, 21, 0, 0, 0, time.UTC), Machine: "2 CPUs (test)", Load: 0.2, CPUs: 2,
		Command: "go run ./cmd/peers", Settings: "each workload 3s",
		Baseline: &backend.Baseline{RTTP50us: 19, RTTP99us: 40, GRPCP50us: 150, GRPCP99us: 260, StreamP50us: 70, StreamP99us: 150, FsyncP50us: 97, FsyncP99us: 124},
		Runs: []Run{
			withW4(run(Allot, 1, 80, 16000, []int64{900, 1000}, 5000, 20000), 1000, 7000),
			withW4(run("etcd", 1, 1000, 78, []int64{49, 50}, 130, 1.1e6), 400, 2400),
			withW4(run("zk", 1, 1100, 1000, []int64{99, 100}, 600, 450000), 250, 9000),
			// An older run, without W4.
			run("redis", 1, 100, 8000, []int64{300, 900}, 140, 1.7e6),
			withW4(run("redis-fastretry", 1, 110, 5500, []int64{600, 700}, 1100, 350000), 12000, 150),
			withW4(run("inproc", 1, 0.4, 800000, []int64{500, 520}, 3600, 71000), 2e6, 0.3),
			withW4(run(Allot, 2, 90, 15000, []int64{950, 1000}, 4800, 22000), 1200, 6000),
		},
		Skipped: []Skip{{"zk-nosync", "zk-nosync: not installed (java not found)"}},
	}
	d.Runs[0].Workloads[0].P50usByNode = map[string]float64{"127.0.0.1:7001": 60, "127.0.0.1:7002": 80, "127.0.0.1:7003": 100}
	return d
}

func TestGolden(t *testing.T) {
	d := fixture()
	got := d.Markdown()
	path := filepath.Join("testdata", "report.md")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("report differs from %s (go test ./report -update rewrites it):\n%s", path, got)
	}
}

func TestTable(t *testing.T) {
	tab := fixture().Table()
	for _, want := range []string{
		"| allot (`allot bench`: 3 nodes) | 80–90 µs | 15,000–16,000 (0.90–0.95) | 4,800–5,000 | 20.0–22.0 ms | 1,000–1,200 | 6.00–7.00 ms |",
		// Ratios from the medians: allot's W1 p50 85 µs, etcd's 1 ms;
		// allot's W4 1,100 operations/s, p50 6.5 ms.
		"| etcd 1.2.3 (`concurrency.Mutex`) | 1.00 ms; allot ×11.76 |",
		"| 400; allot ×2.75 | 2.40 ms; allot ×0.37 |",
		"| 12,000; allot ×0.09 | 150 µs; allot ×0.02 |",
		// A system without W4 has no W4 figures, and no ratio.
		"| Redis 1.2.3 (redsync) | 100 µs; allot ×1.18 | 8,000 (0.33); allot ×1.94 | 140; allot ×35.00 | 1.70 s; allot ×80.95 | – | – |",
		"| in-process ceiling (not a peer) | 0.4 µs | 800,000 (0.96) | 3,600 | 71.0 ms | 2,000,000 | 0.3 µs |",
	} {
		if !strings.Contains(tab, want) {
			t.Errorf("no %q in\n%s", want, tab)
		}
	}
	// allot is the first row, the ceiling the last.
	lines := strings.Split(strings.TrimSpace(tab), "\n")
	if !strings.HasPrefix(lines[2], "| allot") || !strings.HasPrefix(lines[len(lines)-1], "| in-process") {
		t.Errorf("row order:\n%s", tab)
	}
	// Every row has the header's columns.
	for _, l := range lines {
		if strings.Count(l, "|") != strings.Count(lines[0], "|") {
			t.Errorf("a row of %d columns under a header of %d: %s", strings.Count(l, "|")-1, strings.Count(lines[0], "|")-1, l)
		}
	}
	// Without allot's W4 (an allot bench older than W4), a peer's W4 has
	// no ratio.
	d := fixture()
	d.Runs[0].Workloads, d.Runs[6].Workloads = d.Runs[0].Workloads[:3], d.Runs[6].Workloads[:3]
	tab = d.Table()
	if !strings.Contains(tab, "| allot (`allot bench`: 3 nodes) | 80–90 µs | 15,000–16,000 (0.90–0.95) | 4,800–5,000 | 20.0–22.0 ms | – | – |") ||
		!strings.Contains(tab, "| 400 | 2.40 ms |") {
		t.Errorf("allot without W4:\n%s", tab)
	}
}

// TestEveryRunColumns: every line of the every-run table, notes of a
// whole run included, has the header's columns.
func TestEveryRunColumns(t *testing.T) {
	d := fixture()
	d.Runs[0].CPUSeconds, d.Runs[1].Error, d.Runs[2].StopNote = 12.5, "start: no", "stopped late"
	md := d.Markdown()
	i := strings.Index(md, "| system | run |")
	if i < 0 {
		t.Fatalf("no every-run table:\n%s", md)
	}
	lines := strings.Split(strings.TrimSpace(md[i:]), "\n")
	n := strings.Count(lines[0], "|")
	for _, want := range []string{"| all |", "| – |", "| stop |", "| W4 |"} {
		if !strings.Contains(md[i:], want) {
			t.Errorf("no %q line", want)
		}
	}
	for _, l := range lines {
		if strings.Count(l, "|") != n {
			t.Errorf("%d columns under %d: %s", strings.Count(l, "|")-1, n-1, l)
		}
	}
}

func TestCaptionSaysLoaded(t *testing.T) {
	d := fixture()
	if strings.Contains(d.Caption(), "loaded") {
		t.Errorf("an idle machine called loaded: %s", d.Caption())
	}
	d.Load = 3.5
	if !strings.Contains(d.Caption(), "measured while the machine was loaded") || !strings.Contains(d.Caption(), "2026-11-24") {
		t.Errorf("a loaded machine's caption: %s", d.Caption())
	}
}

// TestCaptionSaysProtocol: the caption names what allot's client went on,
// as allot's runs say (a peer's Info does not count), and says nothing of
// it where no run says.
func TestCaptionSaysProtocol(t *testing.T) {
	d := fixture()
	if strings.Contains(d.Caption(), "protocol") {
		t.Errorf("no run says its protocol: %s", d.Caption())
	}
	for i := range d.Runs {
		d.Runs[i].Info["protocol"] = "grpc"
		if IsAllot(d.Runs[i].Backend) {
			d.Runs[i].Info["protocol"] = "native"
		}
	}
	if c := d.Caption(); !strings.Contains(c, "allot's client called its nodes on the native protocol") || strings.Contains(c, "grpc") {
		t.Errorf("allot's runs on native: %s", c)
	}
	d.Runs = append(d.Runs, run(Allot, 9, 500, 1000, []int64{10, 10}, 100, 1000))
	d.Runs[len(d.Runs)-1].Info["protocol"] = "native+grpc"
	if c := d.Caption(); !strings.Contains(c, "on the native and the native+grpc protocol") {
		t.Errorf("runs that differ: %s", c)
	}
}

func TestTargets(t *testing.T) {
	verdicts := func(d Doc) []Verdict {
		var out []Verdict
		for _, t := range d.Targets() {
			out = append(out, t.Verdict)
		}
		return out
	}
	all := func(v Verdict) []Verdict { return []Verdict{v, v, v, v, v, v} }
	if got := verdicts(fixture()); !equal(got, all(Met)) {
		t.Fatalf("fixture: %v\n%s", got, fixture().TargetList())
	}
	for i, c := range []struct {
		name string
		edit func(*Doc)
	}{
		{"W1 slower than Redis", func(d *Doc) { d.Runs[3] = run("redis", 1, 60, 8000, []int64{300, 900}, 140, 1.7e6) }},
		{"W2 under 2× ZooKeeper", func(d *Doc) { d.Runs[2] = run("zk", 1, 1100, 8000, []int64{99, 100}, 600, 450000) }},
		{"W2 under Redis fast retry", func(d *Doc) { d.Runs[4] = run("redis-fastretry", 1, 110, 17000, []int64{600, 700}, 1100, 350000) }},
		{"W2 unfair in one run", func(d *Doc) { d.Runs[6] = run(Allot, 2, 90, 15000, []int64{790, 1000}, 4800, 22000) }},
		{"W3 under 2× the best peer", func(d *Doc) { d.Runs[4] = run("redis-fastretry", 1, 110, 5500, []int64{600, 700}, 2500, 350000) }},
		{"W3 p99 not below a peer's", func(d *Doc) { d.Runs[2] = run("zk", 1, 1100, 1000, []int64{99, 100}, 600, 21000) }},
	} {
		d := fixture()
		c.edit(&d)
		want := all(Met)
		want[i] = NotMet
		if got := verdicts(d); !equal(got, want) {
			t.Errorf("%s: %v, want %v\n%s", c.name, got, want, d.TargetList())
		}
	}
	// Without ZooKeeper and Redis, the targets naming them are not measured.
	d := fixture()
	d.Runs = []Run{d.Runs[0], d.Runs[1]}
	want := []Verdict{Unmeasured, Unmeasured, Unmeasured, Met, Met, Met}
	if got := verdicts(d); !equal(got, want) {
		t.Errorf("allot and etcd only: %v, want %v", got, want)
	}
	d.Runs = d.Runs[:1]
	if got := verdicts(d); !equal(got, []Verdict{Unmeasured, Unmeasured, Unmeasured, Met, Unmeasured, Unmeasured}) {
		t.Errorf("allot alone: %v", got)
	}
}

func equal(a, b []Verdict) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSplice(t *testing.T) {
	readme := "# x\n\nbefore\n" + OpenMark + "cd bench/peers && go run ./cmd/peers -w -->\nold table\nold too\n" + CloseMark + "\nafter\n"
	got, err := Splice([]byte(readme), "new table\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# x\n\nbefore\n" + OpenMark + "cd bench/peers && go run ./cmd/peers -w -->\nnew table\n" + CloseMark + "\nafter\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for name, bad := range map[string]string{
		"no region":  "# x\n",
		"unclosed":   OpenMark + "c -->\nbody\n",
		"no opening": "body\n" + CloseMark + "\n",
		"reversed":   CloseMark + "\n" + OpenMark + "c -->\n",
		"two":        readme + readme,
	} {
		if _, err := Splice([]byte(bad), "t\n"); !errors.Is(err, ErrRegion) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{FmtRate(1234567), "1,234,567"}, {FmtRate(999), "999"}, {FmtRate(78.04), "78.0"},
		{FmtUs(0.4), "0.4 µs"}, {FmtUs(95), "95 µs"}, {FmtUs(1080), "1.08 ms"},
		{FmtUs(31000), "31.0 ms"}, {FmtUs(935000), "935 ms"}, {FmtUs(1.71e6), "1.71 s"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
	if !bytes.Contains([]byte(fixture().Markdown()), []byte("Not run: zk-nosync")) {
		t.Error("a skipped system is not said")
	}
}

// TestREADMERegion: the project's README has the region -w rewrites.
func TestREADMERegion(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Splice(readme, fixture().Region())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte(fixture().Table())) || !bytes.Contains(got, []byte(OpenMark+"cd bench/peers && go run ./cmd/peers -w -->")) {
		t.Error("the README's region was not rewritten")
	}
}

// TestNear: allot-near's row comes second, with no ratio of its own (the
// peers are compared with allot), and its one-key targets are judged on
// its own figures, not allot's.
func TestNear(t *testing.T) {
	d := fixture()
	// Near: W1 within Redis's, W2 2× ZooKeeper's but under Redis with a
	// fast retry (5500).
	d.Runs = append(d.Runs, run(AllotNear, 1, 99, 5000, []int64{950, 1000}, 5000, 20000))
	rows := strings.Split(strings.TrimSpace(d.Table()), "\n")[2:]
	if !strings.HasPrefix(rows[0], "| allot (") || !strings.HasPrefix(rows[1], "| allot, sessions at their key's home") {
		t.Fatalf("rows: %q", rows[:2])
	}
	if strings.Contains(rows[1], "×") {
		t.Errorf("allot-near's row has a ratio: %s", rows[1])
	}
	var got []Verdict
	var names []string
	for _, tg := range d.Targets() {
		got, names = append(got, tg.Verdict), append(names, tg.Name)
	}
	want := []Verdict{Met, Met, Met, Met, Met, Met, Met, Met, NotMet, Met}
	if !equal(got, want) {
		t.Errorf("targets %q: %v, want %v", names, got, want)
	}
	if !strings.Contains(d.TargetList(), "with --near: W2 ≥ Redis with fast retry: not met (0.91 against redis-fastretry") {
		t.Errorf("target list:\n%s", d.TargetList())
	}
}
