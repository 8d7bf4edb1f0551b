package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/allot-dev/allot/run"
)

func allot(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = realMain(args, &o, &e)
	return o.String(), e.String(), code
}

func TestBadInputIsOneLineAndExit2(t *testing.T) {
	dir := t.TempDir()
	badYAML := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badYAML, []byte("userz: 3\n"), 0o644)
	for _, args := range [][]string{
		{"frobnicate"},
		{"sim", "--algo", "nope"},
		{"sim", "--graph", "ring:0"},
		{"sim", "--graph", "hexagon:4"},
		{"sim", "--delay", "exp:-1"},
		{"sim", "--think", "uniform:9:1"},
		{"sim", "--requests", "-5"},
		{"sim", "--users", "0", "--resources", "3", "--demand", "1"},
		{"sim", "--users", "4", "--resources", "3", "--demand", "5"},
		{"sim", "--users", "4", "--resources", "3", "--demand", "x"},
		{"sim", "--users", "4,x", "--resources", "3", "--demand", "1"},
		{"sim", "--users", "4,", "--resources", "3", "--demand", "1"},
		{"sim", "--users", "4,0", "--resources", "3", "--demand", "1"},
		{"sim", "--users", "4,5", "--resources", "3", "--demand", "1", "--trace", filepath.Join(dir, "t.jsonl")},
		{"sim", "--graph", "ring:5", "--users", "4", "--resources", "3", "--demand", "1"},
		{"sim", "--kind", "dining"},
		{"sim", "--format", "xml"},
		{"sim", "--crash", "3@"},
		{"sim", "--crash", "999@5", "--graph", "ring:5"},
		{"sim", "--fixed-sets"},
		{"sim", "--zipf", "1"},
		{"sim", "--users", "4", "--resources", "3", "--demand", "1", "--zipf", "-1"},
		{"sim", "--users", "4", "--resources", "3", "--demand", "1", "--zipf", "NaN"},
		{"sim", "--algo", "socialcsp-central"},
		{"sim", "--algo", "socialcsp-pool"},
		{"sim", "--algo", "socialcsp-socialcsp-bidding"},
		{"sim", "--no-such-flag"},
		{"sim", filepath.Join(dir, "missing.yaml")},
		{"sim", badYAML},
		{"sim", "a.yaml", "b.yaml"},
		{"sim", "--kind", "service", "--semaphores", "-1"},
		{"sim", "--kind", "service", "--semaphores", "1", "--units", "0"},
		{"sim", "--kind", "service", "--semaphores", "1", "--units", "3000000000"},
		{"sim", "--kind", "service", "--slots", "0"},
		{"sim", "--kind", "service", "--slots", "65"},
		{"sim", "--kind", "service", "--variant", "sem-no-regrant"},
		{"sim", "--kind", "service", "--quotas", "1", "--budget", "3000000000"},
		{"sim", "--kind", "service", "--quotas", "2000"},
		{"repro", "no-such-paper"},
		{"list", "foo"},
		{"list", "--all"},
		{"sim", "--cost", "1000000000000000000"},
		{"sim", "--delay", "const:99999999999999999999"},
		{"sim", "--requests", "99999999999999999999"},
		{"sim", "--horizon", "-3"},
		{"sim", "--crash", "36@10"},
		{"sim", "--algo", "unhygienic", optionsFile(t, dir, "rule: nonsense")},
		{"sim", "--algo", "hygienic", optionsFile(t, dir, "foo: bar")},
		{"sim", "--algo", "bidding", optionsFile(t, dir, "k: x")},
		{"sim", scenarioFile(t, dir, "graph: ring:5\nrequests: 10\nfailure: [.nan]\n")},
		{"sim", "--kind", "quota", "--graph", "line:5", "--waste", "1", "--requests", "9"},
		{"sim", "--kind", "quota", "--graph", "line:5", "--budget", "10", "--requests", "9"},
		{"sim", "--kind", "quota", "--graph", "line:5", "--budget", "-3", "--waste", "0", "--requests", "9"},
		{"sim", "--kind", "quota", "--graph", "line:5", "--budget", "10", "--waste", "-1", "--requests", "9"},
		{"sim", "--kind", "quota", "--graph", "line:5", "--budget", "10", "--waste", "11", "--requests", "9"},
		{"sim", "--kind", "quota", "--graph", "line:5", "--budget", "10", "--waste", "1", "--units", "2", "--requests", "9"},
		{"sim", "--graph", "ring:5", "--budget", "10"},
		{"sim", "--kind", "pool", "--graph", "ring:5", "--units", "2", "--budget", "10"},
	} {
		out, errs, code := allot(t, args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", args, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "allot: ") || out != "" {
			t.Errorf("%q: want one line starting 'allot: ' on stderr, got stderr %q stdout %q", args, errs, out)
		}
	}
}

