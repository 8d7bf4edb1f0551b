package session

import (
	"slices"
	"testing"
)

// testGrant is a driver's grant: a GrantLife and what the driver asks.
type testGrant struct {
	GrantLife
	request string
}

// TestGrantLife: each transition from each state. An answer is refused
// only to a lost grant; a release is first once; only a waiting grant
// is lost; only an answered one is held.
func TestGrantLife(t *testing.T) {
	states := []GrantState{Waiting, Answered, Released, Lost}
	for _, c := range []struct {
		name string
		move func(*GrantLife) bool // reports what the transition returns (true where it returns nothing)
		// after and ok: the state and the result from each of states.
		after []GrantState
		ok    []bool
	}{
		{"answer", (*GrantLife).Answer, []GrantState{Answered, Answered, Released, Lost}, []bool{true, true, true, false}},
		{"release", (*GrantLife).Release, []GrantState{Released, Released, Released, Released}, []bool{true, true, false, true}},
		{"lose", func(l *GrantLife) bool { l.Lose(); return true }, []GrantState{Lost, Answered, Released, Lost}, []bool{true, true, true, true}},
	} {
		for i, from := range states {
			l := GrantLife{ID: 1, State: from}
			if ok := c.move(&l); l.State != c.after[i] || ok != c.ok[i] {
				t.Errorf("%s from %v: %v, %v; want %v, %v", c.name, from, l.State, ok, c.after[i], c.ok[i])
			}
		}
	}
	for _, s := range states {
		if l := (GrantLife{State: s}); l.Held() != (s == Answered) {
			t.Errorf("%v held: %v", s, l.Held())
		}
	}
	if (GrantLife{}).State != Waiting || GrantState(9).String() != "GrantState(9)" {
		t.Errorf("the zero GrantLife is %v (want waiting); state 9 says %q", GrantLife{}.State, GrantState(9))
	}
}

// TestGrants: a session's grants by id, listed in id order, the held
// ones recorded; dropped and looked up by id; ended once: the held ones
// to give back, the waiting ones lost, none added after.
func TestGrants(t *testing.T) {
	var gs Grants[*testGrant]
	if gs.Len() != 0 || len(gs.List()) != 0 || gs.Get(1) != nil {
		t.Fatal("the zero Grants holds grants")
	}
	a := &testGrant{GrantLife{ID: 3, Call: 1}, "lock a"}
	b := &testGrant{GrantLife{ID: 1, Call: 2}, "lock b"}
	c := &testGrant{GrantLife{ID: 2}, "lock c"}
	for _, g := range []*testGrant{a, b, c} {
		if !gs.Add(g) {
			t.Fatalf("an open session refused grant %d", g.ID)
		}
	}
	a.Answer()
	c.Answer()
	if got := gs.List(); !slices.Equal(got, []*testGrant{b, c, a}) {
		t.Fatalf("listed %v, want ids 1 2 3", got)
	}
	if got := gs.Held(); !slices.Equal(got, []*testGrant{c, a}) {
		t.Fatalf("held %v, want ids 2 3", got)
	}
	if gs.Get(2) != c || gs.Get(4) != nil {
		t.Fatal("Get: not the grant of the id")
	}
	gs.Drop(2)
	gs.Drop(4)
	if gs.Len() != 2 || gs.Get(2) != nil || c.State != Answered {
		t.Fatalf("dropped 2: %d grants, 2 is %v (%v); want 2 grants, none, still answered (its giving back is the driver's)", gs.Len(), gs.Get(2), c.State)
	}
	held, lost := gs.End()
	if !slices.Equal(held, []*testGrant{a}) || !slices.Equal(lost, []*testGrant{b}) || b.State != Lost || a.State != Answered {
		t.Fatalf("ended: held %v, lost %v; want [3], [1] lost, 3 answered", held, lost)
	}
	if gs.Len() != 0 || gs.Add(c) || gs.Get(2) != nil {
		t.Fatal("an ended session holds or takes grants")
	}
	if held, lost := gs.End(); len(held)+len(lost) != 0 {
		t.Fatalf("ended twice: held %v, lost %v", held, lost)
	}
}

// TestAsked: a request number finds the grant held under it, the same
// request or another; a number of no grant held (waiting, given back,
// or none), and 0, find a new request.
func TestAsked(t *testing.T) {
	var gs Grants[*testGrant]
	held := &testGrant{GrantLife{ID: 1, Call: 7, State: Answered}, "lock a"}
	waiting := &testGrant{GrantLife{ID: 2, Call: 8}, "lock a"}
	released := &testGrant{GrantLife{ID: 3, Call: 9, State: Released}, "lock a"}
	unnumbered := &testGrant{GrantLife{ID: 4, State: Answered}, "lock a"}
	for _, g := range []*testGrant{held, waiting, released, unnumbered} {
		gs.Add(g)
	}
	for _, c := range []struct {
		call    uint64
		request string
		want    *testGrant
		asked   Asked
	}{
		{7, "lock a", held, AskedAgain},
		{7, "lock b", held, AskedOther},
		{8, "lock a", nil, AskedNew},
		{9, "lock a", nil, AskedNew},
		{10, "lock a", nil, AskedNew},
		{0, "lock a", nil, AskedNew},
	} {
		g, asked := gs.Asked(c.call, func(g *testGrant) bool { return g.request == c.request })
		if g != c.want || asked != c.asked {
			t.Errorf("call %d, %q: %v, %v; want %v, %v", c.call, c.request, g, asked, c.want, c.asked)
		}
	}
}
