// Package eventlog is an allot node's event log (JSONL): the record of
// one line, the writer the node keeps, and the reader the checkers use
// (package service/verify, the chaos harness, tests). It is its own
// package so that the node writes its log without linking the checkers
// that read it, and both sides share one record type.
//
// A line's fields and event names are a contract (docs/service.md): they
// are extended, never changed.
package eventlog

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/allot-dev/allot/proc"
)

// Record is one line of a node's event log: an event of an algorithm
// instance at a process of the node, stamped with the machine's wall
// clock so the logs of the nodes of one machine merge into one stream. Ev
// is a trace event name (request, enter, exit, acquire, grant, release,
// view, fence; move: Unit arrives at P from From), or one of the node's
// own (Fenced, Owner, Retired, Closed). A view or fence record is the
// node's (no Instance): it starts serving the view Epoch of Members, or
// stops serving Epoch. Instance is the instance's name, key@EPOCH:MEMBERS.
type Record struct {
	T        int64        `json:"t"` // Unix nanoseconds
	Node     int          `json:"node"`
	Instance string       `json:"inst"`
	Ev       string       `json:"ev"`
	P        proc.ID      `json:"p"`
	Res      []proc.ResID `json:"res,omitempty"`
	Unit     int32        `json:"unit,omitempty"`
	From     *proc.ID     `json:"from,omitempty"` // move: where the unit came from
	Keys     []string     `json:"keys,omitempty"`
	Epoch    uint64       `json:"epoch,omitempty"` // fenced: the tokens' epoch
	Counters []uint64     `json:"counters,omitempty"`
	Grant    uint64       `json:"grant,omitempty"` // owner: the session's grant
	// Members: view, the nodes of the view Epoch this node starts
	// serving (fence: Epoch is the view it stops serving).
	Members []proc.ID `json:"members,omitempty"`
}

// The node's own events, beside the trace's.
const (
	// Fenced is the record of the tokens Keys got (Epoch, Counters),
	// while process P holds them.
	Fenced = "fenced"
	// Owner is the record, after a request, of the session's grant it is
	// for: a grant asked again in a later view is one holder across both.
	// A lock's owner record also has Keys, the fenced keys of its names
	// ("lock/" + name): a name's resource id (Res) is the view's, and
	// another in the next view, so across views the holders are told by
	// name.
	Owner = "owner"
	// Retired is the record of an instance of a view stopped because a
	// later view replaced it: its requests still open then are asked
	// again in the later view, not answered in this one.
	Retired = "retired"
	// Closed is the record of an instance a node closed as it shut down:
	// its requests still open then are never answered, because the node
	// stopped.
	Closed = "closed"
)

// Event returns the record as a proc.Event (time in microseconds).
func (r Record) Event() (proc.Event, error) {
	k, err := proc.ParseEventKind(r.Ev)
	if err != nil {
		return proc.Event{}, err
	}
	e := proc.Event{Time: proc.Time(r.T / 1000), Kind: k, P: r.P, Res: r.Res, Unit: r.Unit, Epoch: r.Epoch, Members: r.Members}
	if r.From != nil {
		e.Peer = *r.From
	}
	return e, nil
}

// Read reads an event log.
func Read(r io.Reader) ([]Record, error) {
	var out []Record
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return out, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, rec)
	}
	return out, sc.Err()
}

// Log writes a node's records. The time is read under the lock, so the
// records of a node are in time order; a record is written before the
// messages its event causes are sent, so merging the nodes' logs by time
// keeps cause before effect. Records are kept in memory until Flush, which
// writes them out: Put never waits for the writer (it is called by the
// algorithms' steps, some on a link's reader, whose other messages, the
// control plane's among them, must not wait for a disk).
type Log struct {
	node int
	w    io.Writer
	wmu  sync.Mutex // held by Flush while it writes: one at a time, in order
	mu   sync.Mutex
	// pending: the records put since the last Flush; spare: the buffer
	// the last Flush wrote, for the next one (under wmu).
	pending, spare []byte
}

// New returns the log of node to w (nil: a log that writes nothing).
func New(w io.Writer, node int) *Log { return &Log{w: w, node: node} }

// Put stamps r with the time and the node and keeps it for Flush.
func (l *Log) Put(r Record) {
	if l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	r.T = time.Now().UnixNano()
	r.Node = l.node
	b, _ := json.Marshal(r) // a Record always marshals
	l.pending = append(append(l.pending, b...), '\n')
}

// Fenced records the counter given to the grant of keys at process p of
// instance.
func (l *Log) Fenced(instance string, p proc.ID, keys []string, epoch, counter uint64) {
	cs := make([]uint64, len(keys))
	for i := range cs {
		cs[i] = counter
	}
	l.Put(Record{Instance: instance, Ev: Fenced, P: p, Keys: keys, Epoch: epoch, Counters: cs})
}

// Flush writes out the records put since the last Flush, without
// holding up Put meanwhile.
func (l *Log) Flush() {
	if l.w == nil {
		return
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	out := l.pending
	l.pending = l.spare[:0]
	l.mu.Unlock()
	if len(out) > 0 {
		l.w.Write(out)
	}
	l.spare = out
}

// Sink writes the events of one instance's host to the log.
type Sink struct {
	l        *Log
	instance string
}

// Sink returns the sink of instance's events.
func (l *Log) Sink(instance string) Sink { return Sink{l, instance} }

// Event implements proc.Sink.
func (s Sink) Event(e proc.Event) {
	r := Record{Instance: s.instance, Ev: e.Kind.String(), P: e.P, Res: e.Res, Unit: e.Unit}
	if e.Kind == proc.EvMove {
		r.From = &e.Peer
	}
	s.l.Put(r)
}