func optionsFile(t *testing.T, dir, opts string) string {
	return scenarioFile(t, dir, "graph: ring:5\nrequests: 10\noptions: {"+opts+"}\n")
}

func scenarioFile(t *testing.T, dir, body string) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "s*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(body)
	return f.Name()
}

// TestNothingWrittenOnBadInput: a bad input stops the command before any
// trace or profile is opened.
func TestNothingWrittenOnBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--crash", "36@10"},
		{"--algo", "hygienic,unhygienic", "--graph", "ring:5", "--crash", "9@10"},
		{"--algo", "hygienic,bidding", optionsFile(t, t.TempDir(), "k: 0")},
		{"--think", "uniform:9:1"},
	} {
		dir := t.TempDir()
		args = append([]string{"sim", "--trace", filepath.Join(dir, "t.jsonl"), "--cpuprofile", filepath.Join(dir, "cpu.out")}, args...)
		if _, errs, code := allot(t, args...); code != 2 {
			t.Errorf("%q: exit %d (%s)", args, code, errs)
		}
		if ents, _ := os.ReadDir(dir); len(ents) > 0 {
			t.Errorf("%q: wrote %v", args, ents)
		}
	}
}

type simJSON struct {
	Seed uint64           `json:"seed"`
	Runs []map[string]any `json:"runs"`
}

