package bidding

import (
	"context"
	"github.com/allot-dev/allot/experiments/study"
	_ "github.com/allot-dev/allot/report/svg" // draws the figures these tests check
	"os"
	"path/filepath"
	"testing"
)

func TestBiddingQuick(t *testing.T) {
	dir := t.TempDir()
	claims, err := Experiment().Run(context.Background(), study.Options{Quick: true, Seed: 1, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(claims) < 12 {
		t.Errorf("%d claims, want at least 12", len(claims))
	}
	for _, c := range claims {
		t.Logf("%s %v: %s", c.ID, c.Pass, c.Measured)
		if !c.Pass {
			t.Errorf("claim %s failed: %s", c.ID, c.Measured)
		}
	}
	for _, f := range []string{"bidding-kv.svg", "bidding-success.svg", "bidding-epsilon.svg", "bidding-matrix.svg", "bidding-ring.svg", "bidding-priority.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
}
