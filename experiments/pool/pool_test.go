package pool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-dev/allot/experiments/study"
	_ "github.com/allot-dev/allot/report/svg" // draws the figures these tests check
)

func TestQuick(t *testing.T) {
	dir := t.TempDir()
	claims, err := Experiment().Run(context.Background(), study.Options{Quick: true, Seed: 1, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(claims) != 4 {
		t.Errorf("%d claims, want 4", len(claims))
	}
	for _, c := range claims {
		t.Logf("%s %v: %s", c.ID, c.Pass, c.Measured)
		// The migration belief fails past ρ = 0.4 against the complete
		// network's distances, as a finding quoting §1 (see
		// docs/pool.md); the others must hold.
		switch {
		case c.ID == "pool/migration" && !c.Pass && !strings.Contains(c.Finding, "§1: \""):
			t.Errorf("claim %s fails without a finding quoting §1: %q", c.ID, c.Finding)
		case !c.Pass && c.ID != "pool/migration":
			t.Errorf("claim %s failed: %s", c.ID, c.Measured)
		}
	}
	for _, f := range []string{"pool-messages.svg", "pool-wait.svg", "pool-p99.svg", "pool-moves.svg", "pool-migration.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
}

// Every pass rule rejects a deliberately wrong series.
func TestRulesReject(t *testing.T) {
	if !safe(10, 0, 0) || safe(10, 1, 0) || safe(10, 0, 1) || safe(0, 0, 0) {
		t.Error("safety rule: a violation, an open request or no grant at all must fail")
	}
	bc := []float64{50, 100, 150}
	if !trafficBounded([]float64{8, 6, 5}, bc) {
		t.Error("traffic rule rejects a falling series")
	}
	if trafficBounded([]float64{8, 10, 13}, bc) { // grows ×1.63
		t.Error("traffic rule accepts a series growing past ×1.5")
	}
	if trafficBounded([]float64{100, 120, 150}, bc) { // as much as broadcast
		t.Error("traffic rule accepts a series not below broadcast")
	}
	if got := waitAbove([]float64{100, 900, 1000}, 936); len(got) != 1 || got[0] != 2 {
		t.Errorf("waiting rule: loads above B = %v, want [2]", got)
	}
	if !unbounded([]float64{10, 30, 79}) || unbounded([]float64{8, 10, 11}) {
		t.Error("hash-pool's rule: traffic growing ×7.9 must count as unbounded, ×1.4 not")
	}
	// R-RESOURCES' p99 twice hash-pool's at one load from ρ = 0.99 up fails;
	// a load below the judged range does not count.
	if got := notBelowFrom([]float64{9000, 300, 800, 14000}, []float64{100, 400, 7000, 7000}, 1); len(got) != 1 || got[0] != 3 {
		t.Errorf("waiting contrast: loads not below hash-pool = %v, want [3]", got)
	}
	if got := notBelow([]float64{0.05, 0.3, 0.01}, []float64{1.4, 0.3, 0.04}); len(got) != 1 || got[0] != 1 {
		t.Errorf("migration rule: loads not below broadcast = %v, want [1]", got)
	}
}

// The migration claim judges excess moves from the event stream: a pool
// that moved every unit twice as far as needed would fail it. Doubling
// R-RESOURCES' moves in a real run makes its excess exceed broadcast's.
func TestMigrationCatchesWastefulPool(t *testing.T) {
	const requests = 3000
	var pool, bc run
	for _, j := range jobs(1) {
		if j.load != 0 || j.shape != 0 {
			continue
		}
		switch algos[j.a].Name {
		case "pool":
			pool = measure(j, 1, requests)
		case "broadcast-pool":
			bc = measure(j, 1, requests)
		}
	}
	if pool.Err != "" || bc.Err != "" || pool.Grants == 0 {
		t.Fatalf("runs: %q %q", pool.Err, bc.Err)
	}
	if len(notBelow([]float64{excess(pool)}, []float64{excess(bc)})) != 0 {
		t.Fatalf("R-RESOURCES' excess %.3f not below broadcast's %.3f", excess(pool), excess(bc))
	}
	// Every move twice: the unit went there and back once more.
	wasteful := float64(2*pool.Pool.Moves)/float64(pool.Grants) - (pool.Pool.MovesPer - pool.Pool.Excess)
	if len(notBelow([]float64{wasteful}, []float64{excess(bc)})) == 0 {
		t.Errorf("a pool moving each unit twice (excess %.3f) passes against broadcast's %.3f", wasteful, excess(bc))
	}
}
