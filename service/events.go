package service

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/allot-dev/allot/proc"
)

// Record is one line of a node's event log (JSONL): an event of an
// algorithm instance at a process of the node, stamped with the machine's
// wall clock so the logs of the nodes of one machine merge into one
// stream. Ev is a trace event name (request, enter, exit, acquire, grant,
// release, view, fence; move: Unit arrives at P from From), or "fenced":
// the tokens Keys got, while the process holds them. A view or fence
// record is the node's (no Instance): it starts serving the view Epoch of
// Members, or stops serving Epoch.
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

// evOwner is the record, after a request, of the session's grant it is
// for: a grant asked again in a later view is one holder across both.
const evOwner = "owner"

// evRetired is the record of an instance of a view stopped because a later
// view replaced it: its requests still open then are asked again in the
// later view, not answered in this one.
const evRetired = "retired"

// evClosed is the record of an instance a node closed as it shut down: its
// requests still open then are never answered, because the node stopped.
const evClosed = "closed"

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

// ReadEvents reads an event log.
func ReadEvents(r io.Reader) ([]Record, error) {
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

// eventLog writes a node's records. The time is read under the lock, so
// the records of a node are in time order; a record is written before the
// messages its event causes are sent, so merging the nodes' logs by time
// keeps cause before effect.
type eventLog struct {
	node int
	mu   sync.Mutex
	w    io.Writer
	buf  *bufio.Writer
}

func (l *eventLog) put(r Record) {
	if l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf == nil {
		l.buf = bufio.NewWriter(l.w)
	}
	r.T = time.Now().UnixNano()
	r.Node = l.node
	b, _ := json.Marshal(r) // a Record always marshals
	l.buf.Write(append(b, '\n'))
}

// eventSink writes the events of one instance's host to the node's log.
type eventSink struct {
	l   *eventLog
	key string
}

func (s eventSink) Event(e proc.Event) {
	r := Record{Instance: s.key, Ev: e.Kind.String(), P: e.P, Res: e.Res, Unit: e.Unit}
	if e.Kind == proc.EvMove {
		r.From = &e.Peer
	}
	s.l.put(r)
}

// fenced records the counter given to the grant of keys at process p.
func (l *eventLog) fenced(space string, p proc.ID, keys []string, epoch, counter uint64) {
	cs := make([]uint64, len(keys))
	for i := range cs {
		cs[i] = counter
	}
	l.put(Record{Instance: space, Ev: "fenced", P: p, Keys: keys, Epoch: epoch, Counters: cs})
}

func (l *eventLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf != nil {
		l.buf.Flush()
	}
}
