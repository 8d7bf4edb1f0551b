package proc

import "fmt"

// EventKind is the type of a semantic event. Its String form is the "ev"
// field of the trace format.
type EventKind uint8

// The semantic events of the trace contract. EvNone is the zero value and is
// never emitted.
const (
	EvNone      EventKind = iota
	EvRequest             // exclusive: the application asks for Res
	EvEnter               // exclusive: the process enters its critical section holding Res
	EvExit                // exclusive: the process leaves its critical section
	EvAcquire             // pool: the application asks for one unit
	EvGrant               // pool: the process now uses Unit
	EvRelease             // pool: the process gives Unit back
	EvPermit              // quota: a permit is issued at the process
	EvReject              // quota: a request is rejected at the process
	EvExhausted           // quota: the resource-exhausted signal
	EvCrash               // the process fails (fail-stop)
	EvSend                // a message is sent (only with message tracing)
	EvDeliver             // a message is delivered (only with message tracing)
	EvName                // quota, name assignment: the process is given the name Unit
	EvDeposit             // bank: a deposit of one unit at the process is acknowledged
	EvWithdraw            // bank: a withdrawal of one unit at the process is granted
	EvMove                // pool: Unit arrives at the process from Peer (a unit's migration)
	EvView                // control plane: the process starts serving the view Epoch of Members
	EvFence               // control plane: the process stops serving (its view ended, or its lease ran out)
	EvRestart             // the process restarts from what it persisted (its volatile state is lost)
	EvOutput              // Social-CSP: the process makes extended output number Unit to the partners Members
	EvInput               // Social-CSP: the process receives its value of Peer's extended output number Unit
	EvPause               // the process is stopped (SIGSTOP): it handles nothing until EvResume
	EvResume              // the stopped process goes on; what came due meanwhile is handled now
	// The data plane's sessions (allot sim --kind service); S says which
	// session, grant and lease. A client's events are what it was told
	// and what it did; a node's, what it decided.
	EvOpened  // node: the process opened session S.ID for a client
	EvAlive   // client: a keep-alive (or the open) of S.ID sent at S.Sent was answered with S.TTL and S.Lease (S.Backup: by the session's backup, which keeps it S.Kept if S.Said)
	EvExpired // client: a call of S.ID sent at S.Sent was answered "session expired"
	EvGiveUp  // client: the open lock request S.Grant (its client-side number) is given up: its session is lost
	EvHeld    // node: the process holds grant S.Grant of session S.ID (answered, or asked again in a new view)
	EvEnded   // node: session S.ID ended at the process, its end recorded at its backup (or with none)
	EvAdopted // node: the process adopted session S.ID from its lost primary
	EvHanded  // node: the process dropped session S.ID without a recorded end (it stopped serving): its backup adopts it
	// Social-CSP's extended input command.
	EvExtInput // Social-CSP: the process makes extended input number Unit from the partners Members
	EvReceive  // Social-CSP: the process receives partner Peer's value for its extended input number Unit
	// EvIssued: node: the process's instance of quota S.Quota issued it
	// S.Permits permits (left out: one) for a Take of session S.ID: what
	// the quota's budget bounds, told to a client or not.
	EvIssued
	numEventKinds
)

var eventNames = [numEventKinds]string{
	"none", "request", "enter", "exit", "acquire", "grant", "release",
	"permit", "reject", "exhausted", "crash", "send", "deliver", "name",
	"deposit", "withdraw", "move", "view", "fence", "restart", "output",
	"input", "pause", "resume", "opened", "alive", "expired", "giveup",
	"held", "ended", "adopted", "handed", "ext-input", "receive",
	"issued",
}

func (k EventKind) String() string {
	if k < numEventKinds {
		return eventNames[k]
	}
	return fmt.Sprintf("event(%d)", uint8(k))
}

// ParseEventKind is the inverse of EventKind.String.
func ParseEventKind(s string) (EventKind, error) {
	for k, n := range eventNames {
		if n == s && k != int(EvNone) {
			return EventKind(k), nil
		}
	}
	return EvNone, fmt.Errorf("unknown event %q", s)
}

