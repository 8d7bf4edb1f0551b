package ui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/trace"
)

// ContractVersion is the version of the trace contract this view reads. A
// header may name the version it was written under in a "version" field;
// the writers of this version leave it out, so a header without one is of
// version 1.
const ContractVersion = 1

// MaxEvents is the most events a trace may have to be opened whole: the
// page draws 10^5 events well within its budget, and a trace much larger
// would take the browser seconds to read. A larger trace is opened by a
// window of ticks (Options.From, Options.To).
const MaxEvents = 250_000

// Errors of Load, each wrapped with where it was found.
var (
	ErrNotJSONL  = errors.New("not a JSONL trace")
	ErrVersion   = errors.New("a later trace contract version")
	ErrTruncated = errors.New("truncated trace")
	ErrMixed     = errors.New("two runs mixed in one trace")
	ErrTooLarge  = errors.New("trace too large to open whole")
	ErrEmpty     = errors.New("empty trace")
)

// Options choose what of a trace is loaded.
type Options struct {
	// From and To bound the events loaded by their tick (To 0: no bound).
	From, To proc.Time
	// Max is the most events loaded (0: MaxEvents).
	Max int
}

// Run is a trace as the page reads it: the events column by column (a
// JSON array per field is a fraction of the size of an object per event,
// and the page reads it in one JSON.parse).
type Run struct {
	Source string          `json:"source"`
	Header json.RawMessage `json:"header,omitempty"` // the header line, as written
	Kind   string          `json:"kind"`             // exclusive, pool, quota ("" when the trace has no header)
	Edges  [][2]proc.ID    `json:"edges,omitempty"`  // the conflict graph of a dining run
	Procs  int             `json:"processes"`
	End    *End            `json:"end,omitempty"`
	// Kinds names the event kinds; K holds an index into it per event.
	Kinds []string `json:"kinds"`
	T     []int64  `json:"t,omitempty"`
	K     []uint16 `json:"k,omitempty"`
	P     []int32  `json:"p,omitempty"`
	// A is the event's number: the unit (grant, release, move), the name
	// (name), the other end (send, deliver), the epoch (view, fence).
	A []int64 `json:"a,omitempty"`
	// Res holds the resources of request and enter events (null for
	// others); Members those of view events.
	Res [][]proc.ResID `json:"res,omitempty"`
	// Msgs names the message kinds; M holds an index into it (-1: none).
	Msgs []string `json:"msgs"`
	M    []int32  `json:"m,omitempty"`
	// Send is, for a deliver event, the index of the send it delivers
	// (paired in order per link and message kind; -1 when none is in the
	// trace), and -1 for every other event.
	Send      []int32    `json:"send,omitempty"`
	Violation *Violation `json:"violation,omitempty"`
	Failure   *Failure   `json:"failure,omitempty"`
	Window    [2]int64   `json:"window"` // the ticks loaded: [From, To] (To 0: to the end)
	Skipped   int        `json:"skipped"`
	Notes     []string   `json:"notes,omitempty"`

	units int // the pool's size, from the header's scenario
}

// MarshalJSON writes the columns by hand (encoding/json's reflection took
// half of the time a large trace takes to open) after the rest.
func (r *Run) MarshalJSON() ([]byte, error) {
	type plain Run // without this method
	c := plain(*r)
	c.T, c.K, c.P, c.A, c.Res, c.M, c.Send = nil, nil, nil, nil, nil, nil, nil
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	b = b[:len(b)-1] // the closing brace
	b = appendInts(append(b, `,"t":`...), r.T)
	b = appendInts(append(b, `,"k":`...), r.K)
	b = appendInts(append(b, `,"p":`...), r.P)
	b = appendInts(append(b, `,"a":`...), r.A)
	b = appendInts(append(b, `,"m":`...), r.M)
	b = appendInts(append(b, `,"send":`...), r.Send)
	b = append(b, `,"res":[`...)
	for i, rs := range r.Res {
		if i > 0 {
			b = append(b, ',')
		}
		if rs == nil {
			b = append(b, "null"...)
			continue
		}
		b = appendInts(b, rs)
	}
	return append(b, "]}"...), nil
}

func appendInts[T ~int16 | ~uint16 | ~int32 | ~int64](b []byte, xs []T) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

// End is the trace's end line.
type End struct {
	T       int64     `json:"t"`
	Holding []proc.ID `json:"holding"`
	Open    []proc.ID `json:"open"`
}

// Violation is the first event a checker rejects (Kind "safety"), or the
// last event of a run that ends stuck (Kind "stuck": requests open, nobody
// holding, no crash), which is where a deadlock shows when nothing was
// left to happen, as in allot explore's deadlock counterexamples.
type Violation struct {
	Kind  string `json:"kind"`
	Index int    `json:"index"` // into the events
	T     int64  `json:"t"`
	What  string `json:"what"`
}

// Failure is what the crashes of a dining run did, from the events and
// the conflict graph alone (check.Locality).
type Failure struct {
	Crashed  []proc.ID `json:"crashed"`
	Set      []proc.ID `json:"set"` // crashed and starved
	Locality int       `json:"locality"`
}

