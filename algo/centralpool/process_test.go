package centralpool_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/centralpool"
	"github.com/allot-dev/allot/proc"
)

// TestProcessIsBuild: Process makes each process of a run as Build does,
// refuses the ids past the run, and the comparison rejects a process of
// another place in the run.
func TestProcessIsBuild(t *testing.T) {
	pb := &algo.Problem{Kind: algo.Pool, Users: 4, Units: 3}
	all, err := centralpool.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range all {
		got, err := centralpool.Algorithm.Process(pb, proc.ID(id))
		if err != nil {
			t.Fatalf("process %d: %v", id, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("process %d: Process made %#v, Build %#v", id, got, want)
		}
	}
	for _, id := range []proc.ID{-1, proc.ID(len(all))} {
		if _, err := centralpool.Algorithm.Process(pb, id); err == nil {
			t.Errorf("Process made process %d of a run of %d", id, len(all))
		}
	}
	if u, _ := centralpool.Algorithm.Process(pb, 0); reflect.DeepEqual(u, all[pb.Users]) {
		t.Fatal("a user compared equal to the owner")
	}
	for _, units := range []int{0, math.MaxInt32 + 1} {
		if _, err := centralpool.Algorithm.Process(&algo.Problem{Kind: algo.Pool, Users: 4, Units: units}, 0); err == nil {
			t.Errorf("a run of %d units was made", units)
		}
	}
}

// env records what the owner sends.
type env struct {
	proc.Env
	sent []centralpool.Grant
}

func (e *env) Send(_ proc.ID, m proc.Message) { e.sent = append(e.sent, m.(centralpool.Grant)) }
func (e *env) Emit(proc.Event)                {}

// TestOwnerOrder: the owner of the most units there can be starts at once
// (its memory is the units in use, not R) and hands out the units in the
// order of the list 0..R-1 with the ones given back after them: every
// unit once, then the given back oldest first.
func TestOwnerOrder(t *testing.T) {
	const units = 3
	for _, r := range []int{units, math.MaxInt32} {
		o := centralpool.NewOwner(r)
		e := &env{}
		for u := range units {
			o.Deliver(e, proc.ID(u), centralpool.Acquire{})
		}
		o.Deliver(e, 0, centralpool.Give{Unit: 0})
		o.Deliver(e, 9, centralpool.Acquire{})
		o.Deliver(e, 1, centralpool.Give{Unit: 1})
		o.Deliver(e, 10, centralpool.Acquire{})
		want := []centralpool.Grant{{Unit: 0}, {Unit: 1}, {Unit: 2}, {Unit: 0}, {Unit: 1}}
		if r > units {
			want = []centralpool.Grant{{Unit: 0}, {Unit: 1}, {Unit: 2}, {Unit: 3}, {Unit: 4}}
		}
		if !reflect.DeepEqual(e.sent, want) {
			t.Errorf("R = %d: granted %v, want %v", r, e.sent, want)
		}
	}
}
