package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/allot-dev/allot/report"
	// The tests of repro --out check the figures, as a build with -tags
	// figures draws them.
	_ "github.com/allot-dev/allot/report/svg"
)

// A build without -tags figures leaves the plotting stack out (gonum/plot,
// its fonts, LaTeX and PDF packages: 8 modules to download and compile on
// a cold machine), which only `allot repro --out` needs. (.ci/run vets the
// build with the tag.)
func TestPlottingStackOnlyWithTag(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "gonum.org/v1/plot") {
		t.Error("gonum.org/v1/plot is linked into allot without -tags figures")
	}
}

// Without a renderer, --out is refused at once with how to get one, before
// any experiment runs; a shard's --out (its results file, no figures) and
// runs without --out are unaffected.
func TestReproOutWithoutFigures(t *testing.T) {
	old := report.SetRenderer(nil)
	t.Cleanup(func() { report.SetRenderer(old) })
	dir := t.TempDir()
	for _, args := range [][]string{
		{"repro", "bidding", "--quick", "--out", dir},
		{"repro", "merge", "--out", dir, dir},
	} {
		_, errs, code := allot(t, args...)
		if code != 2 || !strings.HasPrefix(errs, "allot: --out: ") || !strings.Contains(errs, "-tags figures") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
}
