package check

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
)

func out(t proc.Time, p proc.ID, comm int32, partners ...proc.ID) proc.Event {
	return proc.Event{Time: t, Kind: proc.EvOutput, P: p, Unit: comm, Members: partners}
}

func in(t proc.Time, p, from proc.ID, comm int32) proc.Event {
	return proc.Event{Time: t, Kind: proc.EvInput, P: p, Peer: from, Unit: comm}
}

func exit(t proc.Time, p proc.ID) proc.Event { return proc.Event{Time: t, Kind: proc.EvExit, P: p} }

// TestRendezvous feeds the checker a correct stream and one broken in each
// way it must catch.
func TestRendezvous(t *testing.T) {
	for _, c := range []struct {
		name   string
		events []proc.Event
		want   string // "" for a clean stream, else a piece of the first violation
	}{
		{"two rendezvous, a partner shared one after the other", []proc.Event{
			out(1, 0, 1, 5, 6), in(2, 5, 0, 1), in(3, 6, 0, 1), exit(4, 0),
			out(5, 1, 1, 6, 7), in(6, 7, 1, 1), in(6, 6, 1, 1), exit(8, 1),
			out(9, 0, 2, 5), in(10, 5, 0, 2), exit(11, 0),
		}, ""},
		{"an output left unmatched", []proc.Event{
			out(1, 0, 1, 5, 6), in(2, 5, 0, 1), exit(4, 0),
		}, "1 of the 2 inputs"},
		{"a value delivered twice", []proc.Event{
			out(1, 0, 1, 5, 6), in(2, 5, 0, 1), in(3, 5, 0, 1), in(3, 6, 0, 1), exit(4, 0),
		}, "twice"},
		{"an input of no open output", []proc.Event{
			out(1, 0, 1, 5), in(2, 5, 0, 1), exit(3, 0), in(4, 5, 0, 1),
		}, "not open"},
		{"an input of an earlier output", []proc.Event{
			out(1, 0, 1, 5), in(2, 5, 0, 1), exit(3, 0), out(4, 0, 2, 5), in(5, 5, 0, 1),
		}, "not open"},
		{"an input at a process not named", []proc.Event{
			out(1, 0, 1, 5), in(2, 7, 0, 1),
		}, "does not name"},
		{"a partner in two rendezvous at once", []proc.Event{
			out(1, 0, 1, 5, 6), out(2, 1, 1, 6, 7),
		}, "still in p0's"},
		{"two outputs of one sender at once", []proc.Event{
			out(1, 0, 1, 5), out(2, 0, 2, 6),
		}, "while its output 1 is open"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r Rendezvous
			for _, e := range c.events {
				r.Event(e)
			}
			switch {
			case c.want == "" && r.Violations > 0:
				t.Fatalf("violations on a clean stream: %v", r.First)
			case c.want != "" && (r.Violations == 0 || !strings.Contains(r.First[0], c.want)):
				t.Fatalf("want a violation containing %q, got %v", c.want, r.First)
			}
		})
	}
}

// TestRendezvousOpenAtTheEnd: an output whose sender has not exited when
// the stream stops is open, not a violation.
func TestRendezvousOpenAtTheEnd(t *testing.T) {
	var r Rendezvous
	for _, e := range []proc.Event{out(1, 0, 1, 5, 6), in(2, 5, 0, 1)} {
		r.Event(e)
	}
	if r.Violations != 0 || r.Open() != 1 || r.Outputs != 1 || r.Inputs != 1 {
		t.Fatalf("violations %d, open %d, outputs %d, inputs %d", r.Violations, r.Open(), r.Outputs, r.Inputs)
	}
}
