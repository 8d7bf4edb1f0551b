package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExploreAcceptance: modular-central on 3 users, 2 resources, demand
// 1:2, one request each: a complete search, no violation, the state count.
func TestExploreAcceptance(t *testing.T) {
	out, errs, code := allot(t, "explore", "--algo", "modular-central", "--users", "3", "--resources", "2", "--demand", "1:2", "--requests", "1", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var j struct {
		Runs []struct {
			Seed       uint64 `json:"seed"`
			States     int    `json:"states"`
			Complete   bool   `json:"complete"`
			Violations int    `json:"violations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err, out)
	}
	if len(j.Runs) != 1 {
		t.Fatalf("%s", out)
	}
	if r := j.Runs[0]; !r.Complete || r.Violations != 0 || r.States < 100 || r.Seed != 1 {
		t.Fatalf("%s", out)
	}
}

// TestExploreSeeds: --seeds explores one instance per seed, each with its
// own draws (a dynamic workload's sets), and stops at a violation.
func TestExploreSeeds(t *testing.T) {
	out, errs, code := allot(t, "explore", "--algo", "modular-hygienic", "--users", "3", "--resources", "2", "--demand", "1:2", "--seeds", "3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var j struct {
		Runs []struct {
			Seed     uint64 `json:"seed"`
			States   int    `json:"states"`
			Complete bool   `json:"complete"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || len(j.Runs) != 3 {
		t.Fatal(err, out)
	}
	for i, r := range j.Runs {
		if r.Seed != uint64(1+i) || !r.Complete {
			t.Fatalf("%s", out)
		}
	}
	out, _, code = allot(t, "explore", "--algo", "hygienic/handover", "--seeds", "3")
	if code != 1 || strings.Count(out, "states,") != 1 {
		t.Fatalf("exit %d, want one search stopped at its violation:\n%s", code, out)
	}
}

// TestExploreFindsLine32AndReplays: the literal line 32 is found (four
// users, one request each: one is locked out), exit 1, and the printed
// `allot sim` command writes the very same trace.
func TestExploreFindsLine32AndReplays(t *testing.T) {
	dir := t.TempDir()
	ceTrace := filepath.Join(dir, "ce.jsonl")
	out, errs, code := allot(t, "explore", "--algo", "modular-central/literal32", "--users", "4", "--resources", "2", "--demand", "1:2", "--trace", ceTrace)
	if code != 1 || !strings.Contains(out, "shortest counterexample (deadlock, 45 steps)") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	_, cmd, ok := strings.Cut(out, "replay in the simulator (step k at tick k):\n  ")
	if !ok {
		t.Fatalf("no replay command:\n%s", out)
	}
	args := strings.Fields(strings.SplitN(cmd, "\n", 2)[0])
	if args[0] != "allot" || args[len(args)-1] != "replay.jsonl" {
		t.Fatalf("replay command %q", args)
	}
	replayTrace := filepath.Join(dir, "replay.jsonl")
	args[len(args)-1] = replayTrace
	_, errs, code = allot(t, args[1:]...)
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errs)
	}
	// The same events and end; the headers name each its own run.
	want, _ := os.ReadFile(ceTrace)
	got, _ := os.ReadFile(replayTrace)
	_, want, _ = bytes.Cut(want, []byte("\n"))
	_, got, _ = bytes.Cut(got, []byte("\n"))
	if len(want) == 0 || string(got) != string(want) {
		t.Fatalf("the simulator's trace differs from the counterexample's:\n%s\nvs\n%s", got, want)
	}
}

func TestExploreBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"explore"},
		{"explore", "--algo", "nope"},
		{"explore", "--algo", "hygienic", "--requests", "0"},
		{"explore", "--algo", "hygienic", "--crash", "x"},
		{"explore", "--algo", "hygienic", "--crash", "9"},
		{"explore", "--algo", "hygienic", "--format", "xml"},
		{"explore", "--algo", "hygienic", "--max-depth", "-1"},
		{"explore", "--algo", "hygienic", "--graph", "ring:0"},
		{"explore", "--algo", "hygienic", "extra"},
		{"explore", "--algo", "doorway"},
		{"explore", "--algo", "hygienic", "--seeds", "0"},
	} {
		out, errs, code := allot(t, args...)
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "allot: ") || out != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q", args, code, errs, out)
		}
	}
}

// TestExploreTraceOutsideChecker: the outside checker, reading only the
// counterexample's trace, finds the violation the explorer reports.
func TestExploreTraceOutsideChecker(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "ce.jsonl")
	if _, errs, code := allot(t, "explore", "--algo", "hygienic/handover", "--trace", tr); code != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checker := filepath.Join("..", "..", "..", "shared", "tools", "check_trace.py")
	if _, err := os.Stat(checker); err != nil {
		t.Skip("outside trace checker not found")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	out, _ := exec.Command("python3", checker, tr).CombinedOutput()
	if !strings.Contains(string(out), `"ok": false`) || !strings.Contains(string(out), "p1 enters") {
		t.Fatalf("outside checker:\n%s", out)
	}
}
