package dataplane

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/session"
)

// Op is a client's call.
type Op uint8

// The calls of the service's API that the data plane models.
const (
	OpOpen Op = iota + 1
	OpKeepAlive
	OpLock
	OpUnlock
	OpClose
	OpAcquire
	OpRelease
	OpTake
	// OpHolders asks a node which grants of session Session hold lock
	// name Names[0], or, with no Names, semaphore Sem (the service's
	// Holders with a session: holders.go): Reply.Holders.
	OpHolders
)

// Key is what a grant is on, and so the instance that serves it in a
// view: the lock (the zero Key), semaphore Sem of Units units (R: the
// service's AcquireRequest.Units, fixed for the run; the lock's names
// get their ids per view, names.go), or, with Quota, quota Sem (its
// index in the control plane's Config.Quotas), whose permits are not
// grants: they are never recorded, held or given back.
type Key struct {
	Sem   int32
	Units int32 // 0: the lock, or a quota
	Quota bool
}

// Lock reports whether k is the lock.
func (k Key) Lock() bool { return k.Units == 0 && !k.Quota }

// String is the key as the service's records name it (space.Key):
// "lock", or "sem/NAME/UNITS", the semaphore's id its name; a quota's
// "quota/I", which no record names.
func (k Key) String() string {
	switch {
	case k.Quota:
		return fmt.Sprintf("quota/%d", k.Sem)
	case k.Lock():
		return "lock"
	}
	return fmt.Sprintf("sem/%d/%d", k.Sem, k.Units)
}

// parseKey is the inverse of Key.String.
func parseKey(s string) (Key, error) {
	if s == "lock" {
		return Key{}, nil
	}
	f := strings.Split(s, "/")
	if len(f) != 3 || f[0] != "sem" {
		return Key{}, fmt.Errorf("dataplane: no key %q", s)
	}
	sem, err1 := strconv.ParseInt(f[1], 10, 32)
	units, err2 := strconv.ParseInt(f[2], 10, 32)
	if err1 != nil || err2 != nil || sem < 0 || units < 1 {
		return Key{}, fmt.Errorf("dataplane: no key %q", s)
	}
	return Key{Sem: int32(sem), Units: int32(units)}, nil
}

// Call is a client's call to a node: Req, the client's number of it, is
// in the answer. OpAcquire asks one unit of semaphore Sem of Units units
// (the service's Acquire: a grant is one unit); OpRelease gives a
// semaphore's grant back as OpUnlock gives a lock's. OpTake takes N
// permits of quota Sem, one at a time (the service's Take; see the
// package doc).
type Call struct {
	Op      Op
	Req     uint64
	Session uint64
	Grant   uint64    // OpUnlock, OpRelease
	TTL     proc.Time // OpOpen
	Names   []int32   // OpLock: the lock's names (the node resolves them to resource ids per view)
	Sem     int32     // OpAcquire: the semaphore; OpTake: the quota
	Units   int32     // OpAcquire: its units, R
	N       int64     // OpTake: the permits asked (the service's TakeRequest.n), 1 to the quota's budget
	// Try: OpLock, OpAcquire: the service's TryLock and TryAcquire (see
	// Node's try): answered Taken, its request withdrawn, when it would
	// wait behind another user, or after Config.TryWait.
	Try bool
}

func (Call) Kind() string { return "call" }

// Code is an answer's status, as the service's gRPC codes and reasons.
type Code uint8

// The answers.
const (
	OK          Code = iota + 1
	Moving           // UNAVAILABLE, SESSION_MOVING: the node keeps the session as its backup
	NotHere          // UNAVAILABLE, SESSION_NOT_HERE: the session may be alive elsewhere
	Expired          // NOT_FOUND, SESSION_EXPIRED
	Unavailable      // UNAVAILABLE: the node is not serving, or its backup kept nothing
	NotHeld          // FAILED_PRECONDITION: the session holds no such grant
	Invalid          // INVALID_ARGUMENT: a semaphore of no units, or of a negative id; no such quota, a take of N outside 1..its budget
	Exhausted        // RESOURCE_EXHAUSTED, QUOTA_EXHAUSTED: the quota's controller rejected the permit
	NodeLimit        // RESOURCE_EXHAUSTED, NODE_LIMIT: the node has its most sessions open, or lock requests (a large semaphore's) at once
	Mismatch         // FAILED_PRECONDITION, UNITS_MISMATCH: the control log has other units for the semaphore (Reply.Units)
	Taken            // FAILED_PRECONDITION, TAKEN: a try ("busy"): it gave up, its request withdrawn; nothing was granted
)

