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

	"allot/proc"
)

// Writer is a proc.Sink that writes JSONL. Call Flush at the end; the
// first write error is kept and returned by Flush.
type Writer struct {
	w   *bufio.Writer
	buf []byte
	err error
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
	case proc.EvSend, proc.EvDeliver:
		if e.Kind == proc.EvSend {
			b = append(b, `,"to":`...)
		} else {
			b = append(b, `,"from":`...)
		}
		b = strconv.AppendInt(b, int64(e.Peer), 10)
		b = append(b, `,"msg":`...)
		b = strconv.AppendQuote(b, e.Msg)
	}
	return append(b, '}')
}

type line struct {
	T    proc.Time    `json:"t"`
	Ev   string       `json:"ev"`
	P    proc.ID      `json:"p"`
	Res  []proc.ResID `json:"res"`
	Unit int32        `json:"unit"`
	To   *proc.ID     `json:"to"`
	From *proc.ID     `json:"from"`
	Msg  string       `json:"msg"`
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
		k, err := proc.ParseEventKind(l.Ev)
		if err != nil {
			return fmt.Errorf("trace line %d: %w", n, err)
		}
		e := proc.Event{Time: l.T, Kind: k, P: l.P, Res: l.Res, Unit: l.Unit, Msg: l.Msg}
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
