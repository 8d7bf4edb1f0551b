package chaos

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/allot-dev/allot/client"
)

// Event is one line of a client-side history (JSONL): the invocation or
// the outcome of one operation of one client, stamped with the machine's
// wall clock (the nodes' event logs use the same clock, so both merge).
//
// A client is one goroutine running operations one at a time; its id is
// "GROUP/wK", where GROUP is its goroutine group ("g1") or its process
// incarnation ("p3"). The harness writes events of its own under the
// client "harness": "killed" (Keys: the group whose process got kill -9),
// and the faults (Fault).
type Event struct {
	T      int64  `json:"t"` // Unix nanoseconds
	Client string `json:"c"`
	// Op: lock, unlock, acquire, release, take, read, write; session (a
	// new session opened), done (its Done closed: what it holds may be
	// someone else's), abandon
	// (the client stopped keeping its session alive and pauses), killed.
	Op string `json:"op"`
	// Type: invoke, ok, fail (the operation did not happen, or may not
	// have: a failed write is not acknowledged), info (done, abandon,
	// killed).
	Type string `json:"type"`
	// Keys: a lock's resources, a semaphore's "NAME/R" (invoke) or
	// "NAME/R/UNIT" (ok), a quota's name, the store key read or written.
	Keys []string `json:"keys,omitempty"`
	// Tokens: the fencing token of each key (ok of lock and acquire; the
	// token a read or write carried).
	Tokens  []client.Token `json:"tokens,omitempty"`
	N       int            `json:"n,omitempty"`       // permits of a take
	Version int            `json:"version,omitempty"` // read: the version seen; write: the version written
	Err     string         `json:"err,omitempty"`
	// TTL: the session's TTL (session). Histories written before it was
	// recorded have none, and the checker's rule on expiry skips them.
	TTL time.Duration `json:"ttl,omitempty"`
	// Renewed: when the last keep-alive of the session that its node
	// answered was sent, in Unix nanoseconds (client.Session.Renewed), as
	// of a fail answered ErrSessionExpired, and of done.
	Renewed int64 `json:"renewed,omitempty"`
}

// History collects a client's (or several clients') events and writes
// each at once to w, so a process killed mid-run leaves every event it
// recorded before.
type History struct {
	mu  sync.Mutex
	w   io.Writer
	buf []Event // kept in memory too when w is nil
}

// NewHistory writes to w (nil: memory only; Events returns them).
func NewHistory(w io.Writer) *History { return &History{w: w} }

// Put stamps e with the time now and records it.
func (h *History) Put(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e.T = time.Now().UnixNano()
	if h.w == nil {
		h.buf = append(h.buf, e)
		return
	}
	b, _ := json.Marshal(e) // an Event always marshals
	h.w.Write(append(b, '\n'))
}

// Events returns the events recorded in memory.
func (h *History) Events() []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Event(nil), h.buf...)
}

// ReadHistory reads a history file. A last line cut short (the process
// was killed while writing it) is dropped.
func ReadHistory(r io.Reader) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	var bad error
	for line := 1; sc.Scan(); line++ {
		if bad != nil {
			return out, bad
		}
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			bad = fmt.Errorf("line %d: %w", line, err)
			continue
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// group is the group of a client id ("g1/w0" → "g1").
func group(id string) string {
	g, _, _ := strings.Cut(id, "/")
	return g
}
