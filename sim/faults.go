package sim

import (
	"fmt"

	"github.com/allot-dev/allot/proc"
)

// The fault model beyond fail-stop crashes (Network.Crashes):
//
//	Restart  a process comes back from what it persisted (proc.Durable):
//	         after a crash, or at once if it is running (a kill -9 and a
//	         restart in the same tick); its volatile state and armed
//	         timers are lost
//	Cut      the link From→To drops every message sent or arriving while
//	         it is cut, silently; two cuts make a symmetric partition,
//	         one a one-way partition, and cutting A–B while both reach C
//	         a non-transitive one
//	Pause    a process is stopped (SIGSTOP) for an interval: it handles
//	         no input, its timers do not fire and messages to it wait;
//	         everything that came due meanwhile is handled, in order,
//	         when it resumes (as a stopped process's overdue timers fire
//	         when it is continued)
//
// The driver records its faults as events, as it does crashes: EvCrash,
// EvRestart, EvPause and EvResume (the checkers must know that a stopped
// process is not acting on what it last said). A cut is not an event: a
// checker judges what the processes do, not the network.
//
// A cut loses messages: only an algorithm that tolerates loss (the control
// plane) may be run under cuts; the simulator does not know which does,
// its callers refuse cuts for the others.

// Restart brings process P back at tick At from what it persisted.
type Restart struct {
	P  proc.ID
	At proc.Time
}

// Cut drops the messages from From to To sent, or arriving, in the ticks
// [Start, End). End 0 is a cut that never heals.
type Cut struct {
	From, To   proc.ID
	Start, End proc.Time
}

// Pause stops process P in the ticks [Start, End).
type Pause struct {
	P          proc.ID
	Start, End proc.Time
}

// active reports whether c drops a message at tick t.
func (c Cut) active(t proc.Time) bool {
	return t >= c.Start && (c.End == 0 || t < c.End)
}

// FaultError is a fault schedule the simulator cannot run.
type FaultError struct {
	Fault string // the fault, in the CLI's notation (P@T, A>B@T1-T2)
	Why   string
}

func (e *FaultError) Error() string { return fmt.Sprintf("sim: fault %s: %s", e.Fault, e.Why) }

// validate checks the fault schedule against the processes of the run.
func (n *Network) validate(procs []proc.Process, users int) error {
	valid := func(p proc.ID) bool { return p >= 0 && int(p) < len(procs) }
	for _, c := range n.Crashes {
		if !valid(c.P) || c.At < 0 {
			return fmt.Errorf("sim: crash %d@%d: no such process or tick", c.P, c.At)
		}
	}
	for _, r := range n.Restarts {
		name := fmt.Sprintf("restart %d@%d", r.P, r.At)
		switch {
		case !valid(r.P) || r.At < 0:
			return &FaultError{name, "no such process or tick"}
		case int(r.P) < users:
			return &FaultError{name, "a user's application cycle does not restart"}
		}
		if _, ok := procs[r.P].(proc.Durable); !ok {
			return &FaultError{name, fmt.Sprintf("%T persists nothing: it can only fail-stop", procs[r.P])}
		}
	}
	for _, c := range n.Cuts {
		name := fmt.Sprintf("cut %d>%d@%d-%d", c.From, c.To, c.Start, c.End)
		switch {
		case !valid(c.From) || !valid(c.To):
			return &FaultError{name, "no such process"}
		case c.From == c.To:
			return &FaultError{name, "a process cannot be cut from itself"}
		case c.Start < 0 || c.End != 0 && c.End <= c.Start:
			return &FaultError{name, "the interval is empty"}
		}
	}
	for _, p := range n.Pauses {
		name := fmt.Sprintf("pause %d@%d-%d", p.P, p.Start, p.End)
		switch {
		case !valid(p.P):
			return &FaultError{name, "no such process"}
		case p.Start < 0 || p.End <= p.Start:
			return &FaultError{name, "the interval is empty"}
		}
	}
	return nil
}

// faulty reports whether the driver must follow each process's state.
func (n *Network) faulty() bool {
	return len(n.Crashes) > 0 || len(n.Restarts) > 0 || len(n.Pauses) > 0
}

// cut reports whether a message from → to is dropped at tick t.
func (s *Sim) cut(from, to proc.ID, t proc.Time) bool {
	for _, c := range s.cfg.Net.Cuts {
		if c.From == from && c.To == to && c.active(t) {
			return true
		}
	}
	return false
}

// incTimer is a timer armed by one incarnation of a process: it does not
// fire in a later one.
type incTimer struct {
	inc uint32
	t   proc.Timer
}

// crash fails the current process; a durable one leaves what it persisted
// for a restart.
func (s *Sim) crash(st *pstate) {
	st.crashed = true
	if d, ok := s.procs[s.cur].(proc.Durable); ok && len(s.cfg.Net.Restarts) > 0 {
		st.reborn = d.Restarted()
	}
	s.emit(proc.Event{Kind: proc.EvCrash, P: s.cur})
}

// restart brings the current process back from what it persisted,
// crashing it first if it is running.
func (s *Sim) restart(st *pstate) {
	if !st.crashed {
		s.crash(st)
	}
	s.procs[s.cur], st.reborn = st.reborn, nil
	st.crashed = false
	st.inc++
	st.busy = s.now
	s.emit(proc.Event{Kind: proc.EvRestart, P: s.cur})
	s.procs[s.cur].Start(s)
}
