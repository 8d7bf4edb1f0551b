package svcsim

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/allot-dev/allot/dataplane"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/session"
)

// ClientConfig is how a simulated client behaves.
type ClientConfig struct {
	Nodes int       // the nodes are 0..Nodes-1
	Names int       // the lock names, 0..Names-1; a lock takes one or two
	TTL   proc.Time // its sessions' TTL
	// KeepAlive: the keep-alives' period; Timeout: a keep-alive not
	// answered by then moves the client to the next node; Retry: how
	// soon a request given up (refused, or cut off with no grant found
	// held) is asked again.
	KeepAlive, Timeout, Retry proc.Time
	Think, CS                 proc.Time // up to this long, drawn uniformly
	// Locks is how many locks a session takes (1 to Locks, drawn) before
	// the client closes it, or walks away from it (one in three): it stops
	// its keep-alives and the session runs out.
	Locks int
	// Semaphores: with more than 0, one request in two (drawn) acquires
	// a unit of one of semaphores 0..Semaphores-1 (drawn) instead of
	// locking names; each has Units units (R). A semaphore's grant is one
	// unit, as the service's Acquire; the client holds one grant at a
	// time, lock or unit.
	Semaphores int
	Units      int32
	// AcquireOnly: with Semaphores, every request acquires a unit (none
	// locks).
	AcquireOnly bool
	// Mismatch: the percent of acquires (drawn, 0 to 100) that give
	// their semaphore other units than Units, one of Units-1 (if above
	// 0) and Units+1 (drawn): a client that names one semaphore with
	// other units, which the nodes refuse (dataplane.Mismatch: the
	// service's UNITS_MISMATCH) unless it was the semaphore's first use.
	// 0: none, and no draw (a run is the run it was before the knob).
	Mismatch int
	// Quotas: with more than 0, one request in two (drawn, before the
	// semaphores' draw) takes a permit of one of quotas 0..Quotas-1
	// (drawn) instead: a Take of one permit. A permit is consumed, never
	// given back; an answer RESOURCE_EXHAUSTED is a reject.
	Quotas int
	// TakeMost: the most permits a Take asks, drawn 1 to TakeMost for
	// each (0 or 1: one; no draw, so a run of one-permit takes is the
	// run it was before the count). The permits a Take got are told in
	// its answer, all of them or, cut short or rejected, those it took
	// first (TAKE_CUT_SHORT's and QUOTA_EXHAUSTED's count): the client
	// counts them and does not take the rest again (the application
	// gives up that Take, as client/ returns CutShortError when it
	// cannot move the session).
	TakeMost int
	// Try: the percent of lock and acquire requests that are tries (the
	// service's TryLock, TryAcquire; drawn for each only when above 0,
	// so a run without is the run it was before). A try answered TAKEN
	// is given up (EvGiveUp: nothing was granted) and the client asks
	// again after Retry.
	Try int
}

