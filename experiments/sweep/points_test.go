package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// noisy is a replicate whose spread depends on the point: the stopping
// rule must run the noisy points longer.
func noisy(i, rep int) (float64, error) {
	r := rand.New(rand.NewPCG(Seed(9, uint64(i), uint64(rep)), 0))
	return 100 + float64(i)*r.NormFloat64()*10, nil
}

func precise(_ int, reps []float64) bool { return Precise(0.05, reps) }

var keys = []string{"a", "b", "c", "d", "e"}

func TestRepeatStoppingRule(t *testing.T) {
	rule := Rule{Min: 4, Batch: 4, Max: 64}
	out, err := Repeat(context.Background(), nil, "s", keys, rule, noisy, precise)
	if err != nil {
		t.Fatal(err)
	}
	for i, reps := range out {
		n := len(reps)
		if n < rule.Min || n > rule.Max || (n-rule.Min)%rule.Batch != 0 && n != rule.Max {
			t.Errorf("point %d: %d replicates under %+v", i, n, rule)
		}
		// Stopped at the first batch boundary where the rule held, or at
		// the cap.
		for m := rule.Min; m < n; m += rule.Batch {
			if Precise(0.05, reps[:m]) {
				t.Errorf("point %d: precise after %d, ran %d", i, m, n)
			}
		}
		if n < rule.Max && !Precise(0.05, reps) {
			t.Errorf("point %d stopped at %d without precision", i, n)
		}
	}
	if len(out[0]) != rule.Min || len(out[4]) <= rule.Min {
		t.Errorf("replicates %d (no noise) and %d (most noise)", len(out[0]), len(out[4]))
	}
}

// N shards, merged, give the results of one unsharded run, and the
// progress total grows with the stopping rule.
func TestShardsMergeToTheWhole(t *testing.T) {
	rule := Rule{Min: 3, Batch: 2, Max: 40}
	whole := &Points{}
	want, err := Repeat(context.Background(), whole, "s", keys, rule, noisy, precise)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 3, 7} {
		merged := map[string]json.RawMessage{}
		for i := 0; i < n; i++ {
			p := &Points{Shard: Shard{i, n}}
			_, err := Repeat(context.Background(), p, "s", keys, rule, noisy, precise)
			if n > 1 && !errors.Is(err, ErrPartial) || n == 1 && err != nil {
				t.Fatalf("shard %d/%d: %v", i, n, err)
			}
			for k, v := range p.Results() {
				if _, dup := merged[k]; dup {
					t.Fatalf("%d shards: %s in two shards", n, k)
				}
				merged[k] = v
			}
		}
		if !reflect.DeepEqual(merged, whole.Results()) {
			t.Errorf("%d shards: results differ", n)
		}
		got, err := Repeat(context.Background(), &Points{Merged: merged}, "s", keys, rule, noisy, precise)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%d shards merged: %v, %v", n, got, err)
		}
	}
	delete(whole.Results(), "s/c")
	if _, err := Repeat(context.Background(), &Points{Merged: whole.Results()}, "s", keys, rule, noisy, precise); err == nil {
		t.Error("a merge with a missing point succeeded")
	}
}

func TestRepeatProgressAndErrors(t *testing.T) {
	last, total := 0, 0
	p := &Points{Progress: func(stage string, d, tot int) {
		if stage != "s" || d != last+1 || tot < total {
			t.Errorf("progress %s %d/%d after %d/%d", stage, d, tot, last, total)
		}
		last, total = d, tot
	}}
	out, err := Repeat(context.Background(), p, "s", keys, Rule{Min: 2, Batch: 3, Max: 30}, noisy, precise)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range out {
		n += len(r)
	}
	if last != n || total != n {
		t.Errorf("progress ended at %d/%d, ran %d", last, total, n)
	}
	_, err = Each(context.Background(), nil, "e", keys, func(i int) (int, error) {
		if i == 3 {
			return 0, fmt.Errorf("boom")
		}
		return i, nil
	})
	if err == nil || err.Error() != "boom" {
		t.Errorf("error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Each(ctx, nil, "e", keys, func(i int) (int, error) { return i, nil }); err == nil {
		t.Error("a cancelled stage returned no error")
	}
}