// Reply is a node's answer to a Call.
type Reply struct {
	Req     uint64
	Code    Code
	Session uint64
	Grant   uint64
	// Epoch, Counter: a grant's token (OpLock, OpAcquire); Unit: the
	// unit of view Epoch a semaphore's token names (OpAcquire).
	Epoch, Counter uint64
	Unit           int32
	// TTL, Lease: the session's TTL and the node's lease left (OK to
	// OpOpen and OpKeepAlive; Moving: the backup's lease).
	TTL, Lease proc.Time
	// Kept, Said: Moving: how long the backup would keep the session if
	// it adopted it now; Primary: the session's node, as the backup knows.
	Kept    proc.Time
	Said    bool
	Primary proc.ID
	// Permits: OpTake: the permits the Take got, consumed whatever the
	// answer: OK, all it asked (TakeResponse.permits); another code, the
	// ErrorInfo's "taken" (QUOTA_EXHAUSTED with Exhausted, TAKE_CUT_SHORT
	// with another code when above 0).
	Permits int64
	// Units: Mismatch: the semaphore's units as the control log has
	// them (the service's ErrorInfo "units").
	Units int32
	// Holders: OpHolders: the grants of the session that hold the name
	// or the semaphore asked, in the order they were granted (none if
	// the node does not serve the session: the answer is OK all the
	// same, as the service's).
	Holders []Holder
}

func (Reply) Kind() string { return "reply" }

// Holder is a grant held, as the service's Holders answers it (pb.Holder):
// its id, its key (the lock, or a semaphore with its units), a lock's
// names (sorted), and its token: view Epoch, Counter and, a semaphore's,
// the unit of view Epoch it names.
type Holder struct {
	Grant          uint64
	Key            Key
	Names          []int32
	Epoch, Counter uint64
	Unit           int32
}

// Keep is a primary's records at its backup (the service's Backup.Keep
// stream): Gen is the primary's generation in view Epoch, To the
// backup's (the service's KeepRequest does not say it); the record
// numbered 1 is the run's first at this backup (it forgets what it kept
// of the run before).
type Keep struct {
	Primary proc.ID
	Gen, To uint64
	Epoch   uint64
	Recs    []KeepRec
}

// KeepRec is one record and its number in the primary's outbox.
type KeepRec struct {
	N      uint64
	Record session.Record
}

func (Keep) Kind() string { return "keep" }

// KeepAck is the backup's answer: every record up to N of the primary's
// generation Gen is kept.
type KeepAck struct {
	Gen uint64
	N   uint64
}

func (KeepAck) Kind() string { return "keep-ack" }

// Resolve asks lock name Name's home for its id in view Epoch of
// Members (the service's names.Resolve, on the link space "names"): the
// view travels with the question, as a home may hear it before it has
// adopted the view itself, and its range in the view depends on the
// members.
type Resolve struct {
	Epoch   uint64
	Members []proc.ID
	Name    int32
}

func (Resolve) Kind() string { return "resolve" }

// Resolved is the home's answer: Name's resource id in view Epoch.
type Resolved struct {
	Epoch uint64
	Name  int32
	Res   proc.ResID
}

func (Resolved) Kind() string { return "resolved" }

// Inst carries a message of the instance of Key in view Epoch (the
// lock's, or a semaphore's) between its processes From and To, hosted on
// two nodes, with the sender's Lamport time (the fencing counters'
// clock).
type Inst struct {
	Epoch    uint64
	Key      Key
	From, To proc.ID
	Stamp    uint64
	M        proc.Message
}

func (m Inst) Kind() string { return m.M.Kind() }

// Link carries a node-to-node message of the data plane on the link from
// one run of a node to another node: numbered, resent until acknowledged
// and taken in order (the service's links: a session layer over TCP).
// Base is the oldest message not acknowledged and not given up: where a
// receiver that never heard of the sender's run starts, and what it
// skips to when the sender gave up older ones (those of a retired view's
// instance).
type Link struct {
	Run       uint64
	Base, Seq uint64
	M         proc.Message
}

func (m Link) Kind() string { return m.M.Kind() }

// LinkAck acknowledges every message up to Seq of the sender's run Run.
type LinkAck struct{ Run, Seq uint64 }

func (LinkAck) Kind() string { return "link-ack" }

// The timers of a Process.
type (
	// tickTimer is a Raft tick of the control node.
	tickTimer struct{}
	// dataTimer looks at the sessions' deadlines and the records' waits.
	dataTimer struct{}
	// resendTimer resends what the links have not had acknowledged.
	resendTimer struct{}
	// refreshTimer: the leader proposes a refresh of the view.
	refreshTimer struct{}
	// tryTimer is try Grant's TryWait over, for its N-th ask (Node.TryOut).
	tryTimer struct{ Grant, N uint64 }
	// instTimer is a timer of process P of the instance of Key in Epoch.
	instTimer struct {
		Epoch uint64
		Key   Key
		P     proc.ID
		T     proc.Timer
	}
)
