package locality

import (
	"context"
	"reflect"
	"testing"

	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/experiments/study"
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
