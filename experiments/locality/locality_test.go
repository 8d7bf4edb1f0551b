package locality

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/experiments/study"
	"github.com/allot-dev/allot/proc"
	_ "github.com/allot-dev/allot/report/svg" // draws the figures these tests check
)

func TestLocalityQuick(t *testing.T) {
	dir := t.TempDir()
	claims, err := Experiment().Run(context.Background(), study.Options{Quick: true, Seed: 1, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range claims {
		t.Logf("%s pass=%v: %s", c.ID, c.Pass, c.Measured)
		if !c.Pass {
			t.Errorf("claim %s fails: %s", c.ID, c.Measured)
		}
	}
}

// The worst-case claims can fail: the hygienic algorithm, run through the
// same scenario, exceeds both bounds.
func TestLocalityWorstCaseCatchesHygienic(t *testing.T) {
	sc := worstCases[3] // one-way line, crash of the top at its threshold point
	out, err := worstCase(hygienic.Algorithm, sc, 7, 6000)
	if err != nil {
		t.Fatal(err)
	}
	if out.Loc.FailureLocality <= 3 {
		t.Errorf("hygienic on %q: failure locality %d; the scenario should build a long chain", sc.name, out.Loc.FailureLocality)
	}
}

func TestLocalityDeterministic(t *testing.T) {
	o := study.Options{Quick: true, Seed: 5}
	a, err := worstClaims(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := worstClaims(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different claims:\n%v\n%v", a, b)
	}
}

// The pass rules of the overtaking and failure-model claims reject a
// deliberately wrong series.
func TestLocalityRulesReject(t *testing.T) {
	if !withTheRun(100, 390, 4) || withTheRun(6, 6.4, 4) || withTheRun(100, 150, 4) || withTheRun(0, 0, 4) {
		t.Error("withTheRun: a count keeping pace with the run must pass, a levelling one fail")
	}
	if !better(-0.46, 0.11) || better(0.1, 0.05) || better(-0.1, 0.08) {
		t.Error("better: only a difference below −2 SE passes")
	}
	if !withinLocality(2, 0, 2) || withinLocality(3, 0, 2) || withinLocality(2, 1, 2) {
		t.Error("withinLocality: a crash reaching past the bound, or an unreachable process, must fail")
	}
	ns := []int{8, 16, 32}
	if !growsWithN(ns, []float64{5, 9, 17}) || growsWithN(ns, []float64{5, 5, 17}) || growsWithN(ns, []float64{3, 4, 5}) {
		t.Error("growsWithN: a flat step, or a set far below the line's length, must fail")
	}
	if !agrees(3.1, 0.1, 3) || agrees(3.5, 0.1, 3) || agrees(2.5, 0.1, 3) {
		t.Error("agrees: a mean more than 3 SE off the formula must fail")
	}
	if !reachBounded(0, 1.3, 0.05, 1.4) || reachBounded(1, 1.3, 0.05, 1.4) || reachBounded(0, 1.6, 0.05, 1.4) {
		t.Error("reachBounded: a two-hop reach without priority, or a reach above 1 + w, must fail")
	}
}

// The overtaking count follows the centre's hungry spells from the events.
func TestOvertakes(t *testing.T) {
	o := overtakes{P: 3, Nbr: []proc.ID{0, 1, 2}, At: 50}
	for _, e := range []proc.Event{
		{Time: 1, Kind: proc.EvRequest, P: 3},
		{Time: 2, Kind: proc.EvEnter, P: 0}, {Time: 3, Kind: proc.EvEnter, P: 1},
		{Time: 4, Kind: proc.EvEnter, P: 5}, // not a neighbour
		{Time: 9, Kind: proc.EvEnter, P: 3}, // spell of 2
		{Time: 10, Kind: proc.EvRequest, P: 3},
		{Time: 11, Kind: proc.EvEnter, P: 2}, {Time: 12, Kind: proc.EvEnter, P: 0}, {Time: 20, Kind: proc.EvEnter, P: 1},
		{Time: 60, Kind: proc.EvEnter, P: 2}, // after the checkpoint: the open spell had 3
	} {
		o.Event(e)
	}
	o.close()
	if o.MaxAt != 3 || o.Max != 4 || o.Meals != 1 {
		t.Errorf("got MaxAt %d, Max %d, meals %d; want 3, 4, 1", o.MaxAt, o.Max, o.Meals)
	}
}

// Crashes are drawn in proportion to the failure likelihoods.
func TestDrawCrash(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 1))
	f := []float64{0.95, 0.02, 0.02, 0.95, 0.02}
	count := make([]int, len(f))
	const n = 20000
	for range n {
		count[drawCrash(f, rnd)]++
	}
	for u, x := range f {
		want := n * x / 1.96
		if sd := math.Sqrt(want); math.Abs(float64(count[u])-want) > 6*sd {
			t.Errorf("process %d crashed %d times in %d, want about %.0f", u, count[u], n, want)
		}
	}
}
