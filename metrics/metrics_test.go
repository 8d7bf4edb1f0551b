package metrics

import (
	"math"
	"testing"

	"github.com/allot-dev/allot/proc"
)

func TestDescribe(t *testing.T) {
	xs := make([]proc.Time, 100)
	for i := range xs {
		xs[i] = proc.Time(100 - i) // 100..1, unsorted
	}
	s := Describe(xs)
	if s.Mean != 50.5 || s.P50 != 50 || s.P99 != 99 || s.Max != 100 {
		t.Fatalf("got %+v", s)
	}
	if (Describe(nil) != Stats{}) {
		t.Fatal("empty sample should describe as zero")
	}
}

func TestJain(t *testing.T) {
	for _, c := range []struct {
		xs   []int64
		want float64
	}{
		{[]int64{5, 5, 5, 5}, 1},
		{[]int64{4, 0, 0, 0}, 0.25},
		{[]int64{1, 3}, 16.0 / 20},
	} {
		if got := Jain(c.xs); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Jain(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

func TestRecorderConcurrencyAndResponse(t *testing.T) {
	var r Recorder
	ev := func(t proc.Time, k proc.EventKind, p proc.ID) { r.Event(proc.Event{Time: t, Kind: k, P: p}) }
	ev(0, proc.EvRequest, 0)
	ev(0, proc.EvRequest, 1)
	ev(10, proc.EvEnter, 0) // response 10
	ev(20, proc.EvEnter, 1) // response 20; two inside from 20
	ev(30, proc.EvExit, 0)
	ev(40, proc.EvExit, 1)
	s := r.Summary(40)
	// inside: 1 on [10,20), 2 on [20,30), 1 on [30,40): area 40 over 40 ticks.
	if s.Concurrency != 1 {
		t.Errorf("concurrency %v, want 1", s.Concurrency)
	}
	if s.Response.Mean != 15 || s.Response.Max != 20 || s.Served != 2 {
		t.Errorf("response %+v served %d", s.Response, s.Served)
	}
}

func TestFairnessCountsOnlyRealProcesses(t *testing.T) {
	var r Recorder
	// Five processes served equally, in id order, so that the per-process
	// table grows one entry at a time.
	for _, p := range []proc.ID{0, 1, 2, 3, 4, 0, 1, 2, 3, 4} {
		r.Event(proc.Event{Kind: proc.EvRequest, P: p})
		r.Event(proc.Event{Kind: proc.EvEnter, P: p})
		r.Event(proc.Event{Kind: proc.EvExit, P: p})
	}
	if f := r.Summary(10).Fairness; f != 1 {
		t.Fatalf("five processes served twice each: fairness %v, want 1", f)
	}
}