type rawLine struct {
	T       *int64       `json:"t"`
	Ev      *string      `json:"ev"`
	P       int32        `json:"p"`
	Res     []proc.ResID `json:"res"`
	Unit    *int64       `json:"unit"`
	Name    *int64       `json:"name"`
	To      *int64       `json:"to"`
	From    *int64       `json:"from"`
	Msg     *string      `json:"msg"`
	Epoch   *int64       `json:"epoch"`
	Members []proc.ResID `json:"members"`
	Version *int         `json:"version"`
	Holding []proc.ID    `json:"holding"`
	Open    []proc.ID    `json:"open"`
}

// Load reads a JSONL trace (see package trace) into a Run. It refuses,
// with an error wrapping one of the Err values and naming the line, what
// is not a trace of this contract or not one whole run: a line that is
// not a JSON event, a header of a later version, a second header or
// events after the end line (two runs), time going back (two runs
// interleaved), an unfinished last line or a trace with a header and no
// end line (truncated). Event kinds it does not know are skipped and
// counted, as the contract asks of readers.
func Load(r io.Reader, source string, o Options) (*Run, error) {
	if o.Max == 0 {
		o.Max = MaxEvents
	}
	run := &Run{Source: source, Window: [2]int64{int64(o.From), int64(o.To)}}
	kinds := map[string]uint16{}
	msgs := map[string]int32{}
	br := bufio.NewReaderSize(r, 1<<16)
	var sc scratch
	var header, ended bool
	var last int64
	lines, total := 0, 0
	for {
		b, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, err
		}
		if len(b) == 0 && err == io.EOF {
			break
		}
		lines++
		complete := len(b) > 0 && b[len(b)-1] == '\n'
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			if err == io.EOF {
				break
			}
			continue
		}
		var l rawLine
		var jerr error
		if !scanLine(b, &l, &sc) {
			l = rawLine{}
			jerr = json.Unmarshal(b, &l)
		}
		if jerr != nil || l.T == nil || l.Ev == nil {
			switch {
			case !complete && lines > 1:
				return nil, fmt.Errorf("line %d: %w: the last line stops mid-event", lines, ErrTruncated)
			case jerr != nil:
				return nil, fmt.Errorf("line %d: %w: %v", lines, ErrNotJSONL, jerr)
			default:
				return nil, fmt.Errorf("line %d: %w: an event needs \"t\" and \"ev\"", lines, ErrNotJSONL)
			}
		}
		if ended {
			return nil, fmt.Errorf("line %d: %w: a line after the end line", lines, ErrMixed)
		}
		switch *l.Ev {
		case "header":
			if header || total > 0 {
				return nil, fmt.Errorf("line %d: %w: a second header", lines, ErrMixed)
			}
			if l.Version != nil && *l.Version > ContractVersion {
				return nil, fmt.Errorf("line %d: %w: the header says version %d, this allot reads version %d (use the allot that wrote it)", lines, ErrVersion, *l.Version, ContractVersion)
			}
			var h struct {
				trace.Header
				Scenario struct {
					Units int `json:"units"`
				} `json:"scenario"`
			}
			if err := json.Unmarshal(b, &h); err != nil {
				return nil, fmt.Errorf("line %d: %w: header: %v", lines, ErrNotJSONL, err)
			}
			header = true
			run.Header = slices.Clone(b)
			run.Kind, run.Edges, run.Procs, run.units = h.Kind, h.Edges, h.Processes, h.Scenario.Units
			continue
		case "end":
			ended = true
			run.End = &End{T: *l.T, Holding: l.Holding, Open: l.Open}
			continue
		}
		k, kerr := proc.ParseEventKind(*l.Ev)
		if kerr != nil {
			run.Skipped++
			continue
		}
		if *l.T < last {
			return nil, fmt.Errorf("line %d: %w: time goes back from %d to %d", lines, ErrMixed, last, *l.T)
		}
		last = *l.T
		if l.P < 0 || run.Procs > 0 && int(l.P) >= run.Procs {
			return nil, fmt.Errorf("line %d: %w: process %d is not one of the header's %d", lines, ErrMixed, l.P, run.Procs)
		}
		total++
		if *l.T < int64(o.From) || o.To > 0 && *l.T > int64(o.To) {
			continue
		}
		if len(run.T) >= o.Max {
			return nil, fmt.Errorf("%w: more than %d events (open a window of ticks: --window FROM:TO)", ErrTooLarge, o.Max)
		}
		ki, ok := kinds[*l.Ev]
		if !ok {
			ki = uint16(len(run.Kinds))
			kinds[*l.Ev] = ki
			run.Kinds = append(run.Kinds, *l.Ev)
		}
		var a int64
		for _, v := range []*int64{l.Unit, l.Name, l.To, l.From, l.Epoch} {
			if v != nil {
				a = *v
			}
		}
		mi := int32(-1)
		if l.Msg != nil {
			if mi, ok = msgs[*l.Msg]; !ok {
				mi = int32(len(run.Msgs))
				msgs[*l.Msg] = mi
				run.Msgs = append(run.Msgs, *l.Msg)
			}
		}
		res := l.Res
		if k == proc.EvView {
			res = l.Members
		}
		run.T = append(run.T, *l.T)
		run.K = append(run.K, ki)
		run.P = append(run.P, l.P)
		run.A = append(run.A, a)
		run.Res = append(run.Res, res)
		run.M = append(run.M, mi)
		if int(l.P) >= run.Procs && !header {
			run.Procs = int(l.P) + 1
		}
		if err == io.EOF {
			break
		}
	}
	if total == 0 && !header {
		return nil, ErrEmpty
	}
	if header && !ended {
		return nil, fmt.Errorf("%w: no end line after %d events (the run that wrote it stopped, or the file was cut)", ErrTruncated, total)
	}
	if run.Kinds == nil {
		run.Kinds, run.Msgs = []string{}, []string{}
	}
	if run.Msgs == nil {
		run.Msgs = []string{}
	}
	run.pair()
	if err := run.judge(); err != nil {
		return nil, err
	}
	if run.Skipped > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("%d events of kinds this allot does not know were skipped", run.Skipped))
	}
	if o.From > 0 || o.To > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("a window of the run: %d of its %d events, ticks %d to %d", len(run.T), total, o.From, o.To))
	}
	return run, nil
}

