package session

import (
	"testing"
	"time"
)

// TestFind: a session a node does not serve is told it expired only where
// it is known to have ended there.
func TestFind(t *testing.T) {
	for _, c := range []struct {
		kept, handed, ownRun bool
		want                 Where
	}{
		{true, false, false, Moving},   // kept for another node
		{true, false, true, Moving},    // kept, whatever its id says
		{false, true, true, NotHere},   // handed to its backup when this node stopped serving
		{false, false, false, NotHere}, // another node's, or an earlier run's, adopted elsewhere
		{false, false, true, Ended},    // this run's, closed or run out here
	} {
		if got := Find(c.kept, c.handed, c.ownRun); got != c.want {
			t.Errorf("Find(kept %v, handed %v, own run %v) = %v, want %v", c.kept, c.handed, c.ownRun, got, c.want)
		}
	}
}

// TestHanded: a handed session is kept as such until its time, and
// forgotten once adopted back; the zero Handed keeps none; entries past
// their time go.
func TestHanded(t *testing.T) {
	var h Handed
	if h.Has(1, 0) {
		t.Fatal("the zero Handed has a session")
	}
	h.Add(1, 3000*ms)
	h.Add(2, 1000*ms)
	if !h.Has(2, 500*ms) || !h.Has(1, 3000*ms) {
		t.Fatal("a handed session is not kept until its time")
	}
	h.Add(2, 1000*ms)
	if h.Has(2, 1001*ms) {
		t.Fatal("a handed session is kept past its time")
	}
	h.Remove(1)
	if h.Has(1, 2000*ms) {
		t.Fatal("a session adopted back is still handed")
	}
	h.Has(3, Time(5*time.Second))
	if len(h.until) != 0 {
		t.Fatalf("%d entries past their time kept", len(h.until))
	}
}
