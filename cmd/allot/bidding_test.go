package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The lower-bound networks and the speed schedules from the command line.
func TestMatrixAndSpeedsFlags(t *testing.T) {
	out, errOut, code := allot(t, "sim", "--algo", "bidding,central", "--graph", "matrix:2:3", "--speeds", "alternate:1:2:30",
		"--requests", "60", "--seed", "3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Runs []struct {
			Algorithm        string `json:"algorithm"`
			Processes        int    `json:"processes"`
			Served           int    `json:"served"`
			SafetyViolations int    `json:"safety_violations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// matrix:2:3 has 6 users and 6 resources: bidding adds one granter each.
	if len(doc.Runs) != 2 || doc.Runs[0].Processes != 12 || doc.Runs[0].Served < 60 || doc.Runs[0].SafetyViolations != 0 {
		t.Errorf("runs: %+v", doc.Runs)
	}
	for _, args := range [][]string{
		{"sim", "--graph", "matrix:0:3"},
		{"sim", "--graph", "matrix:2"},
		{"sim", "--graph", "ring:5", "--speeds", "walk:1"},
		{"sim", "--graph", "ring:5", "--speeds", "warp:1:2"},
	} {
		_, errOut, code := allot(t, args...)
		if code != 2 || !strings.HasPrefix(errOut, "allot: ") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// The acceptance run of the bidding algorithms: the outside checker, which
// reads only the trace, finds no overlapping critical sections.
func TestBiddingTraceCheckedByOutsideProgram(t *testing.T) {
	checker := filepath.Join("..", "..", "..", "shared", "tools", "check_trace.py")
	if _, err := os.Stat(checker); err != nil {
		t.Skip("outside trace checker not found")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	for _, a := range []string{"bidding", "priority-bidding"} {
		tr := filepath.Join(t.TempDir(), "t.jsonl")
		if _, errs, code := allot(t, "sim", "--algo", a, "--users", "50", "--resources", "25", "--demand", "1:5",
			"--requests", "3000", "--seed", "4", "--trace", tr); code != 0 {
			t.Fatalf("%s: exit %d: %s", a, code, errs)
		}
		out, err := exec.Command("python3", checker, tr, "--min-served", "3000").CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"ok": true`) {
			t.Fatalf("%s: outside checker: %v\n%s", a, err, out)
		}
	}
}