// pair matches each deliver with its send, in order per link and message
// kind.
func (r *Run) pair() {
	type link struct{ from, to, msg int64 }
	sends := map[link][]int32{}
	r.Send = make([]int32, len(r.T))
	for i := range r.T {
		r.Send[i] = -1
		switch r.Kinds[r.K[i]] {
		case "send":
			l := link{int64(r.P[i]), r.A[i], int64(r.M[i])}
			sends[l] = append(sends[l], int32(i))
		case "deliver":
			l := link{r.A[i], int64(r.P[i]), int64(r.M[i])}
			if q := sends[l]; len(q) > 0 {
				r.Send[i], sends[l] = q[0], q[1:]
			}
		}
	}
}

// event is the i-th event as the contract's value.
func (r *Run) event(i int) proc.Event {
	k, _ := proc.ParseEventKind(r.Kinds[r.K[i]])
	e := proc.Event{Time: proc.Time(r.T[i]), Kind: k, P: proc.ID(r.P[i]), Res: r.Res[i]}
	switch k {
	case proc.EvSend, proc.EvDeliver, proc.EvMove:
		e.Peer = proc.ID(r.A[i])
		e.Msg = ""
	case proc.EvView, proc.EvFence:
		e.Epoch = uint64(r.A[i])
	default:
		e.Unit = int32(r.A[i])
	}
	return e
}

// judge runs the checkers of the run's kind over the events and marks the
// first violation, and measures the failure locality of a dining run with
// crashes. A window of a run is not judged: its first events are missing.
func (r *Run) judge() error {
	if r.Window != [2]int64{} {
		return nil
	}
	var rep *check.Report
	var sink proc.Sink
	switch r.Kind {
	case "exclusive", "":
		x := &check.Exclusion{}
		rep, sink = &x.Report, x
	case "pool":
		x := &check.Pool{Units: r.units}
		if x.Units == 0 {
			x.Units = math.MaxInt // no header: the pool's size is not known
		}
		rep, sink = &x.Report, x
	default:
		return nil // a quota's conditions are judged at the end of a run by the budget the header holds
	}
	var loc *check.Locality
	if len(r.Edges) > 0 && r.Procs > 0 {
		g, err := graph.New(r.Procs, r.Edges)
		if err != nil {
			return fmt.Errorf("%w: the header's edges: %v", ErrNotJSONL, err)
		}
		loc = &check.Locality{Graph: g}
	}
	for i := range r.T {
		e := r.event(i)
		sink.Event(e)
		if loc != nil {
			loc.Event(e)
		}
		if rep.Violations > 0 && r.Violation == nil {
			r.Violation = &Violation{Kind: "safety", Index: i, T: r.T[i], What: rep.First[0]}
		}
	}
	if e := r.End; r.Violation == nil && e != nil && len(e.Open) > 0 && len(e.Holding) == 0 && len(r.T) > 0 && !slices.Contains(r.Kinds, "crash") {
		var who []string
		for _, p := range e.Open {
			who = append(who, fmt.Sprintf("p%d", p))
		}
		n := len(r.T) - 1
		r.Violation = &Violation{Kind: "stuck", Index: n, T: r.T[n],
			What: fmt.Sprintf("the run ends with %s waiting and nobody holding: a deadlock if nothing was left to happen", strings.Join(who, ", "))}
	}
	if loc != nil {
		end := proc.Time(0)
		if r.End != nil {
			end = proc.Time(r.End.T)
		}
		if lr := loc.Result(end, false); len(lr.Crashed) > 0 {
			r.Failure = &Failure{Crashed: lr.Crashed, Set: lr.FailureSet, Locality: lr.FailureLocality}
		}
	}
	return nil
}
