package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/trace"
)

// TestSocialCSPTrace: extended outputs over uniform bidding and ordered
// locking write output and input events that the rendezvous checker,
// reading the trace file alone, finds matched; the outside checker accepts
// the trace (it skips the two kinds it does not know).
func TestSocialCSPTrace(t *testing.T) {
	for _, a := range []string{"socialcsp-bidding", "socialcsp-ordered"} {
		tr := filepath.Join(t.TempDir(), "t.jsonl")
		if _, errs, code := allot(t, "sim", "--algo", a, "--users", "20", "--resources", "10", "--demand", "1:3",
			"--requests", "1000", "--seed", "5", "--trace", tr); code != 0 {
			t.Fatalf("%s: exit %d: %s", a, code, errs)
		}
		f, err := os.Open(tr)
		if err != nil {
			t.Fatal(err)
		}
		var rv check.Rendezvous
		err = trace.Read(f, &rv)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if rv.Violations > 0 || rv.Outputs < 1000 || rv.Inputs < rv.Outputs {
			t.Fatalf("%s: %d outputs, %d inputs, violations %v", a, rv.Outputs, rv.Inputs, rv.First)
		}
		checker := filepath.Join("..", "..", "..", "shared", "tools", "check_trace.py")
		if _, err := os.Stat(checker); err != nil {
			continue
		}
		if _, err := exec.LookPath("python3"); err != nil {
			continue
		}
		out, err := exec.Command("python3", checker, tr, "--min-served", "1000").CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"ok": true`) {
			t.Fatalf("%s: outside checker: %v\n%s", a, err, out)
		}
	}
}

// The acceptance run of ordered locking: the outside checker, which reads
// only the traces, finds no overlapping critical sections under ordered
// or modular-central on the same workload.
func TestOrderedTraceCheckedByOutsideProgram(t *testing.T) {
	checker := filepath.Join("..", "..", "..", "shared", "tools", "check_trace.py")
	if _, err := os.Stat(checker); err != nil {
		t.Skip("outside trace checker not found")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	tr := filepath.Join(t.TempDir(), "t.jsonl")
	if _, errs, code := allot(t, "sim", "--algo", "ordered,modular-central", "--users", "50", "--resources", "40", "--demand", "2:5",
		"--requests", "5000", "--trace", tr); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, a := range []string{"ordered", "modular-central"} {
		f := strings.TrimSuffix(tr, ".jsonl") + "." + a + ".jsonl"
		out, err := exec.Command("python3", checker, f, "--min-served", "5000").CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"ok": true`) {
			t.Fatalf("%s: outside checker: %v\n%s", a, err, out)
		}
	}
}
