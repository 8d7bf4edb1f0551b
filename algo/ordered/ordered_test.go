package ordered_test

import (
	"slices"
	"testing"

	"github.com/allot-dev/allot/algo/ordered"
	"github.com/allot-dev/allot/conformance"
	"github.com/allot-dev/allot/proc"
)

func TestGolden(t *testing.T) { conformance.Golden(t, ordered.Algorithm, "testdata/golden") }

// TestLockQueuesAnOvertakingAcq drives one lock by hand: a holder's next
// acq that overtakes its rel is queued behind the users already waiting,
// and the lock passes in arrival order.
func TestLockQueuesAnOvertakingAcq(t *testing.T) {
	var l ordered.Lock
	env := &recorder{}
	l.Deliver(env, 0, ordered.Acq{})
	l.Deliver(env, 1, ordered.Acq{})
	l.Deliver(env, 0, ordered.Acq{}) // user 0's next request, ahead of its rel
	if !slices.Equal(env.grants, []proc.ID{0}) {
		t.Fatalf("grants %v, want [0]", env.grants)
	}
	l.Deliver(env, 0, ordered.Rel{})
	l.Deliver(env, 1, ordered.Rel{})
	if !slices.Equal(env.grants, []proc.ID{0, 1, 0}) {
		t.Fatalf("grants %v, want [0 1 0]: arrival order", env.grants)
	}
}

// TestUserWalksInIncreasingOrder: a request named out of order is taken
// lowest id first, one lock at a time, and entered only when all are held.
func TestUserWalksInIncreasingOrder(t *testing.T) {
	ps, err := ordered.Build(problem(1, 10))
	if err != nil {
		t.Fatal(err)
	}
	u := ps[0].(proc.Allocator)
	env := &recorder{}
	u.Request(env, proc.Request{Res: []proc.ResID{7, 2, 5}})
	for _, want := range []proc.ID{1 + 2, 1 + 5, 1 + 7} {
		if len(env.acqs) == 0 || env.acqs[len(env.acqs)-1] != want {
			t.Fatalf("acqs %v, want the last to be lock %d", env.acqs, want)
		}
		if env.entered {
			t.Fatalf("entered before lock %d", want)
		}
		u.Deliver(env, want, ordered.Granted{})
	}
	if !env.entered || len(env.acqs) != 3 {
		t.Fatalf("entered %v after acqs %v", env.entered, env.acqs)
	}
}

type recorder struct {
	proc.Env
	grants  []proc.ID
	acqs    []proc.ID
	entered bool
}

func (r *recorder) Send(to proc.ID, m proc.Message) {
	switch m.(type) {
	case ordered.Granted:
		r.grants = append(r.grants, to)
	case ordered.Acq:
		r.acqs = append(r.acqs, to)
	}
}

func (r *recorder) Emit(e proc.Event) { r.entered = r.entered || e.Kind == proc.EvEnter }

// TestAnyOrderCaught: the conformance suite finds the deadlock of ordered
// locking without its order (the explorer's shortest one is in
// explore.TestBrokenVariants).
func TestAnyOrderCaught(t *testing.T) {
	fails := conformance.Check(ordered.AnyOrder, conformance.Cases(1))
	if len(fails) == 0 {
		t.Fatal("the suite did not notice locks taken in any order")
	}
	t.Logf("%d failing cases, first: %v", len(fails), fails[0])
}