// Event is one semantic event. Fields that do not apply to a kind are zero.
type Event struct {
	Time Time
	Kind EventKind
	P    ID      // the process the event happens at
	Res  []ResID // EvRequest, EvEnter: the resources (never mutated once emitted)
	Unit int32   // EvGrant, EvRelease: the pool unit; EvName: the name
	// Peer and Msg describe EvSend and EvDeliver: the other end and the
	// message kind.
	Peer ID
	Msg  string
	// Epoch and Members describe EvView: the view's epoch (its position
	// in the control plane's log) and its members, ascending. Epoch is
	// also the epoch EvFence ends. Members are also EvOutput's and
	// EvExtInput's partners, in the order of the values sent or asked.
	Epoch   uint64
	Members []ID
	// S describes the data plane's session events (EvOpened .. EvHanded,
	// EvIssued),
	// and EvRequest, EvEnter and EvExit of a session's lock, or of a
	// semaphore's unit, and EvPermit and EvReject of a quota's Take, at a
	// client (nil elsewhere; never mutated once emitted). A lock's say its names in Res; a semaphore's have no Res
	// and say the semaphore in S.Sem and S.Units.
	S *Session
}

// Session is what a session event says. Times are ticks of the run.
// Its trace form is the object "s", with the fields named below; zero
// fields are left out.
type Session struct {
	ID uint64 `json:"id"` // the session
	// Grant: the grant (EvHeld, EvEnter, EvExit), or the client's number
	// of its lock request (EvRequest, EvGiveUp).
	Grant uint64 `json:"grant,omitempty"`
	// Call: the client's call (its request's number) that a node's grant
	// answers (EvHeld: the Lock or Acquire it was asked by; 0 for a grant
	// asked again for an adopted or moved session, which answers
	// nobody), or that its client was answered with nothing granted
	// (EvGiveUp: TAKEN, NODE_LIMIT, UNITS_MISMATCH, SESSION_MOVING; 0
	// for a request given up otherwise, which may be granted). A session
	// is one client's, so a session and a call name one request.
	Call uint64 `json:"call,omitempty"`
	// Counter: the fencing counter of a grant's token (EvEnter), issued
	// in view Event.Epoch.
	Counter uint64 `json:"counter,omitempty"`
	// Sem, Units: a semaphore's request, grant and its end (EvRequest,
	// EvEnter, EvExit): semaphore Sem of Units units (R); Units 0: a
	// lock's. A semaphore's grant is one unit, and Unit is the one its
	// token names, a unit of view Event.Epoch (EvEnter): the token is
	// (Epoch, Counter) on that unit (the service's unit key,
	// sem/NAME/UNITS/UNIT@EPOCH).
	Sem   int32 `json:"sem,omitempty"`
	Units int32 `json:"units,omitempty"`
	Unit  int32 `json:"unit,omitempty"`
	// Quota: the quota of a Take's EvRequest, and of the EvPermit or
	// EvReject that answers it at its client: the run's quotas are
	// numbered from 1, so 0 says no Take.
	Quota int32 `json:"quota,omitempty"`
	// Permits: a Take's count: the permits its EvRequest asks, and those
	// its client was told it got (EvPermit: all it asked, or those a
	// Take cut short or rejected took first, QUOTA_EXHAUSTED's and
	// TAKE_CUT_SHORT's "taken"). 0, left out, is one: a Take of one
	// permit, the only kind before the count, so older traces read the
	// same.
	Permits int32 `json:"permits,omitempty"`
	// Sent: when the client sent the call answered (EvAlive, EvExpired).
	Sent Time `json:"sent,omitempty"`
	// TTL, Lease: the session's TTL and the answering node's lease left
	// (EvAlive; zero lease: none said).
	TTL   Time `json:"ttl,omitempty"`
	Lease Time `json:"lease,omitempty"`
	// Backup: the answer came from the session's backup (SESSION_MOVING),
	// which keeps the session Kept more if Said.
	Backup bool `json:"backup,omitempty"`
	Said   bool `json:"said,omitempty"`
	Kept   Time `json:"kept,omitempty"`
}

// Count is a Take's count in s (Permits): one when left out.
func (s *Session) Count() int {
	if s.Permits <= 0 {
		return 1
	}
	return int(s.Permits)
}

// Served reports whether e answers an application request.
func (e Event) Served() bool {
	return e.Kind == EvEnter || e.Kind == EvGrant || e.Kind == EvPermit || e.Kind == EvReject ||
		e.Kind == EvDeposit || e.Kind == EvWithdraw
}

// Sink consumes events in execution order.
type Sink interface {
	Event(e Event)
}

// Sinks fans one event stream out to several sinks.
type Sinks []Sink

// Event passes e to every sink in order.
func (s Sinks) Event(e Event) {
	for _, k := range s {
		k.Event(e)
	}
}