// Client is a client of the service, as client/ behaves: it opens a
// session at a node, keeps it alive, locks and unlocks; it moves to
// another node when one does not answer in time, says the session is not
// there, or is not serving, and to the session's node when its backup
// answers SESSION_MOVING. A lock or acquire cut off (answered by a node
// that does not serve the session, or not answered when the client
// moves) is not given up blindly: once the session's node answers a
// keep-alive, the client asks it Holders (dataplane.OpHolders) and
// claims a grant of the session of the request's names that it was
// never answered nor gave back, the cut-off call's, recorded at the
// backup before its node was lost (EvEnter with the grant's token, as
// client/'s obtain returns the grant reclaim found); only if there is
// none is the request given up and asked again. It counts on its
// session by the lease rule (session.Believed, BelievedAtBackup) and
// holds a grant only while it does. Its events are what it was told and what it did; a semaphore's
// EvRequest, EvEnter and EvExit say which in S.Sem and S.Units, and
// EvEnter the unit its token names in S.Unit (a lock's say its names in
// Res); a Take's EvRequest, and the EvPermit or EvReject that answers
// it, the quota in S.Quota (numbered from 1), and the permits asked and
// told in S.Permits (left out: one); a Take told some permits and
// rejected or cut short emits EvPermit of those first, then its
// EvReject, EvGiveUp or EvExpired.
type Client struct {
	cfg  ClientConfig
	node proc.ID
	req  uint64

	sess     uint64
	opening  uint64 // the open's call (0: none)
	openSent proc.Time
	believed proc.Time // it counts on the session until then
	direct   proc.Time // when the last keep-alive its node answered was sent
	ka       uint64    // the keep-alive's call not answered (0: none)
	kaSent   proc.Time
	longest  proc.Time            // the longest lease a node answered
	asked    map[uint64]proc.Time // keep-alives to the backup, by call: when sent
	left     int                  // locks before the session is given up
	walked   bool                 // walked away: no more keep-alives

	lockNo    uint64 // the client's number of its lock (and acquire) requests
	lockReq   uint64 // the open request's call (0: none)
	lockNames []int32
	lockSem   int32 // the request's semaphore (or quota), if lockNames is empty
	lockUnits int32 // the semaphore's units the request gives
	taking    bool  // the request is a Take of quota lockSem
	takeN     int64 // the permits the Take asks
	lockSent  proc.Time
	grant     uint64                  // held (0: none)
	grantSem  bool                    // it is a semaphore's
	unlocks   map[uint64]uint64       // unlock calls not answered: grant by call
	owed      map[uint64]dataplane.Op // grants given back, not acknowledged: how
	gen       uint64                  // timers of older sessions are stale
	refused   int                     // answers NODE_LIMIT (measured, not judged)
	mismatch  int                     // answers UNITS_MISMATCH (measured)
	try       bool                    // the open request is a try
	// tries: the tries asked, granted, and answered TAKEN (measured).
	tries, triesGranted, taken int
	// cut: the open lock or acquire request's call was cut off (its
	// node does not serve the session, or the client moved before it
	// was answered): the client waits for the session's node to answer
	// a keep-alive and asks it Holders (holders: that call, 0: not yet),
	// as client/'s obtain does (rideOver, reclaim). cutCall: the call,
	// if its answer said nothing was granted for it (SESSION_MOVING:
	// the node did not serve the session; 0: it may have been).
	cut              bool
	cutCall, holders uint64
	// gave: the grants the client gave back in this session: never the
	// cut-off call's.
	gave map[uint64]bool
	// given: the give-backs a node answered that its backup may not have
	// (client/'s given): the node that adopts the session would hold
	// their grants again, so the client gives them back again at the
	// session's next node (giveAgain; regive: those calls, by call).
	// at: the node that last answered a keep-alive; mark: the last
	// give-back answered when the open request was sent (an answer to it
	// from a node follows its records there: client/'s recorded).
	given    []givenBack
	seq      uint64
	regive   map[uint64]uint64
	at       proc.ID
	lockMark uint64
	// cuts: the requests cut off; reclaimed: those whose grant the
	// session's node said the session holds, claimed (measured).
	cuts, reclaimed int
}

// givenBack is a give-back answered by node at, numbered seq.
type givenBack struct {
	seq, grant uint64
	at         proc.ID
}

// NewClient is a client of nodes 0..cfg.Nodes-1.
func NewClient(cfg ClientConfig) *Client {
	return &Client{cfg: cfg, unlocks: map[uint64]uint64{}, owed: map[uint64]dataplane.Op{}, asked: map[uint64]proc.Time{}, gave: map[uint64]bool{},
		regive: map[uint64]uint64{}}
}

type (
	kaTimer    struct{ gen uint64 }
	thinkTimer struct{ gen uint64 }
	csTimer    struct{ gen, grant uint64 }
	openTimer  struct{ gen uint64 }
)

func (c *Client) Start(env proc.Env) {
	c.node = proc.ID(int(env.Self()) % c.cfg.Nodes)
	c.open(env)
}

func (c *Client) call(env proc.Env, m dataplane.Call) uint64 {
	c.req++
	m.Req = c.req
	env.Send(c.node, m)
	return c.req
}

func (c *Client) next() { c.node = (c.node + 1) % proc.ID(c.cfg.Nodes) }

func (c *Client) open(env proc.Env) {
	c.sess, c.ka, c.grant, c.lockReq, c.walked = 0, 0, 0, 0, false
	c.cut, c.cutCall, c.holders = false, 0, 0
	clear(c.asked)
	clear(c.gave)
	clear(c.regive)
	c.given = nil
	c.gen++
	c.openSent = env.Now()
	c.opening = c.call(env, dataplane.Call{Op: dataplane.OpOpen, TTL: c.cfg.TTL})
	env.After(c.cfg.Timeout, openTimer{c.gen})
}

