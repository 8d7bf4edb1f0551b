package session

import (
	"math/rand/v2"
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

// TestHeldTiesInArrivalOrder: grants held to the same end come in the
// order they were added, every time (a map's order would differ between
// runs, and with it the order a driver asks for them again).
func TestHeldTiesInArrivalOrder(t *testing.T) {
	want := []string{"e", "d", "c", "b", "a", "f"}
	for range 20 {
		var d Delays[string]
		for _, g := range want {
			d.Add(g, 100*ms)
		}
		if got := d.Held(); !slices.Equal(got, want) {
			t.Fatalf("held %v, want %v", got, want)
		}
	}
}

// TestRandomDelays: over random ends and looks at random times, no grant
// goes back before its lock-delay is over, none is held past the first
// look at or after that, and each goes back once. Each run logs its
// seed; -seed=N runs that one again.
func TestRandomDelays(t *testing.T) {
	for seed := range seeds(t) {
		r := rand.New(rand.NewPCG(seed, 41))
		var d Delays[int]
		until := map[int]Time{}
		var now Time
		for g := range 100 {
			now = now.Add(time.Duration(r.IntN(50)) * time.Millisecond)
			if r.IntN(2) == 0 {
				u := now.Add(time.Duration(r.IntN(200)) * time.Millisecond)
				d.Add(g, u)
				until[g] = u
			}
			due, _ := d.Due(now)
			for _, g := range due {
				u, ok := until[g]
				if !ok {
					t.Fatalf("seed %d: grant %d given back twice", seed, g)
				}
				if now < u {
					t.Fatalf("seed %d: grant %d given back at %v, before its delay's end %v", seed, g, now/ms, u/ms)
				}
				delete(until, g)
			}
			for g, u := range until {
				if u <= now {
					t.Fatalf("seed %d: grant %d held at %v, past its delay's end %v", seed, g, now/ms, u/ms)
				}
			}
			if held := d.Held(); len(held) != len(until) {
				t.Fatalf("seed %d: %d grants held, want %d", seed, len(held), len(until))
			}
		}
	}
}
