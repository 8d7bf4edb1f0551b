package session

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestOutbox: records are sent from the first not acknowledged, each
// answer acknowledges those up to its batch, a silent stream is found,
// and a closed outbox gives back what is left and takes nothing more.
func TestOutbox(t *testing.T) {
	var o Outbox[string]
	for _, r := range []string{"a", "b", "c"} {
		o.Push(r)
	}
	sent := o.Send(0, 10*ms)
	if len(sent) != 3 || sent[0].ID != 1 || sent[2].ID != 3 {
		t.Fatalf("a new stream sends %v, want ids 1..3", sent)
	}
	o.Push("d")
	if got := o.Send(3, 20*ms); len(got) != 1 || got[0].Record != "d" {
		t.Fatalf("the same stream sends %v next, want d", got)
	}
	if o.Silent(4, 500*ms, time.Second) || !o.Silent(4, 1011*ms, time.Second) {
		t.Fatal("a record waiting a second for its answer is not found silent, or one that is not is")
	}
	if got := o.Ack(2); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("an answer up to 2 acknowledges %v, want [a b]", got)
	}
	if got := o.Send(0, 30*ms); len(got) != 2 || got[0].Record != "c" {
		t.Fatalf("a new stream after a broken one sends %v, want c, d", got)
	}
	if got := o.Close(); !slices.Equal(got, []string{"c", "d"}) {
		t.Fatalf("closing gives back %v, want [c d]", got)
	}
	if _, ok := o.Push("e"); ok || o.Made() != 4 {
		t.Fatalf("a closed outbox took a record (made %d)", o.Made())
	}
}

// TestRandomOutbox: over random pushes, sends, answers, broken streams
// and a close, every record comes back exactly once, in the order it was
// made: acknowledged in order, or given back by the close. Each run logs
// its seed; -seed=N runs that one again.
func TestRandomOutbox(t *testing.T) {
	for seed := range seeds(t) {
		r := rand.New(rand.NewPCG(seed, 37))
		var o Outbox[int]
		var made, back []int
		var sent uint64 // the last sent on the current stream
		var answered uint64
		for step := range 200 {
			switch r.IntN(5) {
			case 0, 1:
				if _, ok := o.Push(step); ok {
					made = append(made, step)
				}
			case 2:
				for _, p := range o.Send(sent, Time(step)*ms) {
					if p.ID <= sent || p.ID <= answered {
						t.Fatalf("seed %d: record %d sent again on its stream, or after its answer", seed, p.ID)
					}
					sent = p.ID
				}
			case 3: // the backup answers a batch it got
				if sent > answered {
					answered += 1 + uint64(r.IntN(int(sent-answered)))
					back = append(back, o.Ack(answered)...)
				}
			case 4: // the stream breaks: a new one starts from what is not answered
				sent = answered
			}
		}
		back = append(back, o.Close()...)
		if !slices.Equal(back, made) {
			t.Fatalf("seed %d: records came back as %v, made %v", seed, back, made)
		}
	}
}