func dur(t proc.Time) time.Duration   { return time.Duration(t) * dataplane.Tick }
func ticks(d time.Duration) proc.Time { return proc.Time(d / dataplane.Tick) }

// lost ends the client's count on its session: the open lock request is
// given up, the grant held is no more, and a new session is opened.
func (c *Client) lost(env proc.Env) {
	if c.lockReq != 0 || c.cut {
		env.Emit(proc.Event{Kind: proc.EvGiveUp, S: &proc.Session{ID: c.sess, Grant: c.lockNo}})
	}
	clear(c.unlocks)
	clear(c.owed)
	c.open(env)
}

// lapsed reports whether the client stopped counting on its session.
func (c *Client) lapsed(now proc.Time) bool { return c.sess != 0 && now >= c.believed }

func (c *Client) Fire(env proc.Env, t proc.Timer) {
	now := env.Now()
	switch t := t.(type) {
	case openTimer:
		if t.gen != c.gen || c.sess != 0 {
			return
		}
		if c.opening != 0 {
			c.next() // not answered in time
		}
		c.open(env)
	case kaTimer:
		if t.gen != c.gen || c.walked {
			return
		}
		if c.lapsed(now) {
			c.lost(env)
			return
		}
		if c.ka != 0 && now-c.kaSent >= c.cfg.Timeout {
			c.moved(env)
		}
		if c.ka == 0 || now-c.kaSent >= c.cfg.Timeout {
			c.kaSent = now
			c.ka = c.call(env, dataplane.Call{Op: dataplane.OpKeepAlive, Session: c.sess})
		}
		env.After(c.cfg.KeepAlive, kaTimer{c.gen})
	case thinkTimer:
		if t.gen != c.gen || c.sess == 0 {
			return
		}
		if c.left <= 0 {
			c.giveUp(env)
			return
		}
		c.left--
		c.lockNo++
		r := env.Rand()
		c.taking = c.cfg.Quotas > 0 && r.IntN(2) == 0
		if c.taking {
			c.lockNames, c.lockSem = nil, int32(r.IntN(c.cfg.Quotas))
			c.takeN = 1
			if c.cfg.TakeMost > 1 {
				c.takeN = 1 + r.Int64N(int64(c.cfg.TakeMost))
			}
			env.Emit(proc.Event{Kind: proc.EvRequest, S: &proc.Session{ID: c.sess, Grant: c.lockNo, Quota: c.lockSem + 1, Permits: permits(c.takeN)}})
			c.sendLock(env)
			return
		}
		if c.cfg.Semaphores > 0 && (c.cfg.AcquireOnly || r.IntN(2) == 0) {
			c.lockNames, c.lockSem, c.lockUnits = nil, int32(r.IntN(c.cfg.Semaphores)), c.cfg.Units
			if c.cfg.Mismatch > 0 && r.IntN(100) < c.cfg.Mismatch {
				c.lockUnits = c.otherUnits(r)
			}
			env.Emit(proc.Event{Kind: proc.EvRequest, S: &proc.Session{ID: c.sess, Grant: c.lockNo, Sem: c.lockSem, Units: c.lockUnits}})
			c.sendLock(env)
			return
		}
		c.lockNames = []int32{int32(r.IntN(c.cfg.Names))}
		if k := int32(r.IntN(c.cfg.Names)); r.IntN(2) == 0 && k != c.lockNames[0] {
			c.lockNames = append(c.lockNames, k)
		}
		res := make([]proc.ResID, len(c.lockNames))
		for i, n := range c.lockNames {
			res[i] = proc.ResID(n)
		}
		env.Emit(proc.Event{Kind: proc.EvRequest, Res: res, S: &proc.Session{ID: c.sess, Grant: c.lockNo}})
		c.sendLock(env)
	case csTimer:
		if t.gen != c.gen || t.grant != c.grant {
			return
		}
		s := &proc.Session{ID: c.sess, Grant: c.grant}
		op := dataplane.OpUnlock
		if c.grantSem {
			s.Sem, s.Units, op = c.lockSem, c.lockUnits, dataplane.OpRelease
		}
		env.Emit(proc.Event{Kind: proc.EvExit, S: s})
		c.giveBack(env, c.grant, op)
		c.grant = 0
		env.After(1+proc.Time(env.Rand().Int64N(int64(c.cfg.Think))), thinkTimer{c.gen})
	}
}

