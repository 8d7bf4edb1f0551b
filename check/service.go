package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/session"
)

// Service judges the service's data path (allot sim --kind service) from
// its events alone: the clients' (EvAlive, EvExpired, EvRequest, EvEnter,
// EvExit, EvGiveUp: what each was told and did), the nodes' (EvOpened,
// EvHeld, EvEnded, EvAdopted, EvHanded, EvIssued: what each decided) and the
// driver's (EvCrash, EvRestart). Processes below Nodes are nodes, the
// others clients. It reads no node's belief: a client's hold on a lock is
// judged by the client's own lease rule, from what it was told.
//
// A client's EvRequest, EvEnter and EvExit are of a lock, its names in
// Res, or of a semaphore's unit: then S.Units is the semaphore's units
// (R, above 0), S.Sem which semaphore, and EvEnter's S.Unit the unit its
// token names, a unit of view Epoch (proc.Session). A semaphore's grant
// is one unit, as the service's Acquire. A client's Take of S.Permits
// permits (left out: one) of quota S.Quota (numbered from 1) is an
// EvRequest answered by EvPermit (S.Permits of them are the client's:
// all it asked, or those a Take rejected or cut short took first) or
// EvReject (RESOURCE_EXHAUSTED), or both, the EvPermit first.
//
// Safety:
//
//	one-holder      no two clients hold a name at once; a client holds
//	                from its grant's answer until it sends the unlock, is
//	                told its session expired, or stops counting on the
//	                session (session.Believed from each keep-alive its node
//	                answered, counted from when it sent it;
//	                session.BelievedAtBackup for its backup's answers)
//	capacity        the clients never hold more than R units of a
//	                semaphore of R units at once; a client holds a unit as
//	                it holds a lock (one-holder), until it sends the
//	                release. A semaphore's R is the units of the grants
//	                of it held at the time, else the new grant's: the
//	                control log records a semaphore's units at its first
//	                use, and forgets them at a refresh only while nobody
//	                holds it, so every grant held at once is of the units
//	                the log has (the checker does not see the log)
//	one-units       no client is granted a semaphore with other units
//	                (S.Units) than a grant of it held at the time: two
//	                clients giving one semaphore different units would
//	                use two semaphores without knowing it
//	token-order     the fencing tokens (epoch, counter) a name's grants
//	                are answered with only grow; so do those of a
//	                semaphore's unit of a view (the service's token names
//	                sem/NAME/UNITS/UNIT@EPOCH: its counters only grow)
//	grant-after-end no node holds a grant of a session (EvHeld) after the
//	                session ended (EvEnded)
//	budget          the clients are told at most Budget permits of each
//	                quota in the whole run (EvPermit, each S.Permits of
//	                them), across views, restarts and crashes: the
//	                quota's M
//	issued          the nodes' instances issue at most Budget permits of
//	                each quota in the whole run (EvIssued), told to a
//	                client or not: a permit issued and lost with its
//	                session or its node's lease is spent all the same
//	                (the paper's bound is on permits issued)
//	refused-held    no node holds a grant (EvHeld, S.Call) of a request
//	                its client was answered with nothing granted
//	                (EvGiveUp with that S.Call: a try answered TAKEN, a
//	                refusal at the node's limit or of other units, a
//	                backup's SESSION_MOVING), before or after the answer:
//	                the session would hold what its client does not know
//	                of, until it ends
//
// Liveness:
//
//	expired-alive   a client is never told its session expired on a call
//	                it sent while it counted on the session
//	unanswered      after the last fault (Healed), a lock request is
//	                answered (or given up with its session) within Bound
//	outlived        a session held by a live node ends no later than
//	                Settle after the latest of: its deadline by the lease
//	                rule (TTL + Slack after the last keep-alive its node
//	                answered was sent, or after it opened), plus, if it
//	                was adopted, the time faults were active from then to
//	                its adoption (the rule's allowance for the time its
//	                newest record took to reach the backup: a paused
//	                backup, a cut link delay it); its last adoption; and
//	                Healed
//
// Call Close at the end of the run: what was still due then is judged.
type Service struct {
	Nodes int
	// Slack is the lease rule's slack (session/doc.go: the lease);
	// Healed the tick the last fault ended; Bound and Settle the
	// liveness bounds above.
	Slack, Healed, Bound, Settle proc.Time
	// Windows are the intervals in which a fault was active (a pause, a
	// cut, a slow node, a node down), from the fault schedule.
	Windows [][2]proc.Time
	// Budget is each quota's M (0: permits are not judged).
	Budget int

	Report
	ByRule map[string]int

	sessions map[uint64]*svcSession
	holders  map[proc.ResID]*svcHold
	tokens   map[proc.ResID][2]uint64
	semHolds map[int32][]*svcHold // by semaphore, whatever its units
	units    map[semUnit][2]uint64
	ended    map[uint64]proc.Time
	clients  map[proc.ID]*svcClient
	permits  map[int32]int // told to clients, by quota
	issued   map[int32]int // issued at the nodes, by quota
	calls    map[sessionCall]*svcCall
}

