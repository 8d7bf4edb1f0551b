package explore

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/trace"
)

// Counterexample is a shortest path to a violation, replayed from the
// initial state.
type Counterexample struct {
	Kind   string `json:"kind"` // Safety, Deadlock, Livelock, Locality or Panic
	What   string `json:"what"`
	Length int    `json:"length"` // inputs from the initial state
	// Loop, for a livelock or a starvation on a cycle: the steps from Loop
	// (0-based) on repeat for ever. -1 otherwise.
	Loop  int    `json:"loop"`
	Steps []Step `json:"steps"`
	// Events is the path's event stream (with send and deliver), stamped
	// with the step number.
	Events []proc.Event `json:"-"`
	// Sim holds the delays that make the simulator take the same path.
	Sim SimReplay `json:"sim"`
}

// Step is one input of a counterexample and the events it caused.
type Step struct {
	N      int      `json:"n"`
	Input  string   `json:"input"`
	Events []string `json:"events,omitempty"`
}

// SimReplay is the simulator run of the same path: every message, think
// and critical-section duration set so that step k happens at tick k.
// Durations the path never uses (a message still in flight at its end, a
// request the path does not make) are set past the horizon.
type SimReplay struct {
	Think   string   `json:"think"` // dist specs (seq:...)
	CS      string   `json:"cs"`
	Delay   string   `json:"delay"`
	Crash   []string `json:"crash,omitempty"` // P@T
	Horizon int      `json:"horizon"`         // the path's length: the run stops there
	// Exact is false when the path arms timers: the simulator fires a
	// timer d ticks after it is armed, the explorer at any step after, so
	// the simulated run may take another path.
	Exact bool `json:"exact"`
}

// Args are the `allot sim` flags of the replay (the workload flags, seed
// and algorithm are the exploration's own).
func (r SimReplay) Args() []string {
	a := []string{"--think", r.Think, "--cs", r.CS, "--delay", r.Delay, "--horizon", strconv.Itoa(r.Horizon)}
	if len(r.Crash) > 0 {
		a = append(a, "--crash", strings.Join(r.Crash, ","))
	}
	return a
}

// WriteTrace writes the counterexample as a trace (JSONL): the header h,
// the events (messages adds send and deliver), and the end line at the
// last step — none when the path ends in a panic, as in the simulator,
// whose run fails there.
func (c *Counterexample) WriteTrace(w io.Writer, h trace.Header, messages bool) error {
	tw := trace.NewWriter(w)
	tw.Header(h)
	for _, e := range c.Events {
		if !messages && (e.Kind == proc.EvSend || e.Kind == proc.EvDeliver) {
			continue
		}
		tw.Event(e)
	}
	if c.Kind != Panic {
		tw.End(proc.Time(c.Length))
	}
	return tw.Flush()
}

// schedule records, during a replay, when each duration the simulator
// would draw is used: the n-th send is delivered at step k, the n-th think
// time ends at step k. nil records nothing.
type schedule struct {
	sends    []int64 // per send: sent at, then the delay (or -1: never)
	sentAt   []int64
	think    []int64 // per think draw: drawn at, then the duration
	thinkAt  []int64
	cs, csAt []int64
	pending  []pend // per user: the draw its wake-up consumes
	timers   int
	crashes  []string
}

type pend struct {
	cs bool
	i  int
}

func (r *schedule) send(now proc.Time) int32 {
	if r == nil {
		return 0
	}
	r.sentAt = append(r.sentAt, int64(now))
	r.sends = append(r.sends, -1)
	return int32(len(r.sends) - 1)
}

func (r *schedule) timer() {
	if r != nil {
		r.timers++
	}
}

func (r *schedule) schedule(u proc.ID, now proc.Time, cs bool) {
	if r == nil {
		return
	}
	for int(u) >= len(r.pending) {
		r.pending = append(r.pending, pend{})
	}
	if cs {
		r.csAt = append(r.csAt, int64(now))
		r.cs = append(r.cs, -1)
		r.pending[u] = pend{true, len(r.cs) - 1}
	} else {
		r.thinkAt = append(r.thinkAt, int64(now))
		r.think = append(r.think, -1)
		r.pending[u] = pend{false, len(r.think) - 1}
	}
}

// take records that choice c of s happens at step now.
func (r *schedule) take(s *state, c choice, now proc.Time) {
	if r == nil {
		return
	}
	switch c.kind {
	case inDeliver:
		i := s.net[c.i].serial
		r.sends[i] = int64(now) - r.sentAt[i]
	case inWake:
		p := r.pending[c.p]
		if p.cs {
			r.cs[p.i] = int64(now) - r.csAt[p.i]
		} else {
			r.think[p.i] = int64(now) - r.thinkAt[p.i]
		}
	case inCrash:
		r.crashes = append(r.crashes, fmt.Sprintf("%d@%d", c.p, now))
	}
}

