package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/ctlsim"
	"github.com/allot-dev/allot/trace"
)

func TestControlBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"sim", "--cut", "0>1@5-9"},
		{"sim", "--graph", "ring:5", "--restart", "1@5"},
		{"sim", "--pause", "1@5-9"},
		{"sim", "--nodes", "3"},
		{"sim", "--kind", "control", "--nodes", "0"},
		{"sim", "--kind", "control", "--cut", "0~1@5"},
		{"sim", "--kind", "control", "--cut", "0>0@5-9"},
		{"sim", "--kind", "control", "--restart", "7@100"},
		{"sim", "--kind", "control", "--pause", "1@90-10"},
		{"sim", "--kind", "control", "--random-faults", "--crash", "1@5"},
		{"sim", "--kind", "control", "--variant", "no-such"},
		{"sim", "--kind", "control", "--seeds", "2", "--trace", "t.jsonl"},
		{"sim", "--kind", "control", "--horizon", "0"},
		{"sim", "--kind", "control", "--delay", "exp:-1"},
		{"sim", "--kind", "control", "scenario.yaml"},
		{"sim", "--kind=control", "--graph", "ring:3"},
		{"explore", "--kind", "control", "--crash", "5"},
		{"explore", "--kind", "control", "--restart", "1"},
		{"explore", "--kind", "control", "--delay", "exp:4"},
		{"explore", "--kind", "control", "--max-depth", "0", "--max-states", "0", "--timeout", "0"},
	} {
		out, errs, code := allot(t, args...)
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "allot: ") || out != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 and one line 'allot: ...'", args, code, errs, out)
		}
	}
}

// TestControlSim: a scripted run prints its views and no finding, the
// same bytes for the same seed, and a trace the checker reads back alike.
func TestControlSim(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "c.jsonl")
	args := []string{"sim", "--kind", "control", "--seed", "4", "--horizon", "15000",
		"--cut", "0-1@4000-8000", "--pause", "2@9000-11000", "--crash", "1@12000", "--restart", "1@12500"}
	out, errs, code := allot(t, append(args, "--trace", tr)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	again, _, _ := allot(t, args...)
	if out != again {
		t.Errorf("same seed, different output:\n%s\n%s", out, again)
	}
	for _, want := range []string{"cut 0>1@4000-8000, cut 1>0@4000-8000, pause 2@9000-11000", "checker findings: 0", "epoch"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	f, err := os.Open(tr)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := check.Control{Nodes: 3}
	if err := trace.Read(f, &c); err != nil {
		t.Fatal(err)
	}
	if !c.OK() {
		t.Errorf("the trace read back: %v", c.First)
	}
	var r ctlsim.Result
	js, _, _ := allot(t, append(args, "--format", "json")...)
	if err := json.Unmarshal([]byte(js), &r); err != nil || r.Views == 0 || len(r.Serving) != 3 || r.Faults.Count() != 5 {
		t.Errorf("json: %v, %+v", err, r)
	}
}

// TestControlVariantFails: the plane without leases, its node 0 cut off,
// fails the run with exit 1 and the seed.
func TestControlVariantFails(t *testing.T) {
	_, errs, code := allot(t, "sim", "--kind", "control", "--variant", "no-lease", "--seed", "2", "--horizon", "15000",
		"--cut", "0-1@5000-12000,0-2@5000-12000")
	if code != 1 || !strings.Contains(errs, "seed 2") || !strings.Contains(errs, "while p0 still serves") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func TestControlSweep(t *testing.T) {
	out, errs, code := allot(t, "sim", "--kind", "control", "--nodes", "5", "--random-faults", "--seeds", "12", "--seed", "100")
	if code != 0 || !strings.Contains(out, "seeds 100..111") {
		t.Errorf("exit %d, stderr %q\n%s", code, errs, out)
	}
}

func TestControlExplore(t *testing.T) {
	out, errs, code := allot(t, "explore", "--kind", "control", "--crash", "1", "--restart", "1", "--max-depth", "6")
	if code != 0 || !strings.Contains(out, "bounded by max-depth") || !strings.Contains(out, "states") {
		t.Errorf("exit %d, stderr %q\n%s", code, errs, out)
	}
}