// otherUnits draws the units of an acquire that names its semaphore
// with other units than Units (ClientConfig.Mismatch).
func (c *Client) otherUnits(r *rand.Rand) int32 {
	if c.cfg.Units > 1 && (c.cfg.Units == math.MaxInt32 || r.IntN(2) == 0) {
		return c.cfg.Units - 1
	}
	return c.cfg.Units + 1
}

// giveUp ends the session once its locks are done: closed, or walked
// away from (its keep-alives stop, it runs out at its node).
func (c *Client) giveUp(env proc.Env) {
	if env.Rand().IntN(3) == 0 {
		c.walked = true
	} else {
		c.call(env, dataplane.Call{Op: dataplane.OpClose, Session: c.sess})
	}
	clear(c.unlocks)
	clear(c.owed)
	c.open(env)
}

func (c *Client) sendLock(env proc.Env) {
	c.lockSent = env.Now()
	c.try = false
	if c.taking {
		c.lockReq = c.call(env, dataplane.Call{Op: dataplane.OpTake, Session: c.sess, Sem: c.lockSem, N: c.takeN})
		return
	}
	c.lockMark = c.seq
	c.try = c.cfg.Try > 0 && env.Rand().IntN(100) < c.cfg.Try
	if c.try {
		c.tries++
	}
	if len(c.lockNames) == 0 {
		c.lockReq = c.call(env, dataplane.Call{Op: dataplane.OpAcquire, Session: c.sess, Sem: c.lockSem, Units: c.lockUnits, Try: c.try})
		return
	}
	c.lockReq = c.call(env, dataplane.Call{Op: dataplane.OpLock, Session: c.sess, Names: c.lockNames, Try: c.try})
}

// giveBack gives grant g back: a lock's by OpUnlock, a semaphore's by
// OpRelease. The answer of a request sent again elsewhere is given back
// by OpUnlock, which the node takes for either kind (as the service's
// Unlock and Release both give back any grant of the session).
func (c *Client) giveBack(env proc.Env, g uint64, op dataplane.Op) {
	c.owed[g], c.gave[g] = op, true
	c.unlocks[c.call(env, dataplane.Call{Op: op, Session: c.sess, Grant: g})] = g
}

func (c *Client) unlock(env proc.Env, g uint64) { c.giveBack(env, g, dataplane.OpUnlock) }

// moved moves the client's calls to the next node: the keep-alive is
// sent again there, and so are the unlocks not answered.
func (c *Client) moved(env proc.Env) {
	c.next()
	c.again(env)
}

// again sends the unlocks not answered to the session's new node. A
// request not answered when the client moves is cut off (client/'s
// callOnce gives its call up, UNAVAILABLE): a lock or an acquire may
// have been granted and recorded at the backup before its node was lost
// without answering, and the adopted session holds it, so the client
// asks the session's node Holders once it answers a keep-alive (cutOff;
// asked again in the same session blindly, it would wait behind its own
// grant until the session ends: seed 862). A Holders call not answered
// when the client moves is asked again at the next node that answers.
// A take cut off is given up, and asked again after a while.
func (c *Client) again(env proc.Env) {
	c.ka, c.holders = 0, 0
	switch {
	case c.lockReq != 0 && c.taking:
		env.Emit(proc.Event{Kind: proc.EvGiveUp, S: &proc.Session{ID: c.sess, Grant: c.lockNo}})
		c.lockReq = 0
		env.After(c.cfg.Retry, thinkTimer{c.gen})
	case c.lockReq != 0:
		c.cutOff(0)
	}
	clear(c.unlocks)
	for _, g := range slices.Sorted(maps.Keys(c.owed)) {
		c.giveBack(env, g, c.owed[g])
	}
}

