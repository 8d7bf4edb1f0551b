// Package trace writes and reads the event stream as JSONL, one event a
// line, in execution order:
//
//	{"t":120,"ev":"request","p":3,"res":[5,9]}
//	{"t":180,"ev":"enter","p":3,"res":[5,9]}
//	{"t":230,"ev":"exit","p":3}
//	{"t":260,"ev":"grant","p":2,"unit":1}
//	{"t":400,"ev":"crash","p":7}
//	{"t":401,"ev":"send","p":2,"to":5,"msg":"fork"}        (message tracing only)
//	{"t":409,"ev":"deliver","p":5,"from":2,"msg":"fork"}   (message tracing only)
//	{"t":410,"ev":"name","p":4,"name":17}                  (name assignment)
//	{"t":420,"ev":"output","p":3,"comm":2,"partners":[9,12]} (Social-CSP)
//	{"t":423,"ev":"input","p":9,"comm":2,"from":3}          (Social-CSP)
//	{"t":430,"ev":"ext-input","p":4,"comm":1,"partners":[9]} (Social-CSP)
//	{"t":433,"ev":"receive","p":4,"comm":1,"from":9}        (Social-CSP)
//
// A trace a program must read alone starts with a header line, which names
// the run (scenario, seed, algorithm, kind, process count) and, on a dining
// graph, the edge list (resource i joins the two processes of edges[i]); and
// it closes with an end line, which says which processes were still holding
// resources or a unit, and which were still waiting, when the run stopped:
//
//	{"t":0,"ev":"header","p":-1,"seed":1,"algorithm":"hygienic","kind":"exclusive",...}
//	{"t":5230,"ev":"end","p":-1,"holding":[4],"open":[2,7]}
//
// Both are meta lines: readers that know only events skip them (their
// "ev" is none of the event kinds), and Read does.
//
// The writer formats by hand: a trace of millions of events should cost
// little more than the bytes it writes.
package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/allot-dev/allot/internal/dense"
	"github.com/allot-dev/allot/proc"
)

// Writer is a proc.Sink that writes JSONL. Call Flush at the end; the
// first write error is kept and returned by Flush.
type Writer struct {
	w   *bufio.Writer
	buf []byte
	err error
	// What each process is doing, followed from the events for the end
	// line: holding (in a critical section or holding a unit) or waiting.
	state []pstate
}

type pstate uint8

const (
	idle pstate = iota
	waiting
	holding
)

// Header is the first line of a trace.
type Header struct {
	Scenario  any    `json:"scenario,omitempty"` // the run's settings
	Seed      uint64 `json:"seed"`
	Algorithm string `json:"algorithm"`
	Kind      string `json:"kind"`
	Processes int    `json:"processes"`
	Users     int    `json:"users"`
	// Edges, on a dining graph: resource i is shared by the two processes
	// of Edges[i].
	Edges [][2]proc.ID `json:"edges,omitempty"`
}

// Header writes the header line; call it before any event.
func (t *Writer) Header(h Header) {
	if t.err != nil {
		return
	}
	body, err := json.Marshal(h)
	if err != nil {
		t.err = err
		return
	}
	t.buf = append(t.buf[:0], `{"t":0,"ev":"header","p":-1,`...)
	t.buf = append(t.buf, body[1:]...)
	t.buf = append(t.buf, '\n')
	_, t.err = t.w.Write(t.buf)
}

// End writes the end line at tick at: the processes still holding and
// still waiting, as the events written so far show them (a crashed process
// as it was when it crashed).
func (t *Writer) End(at proc.Time) {
	if t.err != nil {
		return
	}
	t.buf = append(t.buf[:0], `{"t":`...)
	t.buf = strconv.AppendInt(t.buf, int64(at), 10)
	t.buf = append(t.buf, `,"ev":"end","p":-1`...)
	for _, f := range []struct {
		name string
		want pstate
	}{{"holding", holding}, {"open", waiting}} {
		t.buf = append(t.buf, `,"`+f.name+`":[`...)
		first := true
		for p, st := range t.state {
			if st != f.want {
				continue
			}
			if !first {
				t.buf = append(t.buf, ',')
			}
			first = false
			t.buf = strconv.AppendInt(t.buf, int64(p), 10)
		}
		t.buf = append(t.buf, ']')
	}
	t.buf = append(t.buf, "}\n"...)
	_, t.err = t.w.Write(t.buf)
}

func (t *Writer) follow(e proc.Event) {
	var st pstate
	switch e.Kind {
	case proc.EvRequest, proc.EvAcquire:
		st = waiting
	case proc.EvEnter, proc.EvGrant:
		st = holding
	case proc.EvExit, proc.EvRelease, proc.EvPermit, proc.EvReject:
		st = idle
	default:
		return
	}
	t.state = dense.Grow(t.state, int(e.P))
	t.state[e.P] = st
}

// NewWriter writes to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 1<<16), buf: make([]byte, 0, 128)}
}