// sessionCall is one request of a client: its session and its call.
type sessionCall struct{ session, call uint64 }

// svcCall is what was said of one request: a node held its grant (node,
// grant, when), its client was answered with nothing granted (refused,
// when).
type svcCall struct {
	held, refused bool
	node          proc.ID
	grant         uint64
	heldAt        proc.Time
	refusedAt     proc.Time
}

type svcSession struct {
	ttl      proc.Time
	believed proc.Time // the client counts on it until then
	direct   proc.Time // the last keep-alive its node answered was sent then
	expired  bool      // the client was told it expired
	deadline proc.Time // TTL + Slack after last
	last     proc.Time // the last keep-alive its node answered was sent (or it opened)
	at       proc.ID   // the node holding it (-1: none: lost or handed)
	adopted  proc.Time
	ended    bool
}

// semKey is a semaphore: its id and its units.
type semKey struct{ sem, units int32 }

// semUnit is a unit of a semaphore in a view: what its token names.
type semUnit struct {
	semKey
	unit  int32
	epoch uint64
}

type svcHold struct {
	client  proc.ID
	session uint64
	grant   uint64
	units   int32 // a semaphore's: the units it was granted with
	exited  bool
}

type svcClient struct {
	open  bool // a lock request open
	since proc.Time
	hold  []*svcHold
}

func (c *Service) finding(rule string, t proc.Time, format string, args ...any) {
	c.Violations++
	if c.ByRule == nil {
		c.ByRule = map[string]int{}
	}
	c.ByRule[rule]++
	if len(c.First) < maxReports {
		c.First = append(c.First, fmt.Sprintf("t=%d %s: ", t, rule)+fmt.Sprintf(format, args...))
	}
}

func (c *Service) init() {
	if c.sessions == nil {
		c.sessions, c.holders, c.tokens = map[uint64]*svcSession{}, map[proc.ResID]*svcHold{}, map[proc.ResID][2]uint64{}
		c.semHolds, c.units = map[int32][]*svcHold{}, map[semUnit][2]uint64{}
		c.ended, c.clients, c.permits, c.issued = map[uint64]proc.Time{}, map[proc.ID]*svcClient{}, map[int32]int{}, map[int32]int{}
		c.calls = map[sessionCall]*svcCall{}
	}
}

func (c *Service) session(id uint64) *svcSession {
	s := c.sessions[id]
	if s == nil {
		s = &svcSession{at: -1}
		c.sessions[id] = s
	}
	return s
}

func (c *Service) call(session, call uint64) *svcCall {
	k := c.calls[sessionCall{session, call}]
	if k == nil {
		k = &svcCall{}
		c.calls[sessionCall{session, call}] = k
	}
	return k
}

func (c *Service) client(p proc.ID) *svcClient {
	k := c.clients[p]
	if k == nil {
		k = &svcClient{}
		c.clients[p] = k
	}
	return k
}

func dur(t proc.Time) time.Duration   { return time.Duration(t) * time.Millisecond }
func ticks(d time.Duration) proc.Time { return proc.Time(d / time.Millisecond) }

// holding reports whether h is held at t.
func (c *Service) holding(h *svcHold, t proc.Time) bool {
	s := c.sessions[h.session]
	return !h.exited && s != nil && !s.expired && t < s.believed
}