// cutOff takes the open lock or acquire request as cut off (client/'s
// obtain, on an error for which elsewhere is true): call is its call if
// its answer said nothing was granted for it (0 if not). The request
// stays open: once the session's node answers a keep-alive (renewed),
// the client asks it which grants of the session hold the request's
// names (its semaphore), and claims one it was never answered nor gave
// back (reclaim); only if there is none does it give the request up and
// ask again. client/ says that this is exact unless another call of the
// same names is on its way meanwhile; the simulated client has one
// request at a time, and a call cut off is one it no longer waits for
// (its late answer is given back, as client/ cancels it), so it is
// never ambiguous here.
func (c *Client) cutOff(call uint64) {
	c.lockReq, c.cut, c.cutCall, c.holders = 0, true, call, 0
	c.cuts++
}

// renewed is a keep-alive of the session answered by its node, c.node:
// a request cut off asks that node Holders now (client/'s reclaim after
// rideOver).
func (c *Client) renewed(env proc.Env) {
	if c.node != c.at {
		c.at = c.node
		c.giveAgain(env)
	}
	if !c.cut || c.holders != 0 {
		return
	}
	m := dataplane.Call{Op: dataplane.OpHolders, Session: c.sess, Sem: c.lockSem}
	if len(c.lockNames) > 0 {
		m.Names = c.lockNames[:1]
	}
	c.holders = c.call(env, m)
}

// giveAgain gives back again at the session's node, where it moved,
// what the client gave back at other nodes since their last answer to
// its lock or acquire (client/'s giveAgain): a node answers a give-back
// before its backup has it, and lost before, it leaves the grant in the
// backup's records, and the node that adopts the session holds it
// again; asked for the same names in the session, the client would
// wait behind it. NotHeld: it was recorded. Any other answer: the next
// move gives it again.
func (c *Client) giveAgain(env proc.Env) {
	clear(c.regive)
	for _, g := range c.given {
		if g.at != c.node {
			c.regive[c.call(env, dataplane.Call{Op: dataplane.OpUnlock, Session: c.sess, Grant: g.grant})] = g.seq
		}
	}
}

// reclaim takes the session's node's answer r to Holders: a grant of the
// session that holds the request's names (exactly them, as client/'s
// reclaim asks of a Lock), or its semaphore's unit, that the client was
// never answered nor gave back is the grant of the call cut off: the
// client holds it (enter). None: the call was not granted, and the
// application gives the request up and asks again after a while.
func (c *Client) reclaim(env proc.Env, r dataplane.Reply) {
	want := slices.Compact(slices.Sorted(slices.Values(c.lockNames)))
	for _, h := range r.Holders {
		if h.Grant == c.grant || c.gave[h.Grant] || len(c.lockNames) > 0 && !slices.Equal(h.Names, want) {
			continue
		}
		c.cut = false
		c.reclaimed++
		if c.try {
			c.triesGranted++
		}
		if !h.Key.Lock() {
			c.lockUnits = h.Key.Units // the grant's own, as the node holds it
		}
		c.enter(env, h.Grant, h.Epoch, h.Counter, h.Unit)
		return
	}
	c.cut = false
	env.Emit(proc.Event{Kind: proc.EvGiveUp, S: &proc.Session{ID: c.sess, Grant: c.lockNo, Call: c.cutCall}})
	env.After(c.cfg.Retry, thinkTimer{c.gen})
}

// enter holds grant g of the open request, its token (epoch, counter)
// and a semaphore's unit: EvEnter, the grant the client holds until its
// critical section ends.
func (c *Client) enter(env proc.Env, g, epoch, counter uint64, unit int32) {
	c.lockReq, c.grant, c.grantSem = 0, g, len(c.lockNames) == 0
	if c.grantSem {
		env.Emit(proc.Event{Kind: proc.EvEnter, Epoch: epoch, S: &proc.Session{ID: c.sess, Grant: g, Counter: counter,
			Sem: c.lockSem, Units: c.lockUnits, Unit: unit}})
	} else {
		res := make([]proc.ResID, len(c.lockNames))
		for i, n := range c.lockNames {
			res[i] = proc.ResID(n)
		}
		env.Emit(proc.Event{Kind: proc.EvEnter, Res: res, Epoch: epoch, S: &proc.Session{ID: c.sess, Grant: g, Counter: counter}})
	}
	env.After(1+proc.Time(env.Rand().Int64N(int64(c.cfg.CS))), csTimer{c.gen, g})
}

