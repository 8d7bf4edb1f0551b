package applications

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/allot-dev/allot/experiments/study"
	_ "github.com/allot-dev/allot/report/svg" // draws the figures these tests check
)

func TestApplicationsQuick(t *testing.T) {
	dir := t.TempDir()
	claims, err := Experiment().Run(context.Background(), study.Options{Quick: true, Seed: 1, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(claims) != 6 {
		t.Errorf("%d claims, want 6", len(claims))
	}
	for _, c := range claims {
		t.Logf("%s %v: %s", c.ID, c.Pass, c.Measured)
		if !c.Pass {
			t.Errorf("claim %s failed: %s", c.ID, c.Measured)
		}
	}
	for _, f := range []string{"applications-2pl-kv.svg", "applications-2pl-mixed.svg", "applications-2pl-chains.svg", "applications-csp-kv.svg", "applications-csp-size.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
}
