package session

import (
	"maps"
	"slices"
	"strconv"
)

// GrantState is where a grant stands in its life at the node that
// serves its session. The zero GrantState is Waiting: a grant is made
// when its request is asked, before any answer.
type GrantState uint8

const (
	// Waiting: asked, not answered yet.
	Waiting GrantState = iota
	// Answered: answered to its client, held until it is given back.
	// Only a held grant is recorded at the backup, adopted, asked again
	// in a new view, or answered again to a request asked anew.
	Answered
	// Released: given back (once: its resources go back once).
	Released
	// Lost: its session ended, or its request was withdrawn, before the
	// answer: nobody holds it, and an answer that comes for it is given
	// back (the session could not give it back: it found it waiting).
	Lost
)

func (s GrantState) String() string {
	switch s {
	case Waiting:
		return "waiting"
	case Answered:
		return "answered"
	case Released:
		return "released"
	case Lost:
		return "lost"
	}
	return "GrantState(" + strconv.Itoa(int(s)) + ")"
}

// GrantLife is the part of a driver's grant that the session's rules
// read and move: its id, the client's number of its request, and its
// state. A driver's grant embeds it (Grants reaches it so: Granted), and
// guards it with its session's lock, as it does Session.
type GrantLife struct {
	ID uint64
	// Call is the client's number of the request (0: none): the client
	// asks a request again under its number when it did not get the
	// answer, and gets this grant if it is held (Grants.Asked).
	Call  uint64
	State GrantState
}

func (l *GrantLife) life() *GrantLife { return l }

// Answer marks the grant answered, unless it is lost: false then, and
// the caller gives it back.
func (l *GrantLife) Answer() bool {
	switch l.State {
	case Waiting:
		l.State = Answered
	case Lost:
		return false
	}
	return true
}

// Release marks the grant given back; first is false if it was already,
// so that the driver gives its resources back once.
func (l *GrantLife) Release() (first bool) {
	first = l.State != Released
	l.State = Released
	return first
}

// Lose marks a waiting grant lost: its session ended, or its request was
// withdrawn. An answered one stays held, for its session (or its end) to
// give back.
func (l *GrantLife) Lose() {
	if l.State == Waiting {
		l.State = Lost
	}
}

// Held reports whether the grant is held: answered, not given back.
func (l *GrantLife) Held() bool { return l.State == Answered }

// Granted is a driver's grant, which embeds a GrantLife: Grants reads
// and moves the grant's life through it.
type Granted interface {
	comparable
	life() *GrantLife
}

// Grants is one session's grants by id, waiting and held (G: the
// driver's grant), until the session ends (End). The zero Grants is an
// open session's, with none. The driver guards it, and the GrantLife of
// each of its grants, with one lock: its session's.
type Grants[G Granted] struct {
	byID  map[uint64]G
	ended bool
}

// Add adds g, unless the session ended: false then, and g is nobody's to
// give back but the caller's.
func (t *Grants[G]) Add(g G) bool {
	if t.ended {
		return false
	}
	if t.byID == nil {
		t.byID = map[uint64]G{}
	}
	t.byID[g.life().ID] = g
	return true
}

// Get is grant id (the zero G if the session has none of that id).
func (t *Grants[G]) Get(id uint64) G { return t.byID[id] }

// Drop drops grant id, if the session has it: given back, or its request
// withdrawn (the caller marks it so).
func (t *Grants[G]) Drop(id uint64) { delete(t.byID, id) }

// Len is the number of grants, waiting and held.
func (t *Grants[G]) Len() int { return len(t.byID) }

// List is every grant, waiting and held, in the order of their ids (not
// a map's: a model driven by it makes the same moves every run).
func (t *Grants[G]) List() []G {
	out := make([]G, 0, len(t.byID))
	for _, id := range slices.Sorted(maps.Keys(t.byID)) {
		out = append(out, t.byID[id])
	}
	return out
}

// Held is the grants held, in the order of their ids: those a record of
// the session carries, and a new view asks again.
func (t *Grants[G]) Held() []G {
	return slices.DeleteFunc(t.List(), func(g G) bool { return !g.life().Held() })
}

// Asked is what a client's request number finds among a session's
// grants.
type Asked uint8

const (
	// AskedNew: no grant held under it (or it is 0): the request is to
	// be made.
	AskedNew Asked = iota
	// AskedAgain: the grant held under it answered the same request: the
	// request is answered with it (the client did not get the answer).
	AskedAgain
	// AskedOther: the grant held under it answered another request: the
	// request is refused, as a client numbers its requests afresh and
	// asks one again only as it was.
	AskedOther
)

// Asked is the grant held under the client's request number call, and
// what it says of the request asked under it; same reports whether a
// grant answered that request.
func (t *Grants[G]) Asked(call uint64, same func(G) bool) (G, Asked) {
	var none G
	if call == 0 {
		return none, AskedNew
	}
	for _, g := range t.byID { // any order: a client has one request held under a number
		if l := g.life(); l.Call != call || !l.Held() {
			continue
		}
		if !same(g) {
			return g, AskedOther
		}
		return g, AskedAgain
	}
	return none, AskedNew
}

// End ends the session's grants: held is those to give back (answered,
// not given back), and lost those still waiting, now Lost (their
// requests give them back if answered), each in the order of their ids.
// The session holds none after, and Add refuses.
func (t *Grants[G]) End() (held, lost []G) {
	for _, g := range t.List() {
		switch l := g.life(); l.State {
		case Answered:
			held = append(held, g)
		case Waiting:
			l.Lose()
			lost = append(lost, g)
		}
	}
	t.byID, t.ended = nil, true
	return held, lost
}
