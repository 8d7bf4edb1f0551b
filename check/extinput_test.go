package check

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
)

func gather(t proc.Time, p proc.ID, comm int32, partners ...proc.ID) proc.Event {
	return proc.Event{Time: t, Kind: proc.EvExtInput, P: p, Unit: comm, Members: partners}
}

func recv(t proc.Time, p, from proc.ID, comm int32) proc.Event {
	return proc.Event{Time: t, Kind: proc.EvReceive, P: p, Peer: from, Unit: comm}
}

// TestRendezvousExtInput feeds the checker extended inputs (Reif and
// Spirakis §1.6, command (2)): a correct stream, mixed with outputs, and
// one broken in each way it must catch.
func TestRendezvousExtInput(t *testing.T) {
	for _, c := range []struct {
		name   string
		events []proc.Event
		want   string
	}{
		{"inputs and outputs sharing partners one after the other", []proc.Event{
			gather(1, 0, 1, 5, 6), recv(2, 0, 6, 1), recv(3, 0, 5, 1), exit(4, 0),
			out(5, 1, 1, 6, 7), in(6, 7, 1, 1), in(6, 6, 1, 1), exit(8, 1),
			gather(9, 1, 2, 5, 6), recv(10, 1, 5, 2), recv(10, 1, 6, 2), exit(11, 1),
		}, ""},
		{"an extended input left without a value", []proc.Event{
			gather(1, 0, 1, 5, 6), recv(2, 0, 5, 1), exit(4, 0),
		}, "1 of the 2 inputs of its extended input 1"},
		{"a value received twice", []proc.Event{
			gather(1, 0, 1, 5, 6), recv(2, 0, 5, 1), recv(3, 0, 5, 1),
		}, "twice"},
		{"a value from a process not named", []proc.Event{
			gather(1, 0, 1, 5), recv(2, 0, 7, 1),
		}, "does not name p7"},
		{"a receipt with no extended input open", []proc.Event{
			gather(1, 0, 1, 5), recv(2, 0, 5, 1), exit(3, 0), recv(4, 0, 5, 1),
		}, "not open"},
		{"a receipt during an output", []proc.Event{
			out(1, 0, 1, 5), recv(2, 0, 5, 1),
		}, "not open"},
		{"an input at a partner of an extended input", []proc.Event{
			gather(1, 0, 1, 5), in(2, 5, 0, 1),
		}, "not open"},
		{"a partner in an input and an output at once", []proc.Event{
			gather(1, 0, 1, 5, 6), out(2, 1, 1, 6),
		}, "still in p0's"},
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
