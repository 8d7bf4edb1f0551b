package space

import (
	"errors"
	"testing"
)

// TestRoundTrip formats typed instances and parses them back: the same
// value, and the name the node has always put on the wire.
func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		s    Space
		name string
	}{
		{Space{Lock, View{1, SetOf(0)}}, "lock@1:0"},
		{Space{Lock, View{42, SetOf(0, 2, 5)}}, "lock@42:0.2.5"},
		{Space{Sem("printers", 2), View{7, SetOf(1, 2)}}, "sem/printers/2@7:1.2"},
		{Space{Sem("a/b", 3), View{7, SetOf(63)}}, "sem/a/b/3@7:63"},
		{Space{Sem("", 1), View{0, SetOf(0, 1)}}, "sem//1@0:0.1"},
		{Space{Quota("q", 10, 2, 10), View{5, SetOf(0, 1)}}, "quota/q/10/2~10@5:0.1"},
		{Space{Quota("q", 10, 2, 0), View{18446744073709551615, SetOf(0, 1, 2)}}, "quota/q/10/2~0@18446744073709551615:0.1.2"},
	} {
		if got := c.s.String(); got != c.name {
			t.Errorf("%+v formats as %q, want %q", c.s, got, c.name)
		}
		back, err := Parse(c.s.String())
		if err != nil || back != c.s {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.name, back, err, c.s)
		}
	}
}

// TestMalformed gives Parse names no node formats: each is a *NameError
// (and ErrName), none a panic.
func TestMalformed(t *testing.T) {
	for _, name := range []string{
		"",
		"lock",                        // no view
		"lock@",                       // no epoch
		"lock@1",                      // no members
		"lock@1:",                     // empty member list
		"lock@x:0",                    // bad epoch
		"lock@-1:0",                   // negative epoch
		"lock@1:0.0",                  // repeated member
		"lock@1:2.1",                  // members not ascending
		"lock@1:-1",                   // negative node
		"lock@1:64",                   // beyond the largest cluster
		"lock@1:0..1",                 // empty member
		"lock@1:+1",                   // another spelling of 1
		"lock@01:1",                   // another spelling of epoch 1
		"locks@1:0",                   // unknown key
		"sem/x@1:0",                   // semaphore without units
		"sem/x/y@1:0",                 // units not a number
		"quota/q/10@1:0",              // quota without waste
		"quota/q/10/2~11@1:0",         // more left than the budget
		"quota/q/10/2~-1@1:0",         // negative left
		"quota/q/10/2~x@1:0",          // left not a number
		"quota/q/10/2@1:0",            // another spelling of ~10
		"lock@1:0@2:0",                // two views
		"sem/x/\xff@1:0",              // bytes, not a number
		"lock@99999999999999999999:0", // epoch beyond 64 bits
	} {
		s, err := Parse(name)
		var ne *NameError
		if !errors.As(err, &ne) || !errors.Is(err, ErrName) || ne.Name != name {
			t.Errorf("Parse(%q) = %+v, %v; want a *NameError of that name", name, s, err)
		}
	}
}

// TestParseKeyLenient: the checkers read a quota's key without its
// "~LEFT" as the whole budget left.
func TestParseKeyLenient(t *testing.T) {
	k, err := ParseKey("quota/q/10/2")
	if err != nil || k != Quota("q", 10, 2, 10) {
		t.Errorf("ParseKey(quota/q/10/2) = %+v, %v", k, err)
	}
}

// TestSet checks the members' ranks against a list.
func TestSet(t *testing.T) {
	live := []int{0, 3, 4, 17, 63}
	s := SetOf(live...)
	if s.Len() != len(live) {
		t.Fatalf("Len = %d", s.Len())
	}
	for i, k := range live {
		if s.Rank(k) != i || s.Nth(i) != k {
			t.Errorf("node %d: rank %d, Nth(%d) = %d", k, s.Rank(k), i, s.Nth(i))
		}
	}
	for _, k := range []int{-1, 1, 2, 62, 64} {
		if s.Rank(k) != -1 {
			t.Errorf("Rank(%d) = %d, want -1", k, s.Rank(k))
		}
	}
	if got := s.List(); len(got) != len(live) || got[3] != 17 {
		t.Errorf("List = %v", got)
	}
}

// TestCheck refuses the keys whose names would read as another instance.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		k  Key
		ok bool
	}{
		{Lock, true},
		{Sem("printers", 2), true},
		{Sem("a/b~c", 2), true},
		{Quota("q", 10, 2, 3), true},
		{Sem("a@b", 2), false},
		{Quota("q@1", 10, 2, 3), false},
		{Quota("q~1", 10, 2, 3), false},
		{Quota("q", 10, 2, 11), false},
		{Key{Kind: 9}, false},
	} {
		if err := c.k.Check(); (err == nil) != c.ok || err != nil && !errors.Is(err, ErrName) {
			t.Errorf("Check(%v) = %v, want ok %v", c.k, err, c.ok)
		}
	}
}
