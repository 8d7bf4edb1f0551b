package users

import (
	"fmt"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// step is one input to a Lazy and what it must answer: ask (a request,
// a regrant with regrant) wants verdict and, for Make, id; keep wants
// kept for idle users idle.
type step struct {
	op      string // ask, made, given, returned, unclaim, keep
	regrant bool
	id      proc.ID // given, returned; ask: the id of a Make
	idle    int     // keep
	verdict Verdict // ask
	kept    bool    // keep
}

func ask(v Verdict, id proc.ID) step { return step{op: "ask", verdict: v, id: id} }
func regrant(v Verdict, id proc.ID) step {
	return step{op: "ask", regrant: true, verdict: v, id: id}
}
func made() step                  { return step{op: "made"} }
func given(id proc.ID) step       { return step{op: "given", id: id} }
func returned(id proc.ID) step    { return step{op: "returned", id: id} }
func unclaim() step               { return step{op: "unclaim"} }
func keep(idle int, ok bool) step { return step{op: "keep", idle: idle, kept: ok} }

func TestLazy(t *testing.T) {
	for _, c := range []struct {
		name               string
		rank, n, most      int
		limit              proc.ID
		steps              []step
		wantMade, wantBack int
	}{
		{name: "no limit: the node's ids, rank + N·k", rank: 1, n: 3,
			steps:    []step{ask(Make, 1), made(), ask(Make, 4), made(), ask(Make, 7), made(), keep(1000, true)},
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
			steps: []step{ask(Make, 0), made(), ask(Make, 2), made(), given(0), given(2), ask(Claim, 0), regrant(Make, 4), made(), ask(Claim, 0), ask(Full, 0),
				returned(2), unclaim(), ask(Full, 0), unclaim(), ask(Claim, 0)},
			wantMade: 3, wantBack: 1},
		{name: "a regrant past the limit claims too", rank: 0, n: 1, most: 1, limit: 1,
			steps:    []step{ask(Make, 0), made(), regrant(Full, 0), given(0), regrant(Claim, 0), unclaim()},
			wantMade: 1, wantBack: 1},
		{name: "returned: nothing for a user not given back", rank: 0, n: 1, most: 1,
			steps:    []step{ask(Make, 0), made(), returned(0), given(0), returned(7), ask(Claim, 0)},
			wantMade: 1, wantBack: 1},
		{name: "at most the most idle are kept", rank: 0, n: 1, most: 2,
			steps: []step{keep(0, true), keep(1, true), keep(2, false), keep(3, false)}},
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
				if got := l.Keep(s.idle); got != s.kept {
					t.Fatalf("%s: Keep(%d) = %v, want %v", at, s.idle, got, s.kept)
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
