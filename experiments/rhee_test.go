package experiments

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRheeQuick(t *testing.T) {
	dir := t.TempDir()
	claims, err := Rhee().Run(context.Background(), Options{Quick: true, Seed: 1, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"rhee/cm-slowest", "rhee/modular-beats-cm", "rhee/modular-beats-cs", "rhee/cs-best-low",
		"rhee/cs-steeper", "rhee/advantage-grows", "rhee/messages", "rhee/precision"}
	if len(claims) != len(want) {
		t.Fatalf("%d claims, want %d", len(claims), len(want))
	}
	for i, c := range claims {
		if c.ID != want[i] || c.Paper == "" || c.Claim == "" || c.Measured == "" {
			t.Errorf("claim %d: %+v", i, c)
		}
		t.Logf("%s pass=%v: %s", c.ID, c.Pass, c.Measured)
	}
	for _, f := range []string{"rhee-response-S25.svg", "rhee-response-S100.svg", "rhee-messages-S100.svg", "rhee.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".svg") && !strings.Contains(string(b), "<svg") {
			t.Errorf("%s is not an SVG", f)
		}
	}
}

// TestRheeDeterministic: same seed, same claims.
func TestRheeDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick study twice")
	}
	a, err := Rhee().Run(context.Background(), Options{Quick: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Rhee().Run(context.Background(), Options{Quick: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("claim %d differs:\n%+v\n%+v", i, a[i], b[i])
		}
	}
}

func TestRheeMeanCI(t *testing.T) {
	m, h := rheeMeanCI([]float64{1, 2, 3, 4})
	// sd = 1.291, t(3) = 3.182: half = 3.182·1.291/2 = 2.054
	if m != 2.5 || math.Abs(h-2.054) > 0.001 {
		t.Fatalf("got %v ± %v", m, h)
	}
	if _, h := rheeMeanCI([]float64{5}); !math.IsInf(h, 1) {
		t.Fatalf("one sample: half-width %v, want +Inf", h)
	}
	if math.Abs(rheeT95(31)-2.040) > 0.01 || math.Abs(rheeT95(1000)-1.962) > 0.002 {
		t.Fatalf("t quantiles off: %v %v", rheeT95(31), rheeT95(1000))
	}
}