func TestSimJSONContractAndDeterminism(t *testing.T) {
	args := []string{"sim", "--algo", "central,hygienic", "--graph", "grid:4x4", "--requests", "600", "--seed", "8", "--format", "json"}
	out1, errs, code := allot(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r simJSON
	if err := json.Unmarshal([]byte(out1), &r); err != nil {
		t.Fatal(err)
	}
	if r.Seed != 8 || len(r.Runs) != 2 {
		t.Fatalf("seed %d, %d runs", r.Seed, len(r.Runs))
	}
	for _, run := range r.Runs {
		for _, k := range []string{"algorithm", "processes", "requests", "served", "response", "messages", "concurrency",
			"safety_violations", "starved", "deadlock", "events", "wall_seconds", "events_per_second"} {
			if _, ok := run[k]; !ok {
				t.Errorf("%v: no %q", run["algorithm"], k)
			}
		}
		if run["served"].(float64) < 600 || run["safety_violations"].(float64) != 0 || run["deadlock"].(bool) {
			t.Errorf("%v: served %v violations %v deadlock %v", run["algorithm"], run["served"], run["safety_violations"], run["deadlock"])
		}
		for _, k := range []string{"mean", "p50", "p99", "max"} {
			if _, ok := run["response"].(map[string]any)[k]; !ok {
				t.Errorf("response has no %q", k)
			}
		}
		for _, k := range []string{"total", "per_served", "by_kind"} {
			if _, ok := run["messages"].(map[string]any)[k]; !ok {
				t.Errorf("messages has no %q", k)
			}
		}
	}
	out2, _, _ := allot(t, args...)
	if stripTiming(out1) != stripTiming(out2) {
		t.Error("same seed, different JSON (apart from timing)")
	}
}

func stripTiming(s string) string {
	var keep []string
lines:
	for _, l := range strings.Split(s, "\n") {
		for _, f := range run.TimingFields {
			if strings.Contains(l, `"`+f+`"`) {
				continue lines
			}
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

func TestDefaultScenarioTable(t *testing.T) {
	out, errs, code := allot(t, "sim", "--requests", "300")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"algorithm", "central", "hygienic", "grid:6x6"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestScenarioFileAndFlagsOverride(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	os.WriteFile(path, []byte("algo: [central]\nusers: 12\nresources: 8\ndemand: \"2:3\"\nrequests: 200\nseed: 5\n"), 0o644)
	out, errs, code := allot(t, "sim", path, "--seed", "6", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r simJSON
	json.Unmarshal([]byte(out), &r)
	if r.Seed != 6 || len(r.Runs) != 1 || r.Runs[0]["users"].(float64) != 12 {
		t.Fatalf("got %s", out)
	}
}

// TestTraceCheckedByOutsideProgram runs the outside trace checker when it
// is available next to the repository.
func TestTraceCheckedByOutsideProgram(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	if _, errs, code := allot(t, "sim", "--algo", "hygienic", "--graph", "random:30:0.2", "--delay", "exp:15", "--requests", "2000", "--seed", "2", "--trace", tr); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checker := filepath.Join("..", "..", "..", "shared", "tools", "check_trace.py")
	if _, err := os.Stat(checker); err != nil {
		t.Skip("outside trace checker not found")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	out, err := exec.Command("python3", checker, tr, "--min-served", "2000").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"ok": true`) {
		t.Fatalf("outside checker: %v\n%s", err, out)
	}
}

// TestFlagsOverrideTheFile: every flag replaces the file's value (a list
// such as --crash included), and a workload on the command line replaces
// the file's whole.
func TestFlagsOverrideTheFile(t *testing.T) {
	dir := t.TempDir()
	graphFile := filepath.Join(dir, "g.yaml")
	os.WriteFile(graphFile, []byte("algo: [hygienic]\ngraph: ring:6\nrequests: 100\ncrash: [\"2@50\"]\n"), 0o644)
	for _, c := range []struct {
		args      []string
		users     float64
		crashedAt []int
	}{
		{[]string{graphFile}, 6, []int{2}},
		{[]string{graphFile, "--crash", "4@60"}, 6, []int{4}},
		{[]string{graphFile, "--users", "5", "--resources", "4", "--demand", "1:2", "--crash", "1@10"}, 5, []int{1}},
	} {
		out, errs, code := allot(t, append([]string{"sim", "--format", "json"}, c.args...)...)
		if code != 0 {
			t.Errorf("%q: exit %d: %s", c.args, code, errs)
			continue
		}
		var r simJSON
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		run := r.Runs[0]
		if run["users"].(float64) != c.users {
			t.Errorf("%q: %v users, want %v", c.args, run["users"], c.users)
		}
		crashed, _ := run["crashed"].([]any)
		var got []int
		for _, v := range crashed {
			got = append(got, int(v.(float64)))
		}
		if !slices.Equal(got, c.crashedAt) {
			t.Errorf("%q: crashed %v, want %v", c.args, got, c.crashedAt)
		}
	}
}

func TestHelpAndVersionOnStdout(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"--version"}, {"version"}} {
		out, errs, code := allot(t, args...)
		if code != 0 || out == "" || errs != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if out, _, _ := allot(t, "--version"); !strings.HasPrefix(out, "allot ") {
		t.Errorf("version %q", out)
	}
}

func TestEqualRowsAreExplained(t *testing.T) {
	_, errs, code := allot(t, "sim", "--algo", "threshold,unhygienic,hygienic", "--graph", "ring:6", "--requests", "100")
	if code != 0 || !strings.Contains(errs, "unhygienic made exactly the same run as threshold") || strings.Contains(errs, "note: hygienic made") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestQuotaTracesCheckedByOutsideProgram runs three quota algorithms with one
// trace each (t.ALGO.jsonl) and has the outside checker judge the
// consumption conditions from the traces alone.
func TestQuotaTracesCheckedByOutsideProgram(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	out, errs, code := allot(t, "sim", "--kind", "quota", "--algo", "controller,controller-main,central-counter", "--graph", "line:64",
		"--budget", "4000", "--waste", "2000", "--requests", "6000", "--seed", "5", "--trace", tr, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r simJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		if run["permits"].(float64) > 4000 || run["rejects"].(float64) == 0 || run["safety_violations"].(float64) != 0 {
			t.Errorf("%v: permits %v rejects %v violations %v", run["algorithm"], run["permits"], run["rejects"], run["safety_violations"])
		}
	}
	checker := filepath.Join("..", "..", "..", "shared", "tools", "check_trace.py")
	if _, err := os.Stat(checker); err != nil {
		t.Skip("outside trace checker not found")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	for _, a := range []string{"controller", "controller-main", "central-counter"} {
		path := filepath.Join(dir, "t."+a+".jsonl")
		out, err := exec.Command("python3", checker, path, "--budget", "4000", "--waste", "2000").CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"ok": true`) {
			t.Errorf("%s: outside checker: %v\n%s", a, err, out)
		}
	}
}
