package session

import (
	"slices"
	"testing"
	"time"
)

// TestDelays: a delayed grant is held until its delay is over, then goes
// back once; the grants held come soonest first.
func TestDelays(t *testing.T) {
	var d Delays[string]
	if due, wait := d.Due(0); len(due) != 0 || wait != 0 {
		t.Fatalf("the zero Delays: due %v, wait %v", due, wait)
	}
	if !d.Add("a", 300*ms) || !d.Add("b", 100*ms) || d.Add("c", 200*ms) {
		t.Fatal("Add's first is not the soonest")
	}
	if got := d.Held(); !slices.Equal(got, []string{"b", "c", "a"}) {
		t.Fatalf("held %v, want [b c a]", got)
	}
	due, wait := d.Due(99 * ms)
	if len(due) != 0 || wait != time.Millisecond {
		t.Fatalf("at 99: due %v, wait %v; want none, 1ms", due, wait)
	}
	if due, wait = d.Due(250 * ms); !slices.Equal(due, []string{"b", "c"}) || wait != 50*time.Millisecond {
		t.Fatalf("at 250: due %v, wait %v; want [b c], 50ms", due, wait)
	}
	if due, _ = d.Due(250 * ms); len(due) != 0 {
		t.Fatalf("given back twice: %v", due)
	}
	if got := d.Held(); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("held %v, want [a]", got)
	}
}
