package users

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// step is one input to a Lazy and what it must answer: ask (a request,
// a regrant with regrant) wants verdict and, for Make, id; keep wants
// kept (and drops the user if not).
type step struct {
	op      string // ask, made, given, returned, unclaim, keep
	regrant bool
	id      proc.ID // given, returned; ask: the id of a Make
	verdict Verdict // ask
	kept    bool    // keep
}

func ask(v Verdict, id proc.ID) step { return step{op: "ask", verdict: v, id: id} }
func regrant(v Verdict, id proc.ID) step {
	return step{op: "ask", regrant: true, verdict: v, id: id}
}
func made() step               { return step{op: "made"} }
func given(id proc.ID) step    { return step{op: "given", id: id} }
func returned(id proc.ID) step { return step{op: "returned", id: id} }
func unclaim() step            { return step{op: "unclaim"} }
func keep(ok bool) step        { return step{op: "keep", kept: ok} }

func TestLazy(t *testing.T) {
	for _, c := range []struct {
		name               string
		rank, n, most      int
		limit              proc.ID
		steps              []step
		wantMade, wantBack int
	}{
		{name: "no limit: the node's ids, rank + N·k", rank: 1, n: 3,
			steps:    []step{ask(Make, 1), made(), ask(Make, 4), made(), ask(Make, 7), made(), keep(true)},
			wantMade: 3},
		{name: "a user not made is asked again", rank: 2, n: 4, most: 2,
			steps:    []step{ask(Make, 2), ask(Make, 2), made(), ask(Make, 6)},
			wantMade: 1},
		{name: "at the most a request is refused, a regrant made past it", rank: 0, n: 2, most: 2,
			steps:    []step{ask(Make, 0), made(), ask(Make, 2), made(), ask(Full, 0), regrant(Make, 4), made(), ask(Full, 0), regrant(Make, 6)},
			wantMade: 3},
		{name: "a regrant stops at the ids' limit", rank: 1, n: 2, most: 1, limit: 5,
			steps:    []step{ask(Make, 1), made(), regrant(Make, 3), made(), regrant(Full, 0), ask(Full, 0)},
			wantMade: 2},
		{name: "below the most a user given back is not claimed", rank: 0, n: 1, most: 2,
			steps:    []step{ask(Make, 0), made(), given(0), ask(Make, 1)},
			wantMade: 1, wantBack: 1},
		{name: "a user given back is claimed once", rank: 0, n: 1, most: 1,
			steps: []step{ask(Make, 0), made(), given(0), given(0), ask(Claim, 0), ask(Full, 0),
				unclaim(), ask(Claim, 0), returned(0), unclaim(), ask(Full, 0)},
			wantMade: 1},
		{name: "claims count on as many users given back", rank: 0, n: 2, most: 2,
			steps: []step{ask(Make, 0), made(), ask(Make, 2), made(), given(0), given(2), ask(Claim, 0), ask(Claim, 0), ask(Full, 0),
				returned(2), unclaim(), ask(Full, 0), unclaim(), ask(Claim, 0)},
			wantMade: 2, wantBack: 1},
		{name: "no claim on a user given back that will be dropped", rank: 0, n: 2, most: 2,
			steps: []step{ask(Make, 0), made(), ask(Make, 2), made(), regrant(Make, 4), made(), given(0), ask(Full, 0),
				given(2), ask(Claim, 0), ask(Full, 0)},
			wantMade: 3, wantBack: 2},
		{name: "a regrant past the limit claims too", rank: 0, n: 1, most: 1, limit: 1,
			steps:    []step{ask(Make, 0), made(), regrant(Full, 0), given(0), regrant(Claim, 0), unclaim()},
			wantMade: 1, wantBack: 1},
		{name: "returned: nothing for a user not given back", rank: 0, n: 1, most: 1,
			steps:    []step{ask(Make, 0), made(), returned(0), given(0), returned(7), ask(Claim, 0)},
			wantMade: 1, wantBack: 1},
		{name: "users made past the most for regrants are dropped as they go idle", rank: 0, n: 1, most: 2,
			steps: []step{ask(Make, 0), made(), ask(Make, 1), made(), regrant(Make, 2), made(), regrant(Make, 3), made(),
				keep(false), keep(false), keep(true), ask(Full, 0), keep(true)},
			wantMade: 4},
		{name: "a user dropped leaves room for one made anew", rank: 0, n: 1, most: 1,
			steps:    []step{ask(Make, 0), made(), regrant(Make, 1), made(), keep(false), ask(Full, 0), keep(true)},
			wantMade: 2},
	} {
		l := New(c.rank, c.n, c.most, c.limit)
		for i, s := range c.steps {
			at := fmt.Sprintf("%s: step %d (%s)", c.name, i, s.op)
			switch s.op {
			case "ask":
				v, id := l.Ask(s.regrant)
				if v != s.verdict || v == Make && id != s.id {
					t.Fatalf("%s, regrant %v: %v %d, want %v %d", at, s.regrant, v, id, s.verdict, s.id)
				}
			case "made":
				l.Made()
			case "given":
				l.GivenBack(s.id)
			case "returned":
				l.Returned(s.id)
			case "unclaim":
				l.Unclaim()
			case "keep":
				got := l.Keep()
				if got != s.kept {
					t.Fatalf("%s: Keep() = %v with %d alive, want %v", at, got, l.Alive(), s.kept)
				}
				if !got {
					l.Dropped()
				}
			default:
				t.Fatalf("%s: no such step", at)
			}
		}
		if l.Len() != c.wantMade || len(l.returning) != c.wantBack || l.Most() != c.most {
			t.Errorf("%s: made %d, %d on their way back, most %d; want %d, %d, %d", c.name, l.Len(), len(l.returning), l.Most(), c.wantMade, c.wantBack, c.most)
		}
	}
}