// owedAgain sends again, to the node that just answered a keep-alive,
// the give-backs owed and not on their way: one answered by a node that
// did not serve the session then (its backup before it adopted it,
// SESSION_MOVING; the node's restarted run, SESSION_NOT_HERE) is made
// again once the node serves it, as client/'s callAt rides the move over
// and calls again. Without it a give-back answered SESSION_MOVING by
// the backup just before it adopted the session, whose next keep-alive
// it then answered, was never made: the grant stayed held as long as the
// session lived (seed 26 with --clients 8: every lock waited from
// t=6234 to the end).
func (c *Client) owedAgain(env proc.Env) {
	flying := map[uint64]bool{}
	for _, g := range c.unlocks { // any order: a set
		flying[g] = true
	}
	for _, g := range slices.Sorted(maps.Keys(c.owed)) {
		if !flying[g] {
			c.giveBack(env, g, c.owed[g])
		}
	}
}

// told emits the client's permits of its Take, k of them: EvPermit.
func (c *Client) told(env proc.Env, k int64) {
	env.Emit(proc.Event{Kind: proc.EvPermit, S: &proc.Session{ID: c.sess, Grant: c.lockNo, Quota: c.lockSem + 1, Permits: permits(k)}})
}

// permits is a Take's count as its events carry it: one left out, as
// before the count.
func permits(k int64) int32 {
	if k == 1 {
		return 0
	}
	return int32(k)
}

// notServed takes the answer r of a request its node did not serve: the
// application gives it up and asks again after a while, at the session's
// node (the one a SESSION_MOVING names). A lock or an acquire answered
// so by a node that does not serve the session is cut off instead
// (elsewhere).
func (c *Client) notServed(env proc.Env, r dataplane.Reply) {
	if r.Code == dataplane.Moving {
		c.node = r.Primary
	}
	var call uint64
	switch r.Code {
	case dataplane.Taken, dataplane.NodeLimit, dataplane.Mismatch, dataplane.Moving:
		// Answers that say nothing was granted: a refusal, or a backup
		// that does not serve the session.
		call = r.Req
	}
	env.Emit(proc.Event{Kind: proc.EvGiveUp, S: &proc.Session{ID: c.sess, Grant: c.lockNo, Call: call}})
	c.lockReq = 0
	env.After(c.cfg.Retry, thinkTimer{c.gen})
}

// elsewhere takes the answer r of a lock or acquire request from a node
// that does not serve the session (client/'s elsewhere: UNAVAILABLE,
// SESSION_MOVING, SESSION_NOT_HERE): the call is cut off (cutOff), and
// the client asks for a keep-alive now if none is on its way (rideOver's
// moveNow), at the session's node if a SESSION_MOVING names it. Only
// SESSION_MOVING says nothing was granted for the call (a backup does
// not serve it); SESSION_NOT_HERE does not: a node whose session ended
// unrecorded after its grant was held answers it, and the adopter holds
// the grant, which Holders finds.
func (c *Client) elsewhere(env proc.Env, r dataplane.Reply) {
	var call uint64
	if r.Code == dataplane.Moving {
		c.node, call = r.Primary, r.Req
	}
	c.cutOff(call)
	if c.ka == 0 {
		c.kaSent = env.Now()
		c.ka = c.call(env, dataplane.Call{Op: dataplane.OpKeepAlive, Session: c.sess})
	}
}

// askBackup asks every other node for the session, as client/ does
// while its node's lease lapses (session.Lapsing): the backup's word
// moves the count on before the node's lease is out.
func (c *Client) askBackup(env proc.Env) {
	for k := range proc.ID(c.cfg.Nodes) {
		if k == c.node {
			continue
		}
		c.req++
		c.asked[c.req] = env.Now()
		env.Send(k, dataplane.Call{Req: c.req, Op: dataplane.OpKeepAlive, Session: c.sess})
	}
}

