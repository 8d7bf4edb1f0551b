package check

import (
	"slices"

	"github.com/allot-dev/allot/internal/dense"
	"github.com/allot-dev/allot/proc"
)

// Rendezvous checks Social-CSP's extended outputs and extended inputs
// (Reif and Spirakis §1.6) from the output, input, ext-input, receive and
// exit events alone. An extended input is the mirror of an output: its
// receiver opens it (ext-input, naming the partners) and receives each
// partner's value (receive), so the same rules hold with the receipts at
// the receiver:
//
//   - every input answers the open output of its sender, at a partner that
//     output names, and no value is delivered twice (one input per sender,
//     output number and partner);
//   - every output is matched by all of its inputs before its sender exits;
//   - a process takes part in one rendezvous at a time: no output names a
//     partner that is still in another sender's open rendezvous, and a
//     sender makes one output at a time.
//
// An output is open from its output event to its sender's exit (or crash).
// Outputs still open when the stream ends are counted in Open, not as
// violations: the run stopped first.
type Rendezvous struct {
	Report
	Outputs, Inputs     int
	ExtInputs, Receives int
	senders             []rvSender // per sender
	busy                []proc.ID  // per partner: the sender of its open rendezvous + 1 (0: none)
}

type rvSender struct {
	open     bool
	input    bool // an extended input: the values come to the opener
	comm     int32
	partners []proc.ID
	got      []bool // per partner of the open output: its input arrived
}

// Event implements proc.Sink.
func (c *Rendezvous) Event(e proc.Event) {
	p := int(e.P)
	switch e.Kind {
	case proc.EvOutput, proc.EvExtInput:
		input := e.Kind == proc.EvExtInput
		if input {
			c.ExtInputs++
		} else {
			c.Outputs++
		}
		c.senders = dense.Grow(c.senders, p)
		s := &c.senders[p]
		if s.open {
			c.add("t=%d: p%d makes %s %d while its %s %d is open", e.Time, p, e.Kind, e.Unit, s.kind(), s.comm)
			c.close(p)
		}
		*s = rvSender{open: true, input: input, comm: e.Unit, partners: e.Members, got: make([]bool, len(e.Members))}
		for i, q := range e.Members {
			if slices.Contains(e.Members[:i], q) {
				c.add("t=%d: p%d's output %d names partner p%d twice", e.Time, p, e.Unit, q)
				continue
			}
			c.busy = dense.Grow(c.busy, int(q))
			if other := c.busy[q] - 1; other >= 0 && int(other) != p {
				c.add("t=%d: p%d's output %d names p%d, still in p%d's rendezvous", e.Time, p, e.Unit, q, other)
				continue
			}
			c.busy[q] = e.P + 1
		}
	case proc.EvInput:
		c.Inputs++
		from := int(e.Peer)
		if from < 0 || from >= len(c.senders) || !c.senders[from].open || c.senders[from].input || c.senders[from].comm != e.Unit {
			c.add("t=%d: p%d inputs p%d's output %d, which is not open", e.Time, p, from, e.Unit)
			return
		}
		c.got(e, &c.senders[from], e.P, "inputs p%d's output %d", proc.ID(from))
	case proc.EvReceive:
		c.Receives++
		if p >= len(c.senders) || !c.senders[p].open || !c.senders[p].input || c.senders[p].comm != e.Unit {
			c.add("t=%d: p%d receives p%d's value for its extended input %d, which is not open", e.Time, p, e.Peer, e.Unit)
			return
		}
		c.got(e, &c.senders[p], e.Peer, "receives p%d's value for extended input %d", e.Peer)
	case proc.EvExit, proc.EvCrash:
		if p >= len(c.senders) || !c.senders[p].open {
			return
		}
		if e.Kind == proc.EvExit {
			s := &c.senders[p]
			if n := count(s.got, false); n > 0 {
				c.add("t=%d: p%d exits with %d of the %d inputs of its %s %d missing", e.Time, p, n, len(s.got), s.kind(), s.comm)
			}
		}
		c.close(p)
	}
}

func (s *rvSender) kind() string {
	if s.input {
		return "extended input"
	}
	return "output"
}

// got records that partner q's value of rendezvous s passed (an input at
// q of an output, a receipt from q of an extended input); what describes
// the event for a violation, its arguments the peer and the number.
func (c *Rendezvous) got(e proc.Event, s *rvSender, q proc.ID, what string, peer proc.ID) {
	i := slices.Index(s.partners, q)
	switch {
	case i < 0:
		c.add("t=%d: p%d "+what+", which does not name p%d", e.Time, e.P, peer, e.Unit, q)
	case s.got[i]:
		c.add("t=%d: p%d "+what+" twice", e.Time, e.P, peer, e.Unit)
	default:
		s.got[i] = true
	}
}

// close ends sender p's open rendezvous, freeing its partners.
func (c *Rendezvous) close(p int) {
	s := &c.senders[p]
	for _, q := range s.partners {
		if int(q) < len(c.busy) && c.busy[q] == proc.ID(p)+1 {
			c.busy[q] = 0
		}
	}
	s.open = false
}

// Open is the number of outputs not yet closed by their sender's exit.
func (c *Rendezvous) Open() int {
	n := 0
	for _, s := range c.senders {
		if s.open {
			n++
		}
	}
	return n
}

func count(xs []bool, v bool) int {
	n := 0
	for _, x := range xs {
		if x == v {
			n++
		}
	}
	return n
}