// Event implements proc.Sink.
func (c *Service) Event(e proc.Event) {
	c.init()
	t := e.Time
	switch e.Kind {
	case proc.EvCrash, proc.EvRestart:
		for _, s := range c.sessions { // any order: each session on its own
			if s.at == e.P {
				s.at = -1
			}
		}
		return
	}
	if e.S == nil {
		return
	}
	id := e.S.ID
	if int(e.P) < c.Nodes {
		switch e.Kind {
		case proc.EvOpened:
			// Its lease starts here, whether or not its client hears of
			// it.
			s := c.session(id)
			s.at, s.ttl = e.P, e.S.TTL
			s.deadline = max(s.deadline, t+e.S.TTL+c.Slack)
			s.last = max(s.last, t)
		case proc.EvAdopted:
			s := c.session(id)
			s.at, s.adopted = e.P, t
		case proc.EvHanded:
			if s := c.session(id); s.at == e.P {
				s.at = -1
			}
		case proc.EvEnded:
			s := c.session(id)
			if !s.ended {
				s.ended = true
				c.ended[id] = t
				if due := c.due(s); t > due {
					c.finding("outlived", t, "session %d ended at node %d, %d ticks past its bound %d", id, e.P, t-due, due)
				}
			}
		case proc.EvIssued:
			q, k := e.S.Quota, e.S.Count()
			before := c.issued[q]
			if c.issued[q] += k; c.Budget > 0 && before <= c.Budget && c.issued[q] > c.Budget {
				c.finding("issued", t, "node %d issued permit %d of quota %d (session %d), the budget is %d", e.P, c.issued[q], q, id, c.Budget)
			}
		case proc.EvHeld:
			if end, ok := c.ended[id]; ok {
				c.finding("grant-after-end", t, "node %d holds grant %d of session %d, which ended at t=%d", e.P, e.S.Grant, id, end)
			}
			if e.S.Call != 0 {
				k := c.call(id, e.S.Call)
				if !k.held && k.refused {
					c.finding("refused-held", t, "node %d holds grant %d of session %d for call %d, whose client was answered with nothing granted at t=%d", e.P, e.S.Grant, id, e.S.Call, k.refusedAt)
				}
				k.held, k.node, k.grant, k.heldAt = true, e.P, e.S.Grant, t
			}
		}
		return
	}
	k := c.client(e.P)
	switch e.Kind {
	case proc.EvAlive:
		s := c.session(id)
		if s.believed != 0 && t >= s.believed {
			return // the client stopped counting on it already
		}
		if e.S.Backup {
			since := e.S.Sent - s.direct
			b := session.BelievedAtBackup(dur(e.S.TTL), dur(since), dur(e.S.Lease), dur(e.S.Kept), e.S.Said)
			s.believed = max(s.believed, e.S.Sent+ticks(b))
			return
		}
		s.ttl = e.S.TTL
		s.direct = max(s.direct, e.S.Sent)
		s.deadline = max(s.deadline, e.S.Sent+e.S.TTL+c.Slack)
		s.last = max(s.last, e.S.Sent)
		s.believed = max(s.believed, e.S.Sent+ticks(session.Believed(dur(e.S.TTL), dur(e.S.Lease))))
	case proc.EvExpired:
		s := c.session(id)
		if !s.expired && e.S.Sent < s.believed {
			c.finding("expired-alive", t, "client %d told session %d expired on a call sent at t=%d, counting on it until t=%d", e.P, id, e.S.Sent, s.believed)
		}
		s.expired = true
	case proc.EvRequest:
		c.closeRequest(e.P, k, t)
		k.open, k.since = true, t
	case proc.EvGiveUp, proc.EvReject:
		c.closeRequest(e.P, k, t)
		if e.Kind == proc.EvGiveUp && e.S.Call != 0 {
			k := c.call(id, e.S.Call)
			if !k.refused && k.held {
				c.finding("refused-held", t, "client %d answered with nothing granted on call %d of session %d, whose grant %d node %d holds since t=%d", e.P, e.S.Call, id, k.grant, k.node, k.heldAt)
			}
			k.refused, k.refusedAt = true, t
		}
	case proc.EvPermit:
		c.closeRequest(e.P, k, t)
		q, k := e.S.Quota, e.S.Count()
		before := c.permits[q]
		if c.permits[q] += k; c.Budget > 0 && before <= c.Budget && c.permits[q] > c.Budget {
			told := fmt.Sprintf("permit %d", c.permits[q])
			if k > 1 {
				told = fmt.Sprintf("permits %d to %d", before+1, c.permits[q])
			}
			c.finding("budget", t, "client %d told %s of quota %d (session %d), the budget is %d", e.P, told, q, id, c.Budget)
		}
	case proc.EvEnter:
		c.closeRequest(e.P, k, t)
		tok := [2]uint64{e.Epoch, e.S.Counter}
		h := &svcHold{client: e.P, session: id, grant: e.S.Grant}
		if e.S.Units > 0 {
			c.semEnter(e, h, tok)
			k.hold = append(slices.DeleteFunc(k.hold, func(o *svcHold) bool { return !c.holding(o, t) }), h)
			return
		}
		for _, r := range slices.Compact(slices.Sorted(slices.Values(e.Res))) {
			if o := c.holders[r]; o != nil && o.client != e.P && c.holding(o, t) {
				c.finding("one-holder", t, "client %d granted name %d (grant %d of session %d) while client %d holds it (grant %d of session %d)",
					e.P, r, e.S.Grant, id, o.client, o.grant, o.session)
			}
			if last, ok := c.tokens[r]; ok && !less(last, tok) {
				c.finding("token-order", t, "client %d granted name %d with token %v, not above the last one answered, %v", e.P, r, tok, last)
			}
			c.tokens[r] = tok
			c.holders[r] = h
		}
		k.hold = append(slices.DeleteFunc(k.hold, func(o *svcHold) bool { return !c.holding(o, t) }), h)
	case proc.EvExit:
		for _, h := range k.hold {
			if h.session == id && h.grant == e.S.Grant {
				h.exited = true
			}
		}
	}
}