// backupSaid takes node from's answer r to askBackup's keep-alive sent
// at sent: SESSION_MOVING moves the count on by BelievedAtBackup; a node
// that serves the session (it adopted it) is the session's node from
// then on; any other answer says nothing.
func (c *Client) backupSaid(env proc.Env, from proc.ID, sent proc.Time, r dataplane.Reply) {
	switch r.Code {
	case dataplane.Moving:
		b := session.BelievedAtBackup(dur(c.cfg.TTL), dur(sent-c.direct), dur(r.Lease), dur(r.Kept), r.Said)
		c.believed = max(c.believed, sent+ticks(b))
		env.Emit(proc.Event{Kind: proc.EvAlive, S: &proc.Session{ID: c.sess, Sent: sent, TTL: c.cfg.TTL, Lease: r.Lease, Backup: true, Said: r.Said, Kept: r.Kept}})
	case dataplane.OK:
		c.believed = max(c.believed, sent+ticks(session.Believed(dur(r.TTL), dur(r.Lease))))
		c.direct = max(c.direct, sent)
		c.longest = max(c.longest, r.Lease)
		env.Emit(proc.Event{Kind: proc.EvAlive, S: &proc.Session{ID: c.sess, Sent: sent, TTL: r.TTL, Lease: r.Lease}})
		if from != c.node {
			c.node = from
			c.again(env)
		}
		c.renewed(env)
	}
}