// seqSpec is the seq: distribution of durations ds, unused ones (-1) and
// every later draw set to never.
func seqSpec(ds []int64, never int64) string {
	for len(ds) > 0 && (ds[len(ds)-1] < 0 || ds[len(ds)-1] == never) {
		ds = ds[:len(ds)-1] // the last value repeats
	}
	var b strings.Builder
	b.WriteString("seq:")
	for i, d := range ds {
		if d < 0 {
			d = never
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
	if len(ds) > 0 {
		b.WriteByte(',')
	}
	b.WriteString(strconv.FormatInt(never, 10)) // every later draw
	return b.String()
}

type collect []proc.Event

func (c *collect) Event(e proc.Event) { *c = append(*c, e) }

// replay runs path (input labels) from the initial state. It returns the
// final state and a description of each step.
func (x *Explorer) replay(path []uint64, into *collect) (*state, []Step, error) {
	s, _, _, err := x.replayRec(path, into, nil)
	return s, nil, err
}

// replayRec is replay recording the simulator's schedule; panicked
// reports that the last step panicked (s is then the state before it).
func (x *Explorer) replayRec(path []uint64, into *collect, rec *schedule) (s *state, steps []Step, panicked bool, err error) {
	var sink proc.Sink
	if into != nil {
		sink = into
	}
	s, err = x.initial(sink, rec)
	if err != nil {
		return nil, nil, false, err
	}
	var cs []choice
	for k, lab := range path {
		cs = x.choices(s, cs)
		found := -1
		for i, c := range cs {
			if s.label(c) == lab {
				found = i
				break
			}
		}
		if found < 0 {
			return nil, nil, false, errCollision
		}
		c := cs[found]
		what := s.describe(c)
		mark := 0
		if into != nil {
			mark = len(*into)
		}
		n, err := x.step(s, c, sink, rec)
		st := Step{N: k + 1, Input: what}
		if into != nil {
			for _, e := range (*into)[mark:] {
				st.Events = append(st.Events, describeEvent(e))
			}
		}
		if err != nil {
			st.Events = append(st.Events, err.Error())
			steps = append(steps, st)
			return s, steps, true, nil
		}
		steps = append(steps, st)
		s = n
	}
	return s, steps, false, nil
}

// errCollision: a path found by fingerprints does not replay. Two states
// had the same fingerprint (about n²/2⁶⁵ likely for n states).
var errCollision = errors.New("explore: a counterexample did not replay: two states shared a fingerprint")

func describeEvent(e proc.Event) string {
	switch e.Kind {
	case proc.EvSend:
		return fmt.Sprintf("%d sends %s to %d", e.P, e.Msg, e.Peer)
	case proc.EvDeliver:
		return fmt.Sprintf("%d receives %s from %d", e.P, e.Msg, e.Peer)
	case proc.EvRequest, proc.EvEnter:
		return fmt.Sprintf("%s p%d %v", e.Kind, e.P, e.Res)
	case proc.EvGrant, proc.EvRelease:
		return fmt.Sprintf("%s p%d unit %d", e.Kind, e.P, e.Unit)
	}
	return fmt.Sprintf("%s p%d", e.Kind, e.P)
}

// counterexample replays path, checks that the violation is there again
// at its end, and describes it.
func (x *Explorer) counterexample(kind, what string, path []uint64, loop int) (*Counterexample, error) {
	ce, end, panicked, err := x.describePath(path)
	if err != nil {
		return nil, err
	}
	var cs []choice
	ok := false
	switch kind {
	case Panic:
		ok = panicked
	case Safety:
		v, _ := end.chk.violations()
		ok = !panicked && (v > 0 || len(x.choices(end, cs)) == 0)
	case Deadlock, Locality:
		ok = !panicked && len(x.choices(end, cs)) == 0
	case Livelock:
		ok = !panicked
	}
	if !ok && !(kind == Locality && loop >= 0) {
		return nil, errCollision
	}
	ce.Kind, ce.What, ce.Loop = kind, what, loop
	return ce, nil
}

// describePath replays path and describes it: steps, events, the
// simulator's schedule. It returns the last state and whether the last
// step panicked.
func (x *Explorer) describePath(path []uint64) (*Counterexample, *state, bool, error) {
	var events collect
	rec := &schedule{}
	end, steps, panicked, err := x.replayRec(path, &events, rec)
	if err != nil {
		return nil, nil, false, err
	}
	never := int64(len(path) + 1)
	ce := &Counterexample{Length: len(path), Loop: -1, Steps: steps, Events: events,
		Sim: SimReplay{
			Think: seqSpec(rec.think, never), CS: seqSpec(rec.cs, never), Delay: seqSpec(rec.sends, never),
			Crash: rec.crashes, Horizon: len(path), Exact: rec.timers == 0,
		}}
	return ce, end, panicked, nil
}