// semEnter judges a semaphore's grant answered to a client: capacity,
// one-units, and its unit's token-order.
func (c *Service) semEnter(e proc.Event, h *svcHold, tok [2]uint64) {
	t, key := e.Time, semKey{e.S.Sem, e.S.Units}
	h.units = key.units
	held := slices.DeleteFunc(c.semHolds[key.sem], func(o *svcHold) bool { return !c.holding(o, t) })
	units := key.units
	if len(held) > 0 {
		units = held[0].units // the units recorded while it is held
	}
	if len(held) >= int(units) {
		var who []string
		for _, o := range held {
			who = append(who, fmt.Sprintf("client %d (grant %d of session %d)", o.client, o.grant, o.session))
		}
		c.finding("capacity", t, "client %d granted a unit of semaphore %d (grant %d of session %d), whose %d units are held: %s",
			e.P, key.sem, e.S.Grant, e.S.ID, units, strings.Join(who, ", "))
	}
	for _, o := range held {
		if o.units != key.units {
			c.finding("one-units", t, "client %d granted a unit of semaphore %d of %d units (grant %d of session %d) while client %d holds one of %d units (grant %d of session %d)",
				e.P, key.sem, key.units, e.S.Grant, e.S.ID, o.client, o.units, o.grant, o.session)
			break
		}
	}
	c.semHolds[key.sem] = append(held, h)
	u := semUnit{key, e.S.Unit, e.Epoch}
	if last, ok := c.units[u]; ok && !less(last, tok) {
		c.finding("token-order", t, "client %d granted unit %d@%d of semaphore %d with token %v, not above the last one answered, %v",
			e.P, u.unit, u.epoch, key.sem, tok, last)
	}
	c.units[u] = tok
}

func less(a, b [2]uint64) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// closeRequest judges the answer (or the giving up) at t of client p's
// open request.
func (c *Service) closeRequest(p proc.ID, k *svcClient, t proc.Time) {
	if !k.open {
		return
	}
	k.open = false
	if due := max(k.since, c.Healed) + c.Bound; c.Healed >= 0 && t > due {
		c.finding("unanswered", t, "client %d's lock request of t=%d answered %d ticks past its bound %d", p, k.since, t-due, due)
	}
}

// due is the tick by which session s is to end.
func (c *Service) due(s *svcSession) proc.Time {
	d := s.deadline
	if s.adopted > s.last {
		d += c.faulty(s.last, s.adopted)
	}
	return max(d, s.adopted, c.Healed) + c.Settle
}

// faulty is how long in [from, to) some fault was active.
func (c *Service) faulty(from, to proc.Time) proc.Time {
	var w [][2]proc.Time
	for _, x := range c.Windows {
		if a, b := max(x[0], from), min(x[1], to); a < b {
			w = append(w, [2]proc.Time{a, b})
		}
	}
	slices.SortFunc(w, func(a, b [2]proc.Time) int { return int(a[0] - b[0]) })
	var sum, end proc.Time = 0, from
	for _, x := range w {
		if x[1] > end {
			sum += x[1] - max(x[0], end)
			end = x[1]
		}
	}
	return sum
}

// Close judges, at the end of the run (end), what was due before it.
func (c *Service) Close(end proc.Time) {
	c.init()
	for _, p := range slices.Sorted(maps.Keys(c.clients)) {
		k := c.clients[p]
		if due := max(k.since, c.Healed) + c.Bound; k.open && c.Healed >= 0 && due < end {
			c.finding("unanswered", end, "client %d's lock request of t=%d not answered by the end, its bound %d", p, k.since, due)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.sessions)) {
		s := c.sessions[id]
		if due := c.due(s); !s.ended && s.at >= 0 && s.deadline > 0 && due < end {
			c.finding("outlived", end, "session %d still held at node %d at the end, its bound %d", id, s.at, due)
		}
	}
}