func (c *Client) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	r, ok := m.(dataplane.Reply)
	if !ok {
		return
	}
	now := env.Now()
	if r.Req == c.opening {
		c.opening = 0
		if r.Code != dataplane.OK {
			// Not opened there: unavailable, or at its most sessions
			// (NODE_LIMIT): client/'s Session passes over both to the
			// next node.
			if r.Code == dataplane.NodeLimit {
				c.refused++
			}
			c.next()
			env.After(c.cfg.Retry, openTimer{c.gen})
			return
		}
		c.sess, c.direct = r.Session, c.openSent
		c.believed = c.openSent + ticks(session.Believed(dur(r.TTL), dur(r.Lease)))
		c.at = from
		env.Emit(proc.Event{Kind: proc.EvAlive, S: &proc.Session{ID: r.Session, Sent: c.openSent, TTL: r.TTL, Lease: r.Lease}})
		c.left = 1 + env.Rand().IntN(c.cfg.Locks)
		env.After(c.cfg.KeepAlive, kaTimer{c.gen})
		env.After(1+proc.Time(env.Rand().Int64N(int64(c.cfg.Think))), thinkTimer{c.gen})
		return
	}
	if r.Session != c.sess || c.sess == 0 || c.walked {
		if r.Code == dataplane.OK && r.Grant != 0 && r.Session == c.sess && c.sess != 0 {
			c.unlock(env, r.Grant)
		}
		return
	}
	if c.lapsed(now) {
		c.lost(env)
		return
	}
	if sent, ok := c.asked[r.Req]; ok {
		delete(c.asked, r.Req)
		c.backupSaid(env, from, sent, r)
		return
	}
	if r.Code == dataplane.Expired && r.Req != c.ka && r.Req != c.lockReq && c.unlocks[r.Req] == 0 {
		// The answer to a call given up when the client moved (client/
		// cancels it): its node, one the session left, may not know the
		// session any more, and says nothing of it (client/'s wrap: a
		// session alive by the client's count moves). Taken for the
		// current keep-alive's answer, it ended a session the client
		// counted on, adopted and kept alive elsewhere (a node paused
		// for 7.6 s answering the keep-alives sent to it before the
		// move: --hold 40000, seed 7).
		return
	}
	if r.Req == c.lockReq && c.taking && r.Code != dataplane.OK && r.Permits > 0 {
		// Rejected or cut short after some permits: those are the
		// client's (client/'s ExhaustedError, CutShortError: Taken).
		c.told(env, r.Permits)
	}
	if r.Code == dataplane.Expired {
		sent := c.kaSent
		switch {
		case r.Req == c.lockReq:
			sent = c.lockSent
		case c.unlocks[r.Req] != 0:
			sent = now // not timed: judged as of its answer
		}
		env.Emit(proc.Event{Kind: proc.EvExpired, S: &proc.Session{ID: c.sess, Sent: sent}})
		c.lost(env)
		return
	}
	switch {
	case r.Req == c.ka:
		c.ka = 0
		switch r.Code {
		case dataplane.OK:
			c.believed = max(c.believed, c.kaSent+ticks(session.Believed(dur(r.TTL), dur(r.Lease))))
			c.direct = c.kaSent
			c.longest = max(c.longest, r.Lease)
			env.Emit(proc.Event{Kind: proc.EvAlive, S: &proc.Session{ID: c.sess, Sent: c.kaSent, TTL: r.TTL, Lease: r.Lease}})
			c.owedAgain(env)
			c.renewed(env)
			if session.Lapsing(dur(r.TTL), dur(r.Lease), dur(c.longest)) {
				c.askBackup(env)
			}
		case dataplane.Moving:
			b := session.BelievedAtBackup(dur(c.cfg.TTL), dur(c.kaSent-c.direct), dur(r.Lease), dur(r.Kept), r.Said)
			c.believed = max(c.believed, c.kaSent+ticks(b))
			env.Emit(proc.Event{Kind: proc.EvAlive, S: &proc.Session{ID: c.sess, Sent: c.kaSent, TTL: c.cfg.TTL, Lease: r.Lease, Backup: true, Said: r.Said, Kept: r.Kept}})
			c.node = r.Primary
			c.again(env)
		default:
			c.moved(env)
		}
	case r.Req == c.lockReq && c.taking:
		switch r.Code {
		case dataplane.OK:
			c.told(env, r.Permits)
		case dataplane.Exhausted:
			env.Emit(proc.Event{Kind: proc.EvReject, S: &proc.Session{ID: c.sess, Grant: c.lockNo, Quota: c.lockSem + 1}})
		default:
			// Not taken there (not serving, a view short of a report,
			// SESSION_MOVING).
			c.notServed(env, r)
			return
		}
		c.lockReq = 0
		env.After(1+proc.Time(env.Rand().Int64N(int64(c.cfg.Think))), thinkTimer{c.gen})
	case r.Req == c.holders:
		c.holders = 0
		if c.cut && r.Code == dataplane.OK {
			c.reclaim(env, r)
		}
	case r.Req == c.lockReq:
		switch r.Code {
		case dataplane.OK:
			if c.try {
				c.triesGranted++
			}
			// Its answer followed its records at the node, the
			// give-backs answered there before it among them.
			c.given = slices.DeleteFunc(c.given, func(g givenBack) bool { return g.seq <= c.lockMark && g.at == from })
			c.enter(env, r.Grant, r.Epoch, r.Counter, r.Unit)
		case dataplane.Mismatch:
			// The semaphore has other units in the cluster (client/'s
			// ErrMismatch, FAILED_PRECONDITION): an answer, not a node
			// that failed to serve; nothing was granted, and the
			// application gives the request up.
			c.mismatch++
			c.notServed(env, r)
		case dataplane.NodeLimit:
			// The node has its most requests open (client/'s ErrLimit,
			// which Lock and Acquire return, not sent elsewhere: the
			// session is at this node): the application gives it up and
			// asks again after a while. Nothing was granted.
			c.refused++
			c.notServed(env, r)
		case dataplane.Taken:
			// A try that would have waited (client/'s ErrLocked): its
			// request is withdrawn at the node, nothing granted; the
			// application gives it up and asks again after a while.
			c.taken++
			c.notServed(env, r)
		default:
			// Not served there (SESSION_MOVING, SESSION_NOT_HERE,
			// UNAVAILABLE): cut off, as client/'s obtain takes an error
			// for which elsewhere is true.
			c.elsewhere(env, r)
		}
	case c.unlocks[r.Req] != 0:
		g := c.unlocks[r.Req]
		delete(c.unlocks, r.Req)
		if r.Code == dataplane.OK || r.Code == dataplane.NotHeld {
			delete(c.owed, g) // else it goes again with the next move
		}
		if r.Code == dataplane.OK {
			c.seq++
			c.given = append(c.given, givenBack{c.seq, g, from})
		}
	case c.regive[r.Req] != 0:
		seq := c.regive[r.Req]
		delete(c.regive, r.Req)
		if r.Code == dataplane.OK || r.Code == dataplane.NotHeld {
			c.given = slices.DeleteFunc(c.given, func(g givenBack) bool { return g.seq == seq })
		}
	case r.Code == dataplane.OK && r.Grant != 0 && r.Grant != c.grant && !c.gave[r.Grant]:
		// The answer of a lock request cut off (the client moved before
		// it came): it is given back, as client/ cancels the call and
		// never takes its answer. A grant the client found held and
		// claimed since (reclaim), or gave back, is not.
		c.unlock(env, r.Grant)
	}
}
