package sim_test

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

func TestSpeedsDuration(t *testing.T) {
	tests := []struct {
		name   string
		s      sim.Speeds
		p      proc.ID
		now, d proc.Time
		want   proc.Time
	}{
		{"min", sim.Speeds{Pattern: "min", Min: 1, Max: 3}, 0, 7, 10, 10},
		{"max", sim.Speeds{Pattern: "max", Min: 1, Max: 3}, 0, 7, 10, 30},
		{"extremes even", sim.Speeds{Pattern: "extremes", Min: 2, Max: 3}, 4, 0, 10, 20},
		{"extremes odd", sim.Speeds{Pattern: "extremes", Min: 2, Max: 3}, 5, 0, 10, 30},
		// 10 ticks at factor 1 give 10 local ticks, the other 5 take 10.
		{"alternate crosses a period", sim.Speeds{Pattern: "alternate", Min: 1, Max: 2, Period: 10}, 0, 0, 15, 20},
		{"alternate odd starts slow", sim.Speeds{Pattern: "alternate", Min: 1, Max: 2, Period: 10}, 1, 0, 5, 10},
		{"adversary granter slow", sim.Speeds{Pattern: "adversary", Min: 1, Max: 4, Users: 3}, 3, 0, 5, 20},
		{"adversary user alternates", sim.Speeds{Pattern: "adversary", Min: 1, Max: 4, Users: 3, Period: 10}, 0, 0, 5, 5},
		// [5, 10) at factor 100 gives 0.05 local ticks; 4.95 remain.
		{"untame interval", sim.Speeds{Pattern: "min", Min: 1, Max: 1, Untame: []sim.Untame{{From: 5, To: 10, P: proc.None, Factor: 100}}}, 0, 0, 10, 15},
		{"untame other process", sim.Speeds{Pattern: "min", Min: 1, Max: 1, Untame: []sim.Untame{{From: 5, To: 10, P: 3, Factor: 100}}}, 0, 0, 10, 10},
		{"untame fast", sim.Speeds{Pattern: "min", Min: 1, Max: 1, Untame: []sim.Untame{{From: 0, To: 100, P: proc.None, Factor: 0.1}}}, 0, 0, 10, 1},
		{"zero", sim.Speeds{Pattern: "max", Min: 1, Max: 3}, 0, 7, 0, 0},
	}
	for _, tc := range tests {
		if got := tc.s.Duration(tc.p, tc.now, tc.d); got != tc.want {
			t.Errorf("%s: Duration = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestSpeedsWalk(t *testing.T) {
	a := &sim.Speeds{Pattern: "walk", Min: 1, Max: 3, Period: 5, Seed: 9}
	b := &sim.Speeds{Pattern: "walk", Min: 1, Max: 3, Period: 5, Seed: 9}
	var first []proc.Time
	distinct := map[proc.Time]bool{}
	for now := proc.Time(0); now < 5000; now += 7 {
		d := a.Duration(2, now, 10)
		if d < 10 || d > 30 {
			t.Fatalf("walk: 10 local ticks took %d ticks, outside [10, 30]", d)
		}
		distinct[d] = true
		first = append(first, d)
	}
	if len(distinct) < 5 {
		t.Errorf("walk took only %d distinct durations: not walking", len(distinct))
	}
	// Going back in time (another timer armed earlier) recomputes the same
	// values, and a second schedule with the same seed agrees.
	for i, now := 0, proc.Time(0); now < 5000; i, now = i+1, now+7 {
		if got := a.Duration(2, now, 10); got != first[i] {
			t.Fatalf("walk at %d: %d then %d", now, first[i], got)
		}
		if got := b.Duration(2, now, 10); got != first[i] {
			t.Fatalf("walk with the same seed at %d: %d, want %d", now, got, first[i])
		}
	}
}

func TestSpeedsTameAndParse(t *testing.T) {
	s := &sim.Speeds{Pattern: "min", Min: 1, Max: 2, Untame: []sim.Untame{{From: 100, To: 200, P: 4, Factor: 50}}}
	if !s.Tame(4, 0, 99) || s.Tame(4, 50, 100) || s.Tame(4, 199, 300) || !s.Tame(4, 200, 300) || !s.Tame(3, 0, 1000) {
		t.Error("Tame misreads the untame interval [100, 200) of process 4")
	}
	if got, err := sim.ParseSpeeds("walk:1:3:50"); err != nil || got.Pattern != "walk" || got.Max != 3 || got.Period != 50 || got.Ratio() != 3 {
		t.Errorf("ParseSpeeds(walk:1:3:50) = %+v, %v", got, err)
	}
	for _, bad := range []string{"walk", "fast:1:2", "min:0:1", "min:2:1", "min:1:x", "alternate:1:2:0"} {
		if _, err := sim.ParseSpeeds(bad); err == nil || !strings.Contains(err.Error(), "bad speeds") {
			t.Errorf("ParseSpeeds(%q): error %v", bad, err)
		}
	}
}
