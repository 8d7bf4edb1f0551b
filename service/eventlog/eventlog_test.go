package eventlog

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-dev/allot/proc"
)

// TestWriteRead writes a node's records and reads them back: stamped
// with the node and a time that does not go back, the fields kept, the
// trace's events turned back into proc.Events.
func TestWriteRead(t *testing.T) {
	var b bytes.Buffer
	l := New(&b, 2)
	l.Put(Record{Instance: "lock@1:0.2", Ev: "request", P: 3, Res: []proc.ResID{4}})
	l.Fenced("lock@1:0.2", 3, []string{"lock/4", "lock/5"}, 1, 7)
	l.Sink("sem/s/1@1:0.2").Event(proc.Event{Kind: proc.EvMove, P: 1, Peer: 0, Unit: 1})
	if b.Len() != 0 {
		t.Fatalf("written before Flush: %q", b.String())
	}
	l.Flush()
	recs, err := Read(&b)
	if err != nil || len(recs) != 3 {
		t.Fatalf("Read = %d records, %v", len(recs), err)
	}
	for i, r := range recs {
		if r.Node != 2 || r.T == 0 || i > 0 && r.T < recs[i-1].T {
			t.Errorf("record %d stamped node %d, time %d", i, r.Node, r.T)
		}
	}
	if f := recs[1]; f.Ev != Fenced || len(f.Counters) != 2 || f.Counters[1] != 7 || f.Epoch != 1 {
		t.Errorf("fenced record %+v", f)
	}
	e, err := recs[2].Event()
	if err != nil || e.Kind != proc.EvMove || e.Unit != 1 || e.Peer != 0 || recs[2].From == nil {
		t.Errorf("move record %+v as %+v, %v", recs[2], e, err)
	}
	if _, err := (Record{Ev: Owner}).Event(); err == nil {
		t.Error("the node's own owner record read as a trace event")
	}
}

// TestReadBad names the line that is not a record.
func TestReadBad(t *testing.T) {
	recs, err := Read(strings.NewReader("{\"t\":1,\"ev\":\"enter\"}\n{\"t\":\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "line 2:") || len(recs) != 1 {
		t.Errorf("Read = %d records, %v; want line 2's error after 1", len(recs), err)
	}
}

// stuckWriter is a disk that holds each Write until release is closed.
type stuckWriter struct {
	writing chan struct{} // gets a value when a Write begins
	release chan struct{}
	mu      sync.Mutex
	b       bytes.Buffer
}

func (w *stuckWriter) Write(p []byte) (int, error) {
	w.writing <- struct{}{}
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// TestPutDoesNotWaitForTheDisk: while Flush waits on a slow writer, Put
// returns at once; what was put meanwhile goes out with the next Flush,
// after what the first wrote.
func TestPutDoesNotWaitForTheDisk(t *testing.T) {
	w := &stuckWriter{writing: make(chan struct{}, 1), release: make(chan struct{})}
	l := New(w, 3)
	l.Put(Record{Instance: "lock@1", Ev: "enter", P: 1})
	flushed := make(chan struct{})
	go func() { l.Flush(); close(flushed) }()
	<-w.writing
	put := make(chan struct{})
	go func() { l.Put(Record{Instance: "lock@1", Ev: "exit", P: 1}); close(put) }()
	select {
	case <-put:
	case <-time.After(5 * time.Second):
		t.Fatal("Put waited for the writer")
	}
	close(w.release)
	<-flushed
	go func() { <-w.writing }()
	l.Flush()
	rs, err := Read(bytes.NewReader(w.b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Ev != "enter" || rs[1].Ev != "exit" || rs[0].Node != 3 || rs[1].T < rs[0].T {
		t.Errorf("written: %+v, want enter then exit of node 3", rs)
	}
}
