package ordered_test

import (
	"reflect"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/ordered"
	"github.com/allot-dev/allot/proc"
)

// TestProcessIsBuild: Process makes each process of a run as Build does
// (the same value, before it starts), refuses the ids past the run, and
// the comparison rejects a process of another place in the run.
func TestProcessIsBuild(t *testing.T) {
	pb := &algo.Problem{Kind: algo.Exclusive, Users: 5, Resources: 4}
	all, err := ordered.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range all {
		got, err := ordered.Algorithm.Process(pb, proc.ID(id))
		if err != nil {
			t.Fatalf("process %d: %v", id, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("process %d: Process made %#v, Build %#v", id, got, want)
		}
	}
	for _, id := range []proc.ID{-1, proc.ID(len(all))} {
		if _, err := ordered.Algorithm.Process(pb, id); err == nil {
			t.Errorf("Process made process %d of a run of %d", id, len(all))
		}
	}
	// The check can fail: a user is not a lock.
	if u, _ := ordered.Algorithm.Process(pb, 0); reflect.DeepEqual(u, all[pb.Users]) {
		t.Fatal("a user compared equal to a lock")
	}
	if ordered.AnyOrder.Process != nil {
		t.Fatal("the broken variant has a Process: it would serve the service's locks")
	}
}