func TestVerdictString(t *testing.T) {
	for v, want := range map[Verdict]string{Make: "make", Claim: "claim", Full: "full", 0: "verdict?"} {
		if v.String() != want {
			t.Errorf("%d: %q, want %q", v, v.String(), want)
		}
	}
}

// TestMostAfterRegrants: a node at its most adopts grants past it
// (regrants); they are given back, one at a time, between new requests,
// each of which takes an idle user if there is one (the driver's first
// choice) and asks for one if not, in random orders over 500 runs: once
// every regrant's user came back, the node never has more than its most
// users busy. Counting the idle users (a user kept while fewer than the
// most were idle) failed it: a request that took an idle user before
// the next came back made room to keep that one too, and the node
// served past its most for good.
func TestMostAfterRegrants(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	for run := range 500 {
		most, extra := 1+r.IntN(4), 1+r.IntN(4)
		l := New(0, 1, most, 0)
		var busy, idle []proc.ID
		request := func(regrant bool) {
			if len(idle) > 0 {
				busy, idle = append(busy, idle[0]), idle[1:]
				l.Returned(busy[len(busy)-1])
				return
			}
			switch v, id := l.Ask(regrant); v {
			case Make:
				l.Made()
				busy = append(busy, id)
			case Claim:
				l.Unclaim() // it does not wait here
			}
		}
		giveBack := func(i int) proc.ID {
			id := busy[i]
			busy = append(busy[:i], busy[i+1:]...)
			l.GivenBack(id)
			if l.Keep() {
				idle = append(idle, id)
			} else {
				l.Dropped()
				l.Returned(id)
			}
			return id
		}
		for range most {
			request(false)
		}
		for range extra {
			request(true)
		}
		out := map[proc.ID]bool{} // the users busy at the adoption, not back yet
		for _, id := range busy {
			out[id] = true
		}
		for step := 0; step < 200; step++ {
			if len(busy) > 0 && r.IntN(2) == 0 {
				delete(out, giveBack(r.IntN(len(busy))))
			} else {
				request(false)
			}
			if len(out) == 0 && len(busy) > most {
				t.Fatalf("seed %d, run %d (most %d, %d regrants past it): %d users busy after every regrant came back", seed, run, most, extra, len(busy))
			}
		}
	}
}
