package rhee

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-dev/allot/experiments/study"
)

func TestQuick(t *testing.T) {
	dir := t.TempDir()
	claims, err := Experiment().Run(context.Background(), study.Options{Quick: true, Seed: 1, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"rhee/cs-best-low", "rhee/cm-worst", "rhee/modular-beats-cm", "rhee/modular-beats-cs",
		"rhee/cs-steeper", "rhee/advantage-grows", "rhee/messages", "rhee/precision"}
	if len(claims) != len(want) {
		t.Fatalf("%d claims, want %d", len(claims), len(want))
	}
	for i, c := range claims {
		if c.ID != want[i] || c.Paper == "" || c.Claim == "" || c.Measured == "" {
			t.Errorf("claim %d: %+v", i, c)
		}
		t.Logf("%s pass=%v: %s", c.ID, c.Pass, c.Measured)
		// The quick configuration is too small for the 5 % rule; CM is
		// not the slowest at about 5 conflicting users (the modular
		// floor), as in the full study. The other claims hold here too.
		if c.ID != "rhee/precision" && c.ID != "rhee/cm-worst" && !c.Pass {
			t.Errorf("claim %s fails: %s", c.ID, c.Measured)
		}
	}
	for _, f := range []string{"rhee-response-per-resource-S25.svg", "rhee-response-per-resource-S100.svg",
		"rhee-messages-per-resource-S100.svg", "rhee-response-fixed-size-S100.svg", "rhee.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		switch {
		case strings.HasSuffix(f, ".csv"):
			for _, row := range []string{"\nCM,hygienic,per-resource,", "\nCMR,modular-hygienic,", "\nCM-drinking,drinking-hygienic,", "\nCSR,modular-doorway,fixed-size,"} {
				if !strings.Contains(s, row) {
					t.Errorf("rhee.csv has no %q rows", strings.TrimSpace(row))
				}
			}
		case !strings.Contains(s, "<svg") || !strings.Contains(s, "sets") ||
			strings.Contains(f, "per-resource") && !strings.Contains(s, "stroke-dasharray:5"):
			t.Errorf("%s: not an SVG with dashed reference series and the set model in its title", f)
		}
	}
}

// The per-resource model draws every resource with the same probability;
// pFor places the x points near their targets.
func TestPerResourceSets(t *testing.T) {
	c := full()
	for _, x := range []float64{1, 10, 50} {
		var deg, size float64
		const graphs = 20
		for g := 0; g < graphs; g++ {
			pb, _, err := perResource.draw(c.users, c.resources, pFor(x, c.users, c.resources), newRand(uint64(g)))
			if err != nil {
				t.Fatal(err)
			}
			deg += 2 * float64(pb.Conflict.M()) / float64(pb.Users) / graphs
			for _, s := range pb.MaxSets {
				if len(s) == 0 {
					t.Fatal("an empty set")
				}
				size += float64(len(s)) / float64(pb.Users) / graphs
			}
		}
		if deg < 0.8*x || deg > 1.2*x+0.5 {
			t.Errorf("target x=%v: average degree %.2f", x, deg)
		}
		t.Logf("x=%v: degree %.2f, set size %.2f", x, deg, size)
	}
}

// synth builds measurements shaped like the paper's figures: CS fastest at
// low contention, the modular algorithms over a floor, CM slowest once the
// curves separate, CS steepest.
func synth() *stats {
	c := full()
	run := algos[:4]
	st := &stats{c: c, run: run, cells: map[point]cell{}}
	st.x = [2][]float64{c.xs, {1, 4, 15, 32}}
	resp := func(a string, x, S float64) float64 {
		switch a {
		case "CM":
			return 40 + 60*x*(1+S/25)
		case "CS":
			return 30 + 1.5*x*x*(1+S/50)
		case "CMR":
			return 600 + 30*x*(1+S/100)
		}
		return 620 + 29*x*(1+S/100)
	}
	msgs := map[string]float64{"CM": 10, "CS": 12, "CMR": 40, "CSR": 44}
	for ai, a := range run {
		for _, m := range []setModel{perResource, fixedSize} {
			for _, s := range st.services(m) {
				for xi, x := range st.x[m] {
					r := resp(a.short, x, float64(s))
					st.cells[point{ai, m, xi, s}] = cell{resp: [2]float64{r, r / 50}, msgs: [2]float64{msgs[a.short], 0.1},
						layer: 30, decAdv: 20, size: 2, graphs: 8, precise: true}
				}
			}
		}
	}
	return st
}

// TestClaimsLogic: paper-shaped data pass every claim; each claim fails
// on data that contradicts it; a missing algorithm fails the claims that
// need it and says so.
func TestClaimsLogic(t *testing.T) {
	for _, c := range synth().claims(nil) {
		if !c.Pass {
			t.Errorf("paper-shaped data: %s fails: %s", c.ID, c.Measured)
		}
	}
	scale := func(st *stats, a string, f func(x float64, s int) float64) {
		ai := st.alg(a)
		for p, c := range st.cells {
			if p.alg == ai {
				c.resp[0] *= f(st.x[p.model][p.xi], p.s)
				st.cells[p] = c
			}
		}
	}
	for _, tc := range []struct {
		claim  string
		break_ func(st *stats)
	}{
		{"rhee/cs-best-low", func(st *stats) { scale(st, "CS", func(x float64, _ int) float64 { return 10 }) }},
		{"rhee/cm-worst", func(st *stats) { scale(st, "CM", func(x float64, _ int) float64 { return 0.3 }) }},
		{"rhee/modular-beats-cm", func(st *stats) { scale(st, "CMR", func(x float64, _ int) float64 { return 20 }) }},
		{"rhee/modular-beats-cs", func(st *stats) { scale(st, "CS", func(x float64, _ int) float64 { return 0.2 }) }},
		{"rhee/cs-steeper", func(st *stats) { scale(st, "CMR", func(x float64, _ int) float64 { return x * x }) }},
		{"rhee/advantage-grows", func(st *stats) { scale(st, "CMR", func(_ float64, s int) float64 { return float64(s) / 20 }) }},
		{"rhee/messages", func(st *stats) {
			ai := st.alg("CMR")
			for p, c := range st.cells {
				if p.alg == ai {
					c.msgs[0] = 5
					st.cells[p] = c
				}
			}
		}},
		{"rhee/precision", func(st *stats) {
			for p, c := range st.cells {
				c.precise = false
				st.cells[p] = c
			}
		}},
	} {
		st := synth()
		tc.break_(st)
		for _, c := range st.claims(nil) {
			if c.ID == tc.claim && c.Pass {
				t.Errorf("broken data: %s passes: %s", c.ID, c.Measured)
			}
		}
	}
	st := synth()
	st.run = append([]series{}, st.run...)
	st.run[1].short = "gone"
	for _, c := range st.claims([]string{"CS (doorway)"}) {
		if (c.ID == "rhee/cs-best-low" || c.ID == "rhee/modular-beats-cs") && c.Pass {
			t.Errorf("without CS: %s passes", c.ID)
		}
		if !strings.Contains(c.Measured, "not in this build") {
			t.Errorf("without CS: %s does not name the gap: %s", c.ID, c.Measured)
		}
	}
}