// Event implements proc.Sink.
func (t *Writer) Event(e proc.Event) {
	if t.err != nil {
		return
	}
	t.follow(e)
	t.buf = Append(t.buf[:0], e)
	t.buf = append(t.buf, '\n')
	_, t.err = t.w.Write(t.buf)
}

// Flush writes buffered events and reports the first error.
func (t *Writer) Flush() error {
	if t.err != nil {
		return t.err
	}
	return t.w.Flush()
}

// Append appends the JSON form of e (no newline).
func Append(b []byte, e proc.Event) []byte {
	b = append(b, `{"t":`...)
	b = strconv.AppendInt(b, int64(e.Time), 10)
	b = append(b, `,"ev":"`...)
	b = append(b, e.Kind.String()...)
	b = append(b, `","p":`...)
	b = strconv.AppendInt(b, int64(e.P), 10)
	switch e.Kind {
	case proc.EvRequest, proc.EvEnter:
		b = append(b, `,"res":[`...)
		for i, r := range e.Res {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(r), 10)
		}
		b = append(b, ']')
	case proc.EvGrant, proc.EvRelease:
		b = append(b, `,"unit":`...)
		b = strconv.AppendInt(b, int64(e.Unit), 10)
	case proc.EvName:
		b = append(b, `,"name":`...)
		b = strconv.AppendInt(b, int64(e.Unit), 10)
	case proc.EvSend, proc.EvDeliver:
		if e.Kind == proc.EvSend {
			b = append(b, `,"to":`...)
		} else {
			b = append(b, `,"from":`...)
		}
		b = strconv.AppendInt(b, int64(e.Peer), 10)
		b = append(b, `,"msg":`...)
		b = strconv.AppendQuote(b, e.Msg)
	case proc.EvMove:
		b = append(b, `,"unit":`...)
		b = strconv.AppendInt(b, int64(e.Unit), 10)
		b = append(b, `,"from":`...)
		b = strconv.AppendInt(b, int64(e.Peer), 10)
	case proc.EvOutput, proc.EvExtInput:
		b = append(b, `,"comm":`...)
		b = strconv.AppendInt(b, int64(e.Unit), 10)
		b = append(b, `,"partners":[`...)
		for i, m := range e.Members {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(m), 10)
		}
		b = append(b, ']')
	case proc.EvInput, proc.EvReceive:
		b = append(b, `,"comm":`...)
		b = strconv.AppendInt(b, int64(e.Unit), 10)
		b = append(b, `,"from":`...)
		b = strconv.AppendInt(b, int64(e.Peer), 10)
	case proc.EvView, proc.EvFence:
		b = append(b, `,"epoch":`...)
		b = strconv.AppendUint(b, e.Epoch, 10)
		if e.Kind == proc.EvView {
			b = append(b, `,"members":[`...)
			for i, m := range e.Members {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, int64(m), 10)
			}
			b = append(b, ']')
		}
	}
	if e.S != nil {
		// A session event (allot sim --kind service): its session, and
		// an answered lock's token epoch.
		if e.Kind == proc.EvEnter {
			b = append(b, `,"epoch":`...)
			b = strconv.AppendUint(b, e.Epoch, 10)
		}
		s, err := json.Marshal(e.S)
		if err != nil {
			panic(err) // a struct of numbers and booleans always marshals
		}
		b = append(b, `,"s":`...)
		b = append(b, s...)
	}
	return append(b, '}')
}

type line struct {
	T        proc.Time     `json:"t"`
	Ev       string        `json:"ev"`
	P        proc.ID       `json:"p"`
	Res      []proc.ResID  `json:"res"`
	Unit     int32         `json:"unit"`
	Name     *int32        `json:"name"`
	Comm     *int32        `json:"comm"`
	Partners []proc.ID     `json:"partners"`
	To       *proc.ID      `json:"to"`
	From     *proc.ID      `json:"from"`
	Msg      string        `json:"msg"`
	Epoch    uint64        `json:"epoch"`
	Members  []proc.ID     `json:"members"`
	S        *proc.Session `json:"s"`
}

// Read parses a JSONL trace and passes each event to sink.
func Read(r io.Reader, sink proc.Sink) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return fmt.Errorf("trace line %d: %w", n, err)
		}
		if l.Ev == "header" || l.Ev == "end" {
			continue // meta lines
		}
		k, err := proc.ParseEventKind(l.Ev)
		if err != nil {
			return fmt.Errorf("trace line %d: %w", n, err)
		}
		e := proc.Event{Time: l.T, Kind: k, P: l.P, Res: l.Res, Unit: l.Unit, Msg: l.Msg, Epoch: l.Epoch, Members: l.Members, S: l.S}
		if l.Name != nil {
			e.Unit = *l.Name
		}
		if l.Comm != nil {
			e.Unit = *l.Comm
		}
		if l.Partners != nil {
			e.Members = l.Partners
		}
		if l.To != nil {
			e.Peer = *l.To
		}
		if l.From != nil {
			e.Peer = *l.From
		}
		sink.Event(e)
	}
	return sc.Err()
}
