package dataplane

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/allot-dev/allot/chunk"
	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/session"
	"github.com/allot-dev/allot/users"
)

// Tick is one tick of the run in the sessions' time (session.Time counts
// nanoseconds): a tick is a millisecond, as the service's timers are.
const Tick = time.Millisecond

func st(t proc.Time) session.Time     { return session.Time(time.Duration(t) * Tick) }
func dur(t proc.Time) time.Duration   { return time.Duration(t) * Tick }
func ticks(d time.Duration) proc.Time { return proc.Time(d / Tick) }

// Broken names a deliberate break of the data plane, to show that the
// checker catches it.
type Broken uint8

const (
	// AdoptFresh: an adopter gives the session a fresh TTL from the
	// adoption instead of the deadline its record carried.
	AdoptFresh Broken = iota + 1
	// FenceEnds: a node that stops serving ends its sessions, their end
	// recorded, instead of handing them to its backup.
	FenceEnds
	// NoLockDelay: the grants of an expired session go back at once.
	NoLockDelay
	// SemNoRegrant: a new view asks again the lock's grants held, but
	// not the semaphores': their units are free in the new view while
	// their holders still hold them.
	SemNoRegrant
	// QuotaNoPersist: the node's permit counts are not written to its
	// disk (Process): a restarted node starts from none, and reports
	// none, so the ledger takes the permits its last view issued for
	// never issued, and a later view issues them again.
	QuotaNoPersist
	// QuotaNoChunk: a node issues past its chunk's limit (it asks its
	// view's instance for every take, whatever control.Node.Limit
	// says: chunk.Quotas.Overdraw, not Reserve): a member cut off issues beyond what the ledger counts for
	// it (its last report plus the chunk), and the next view's budget
	// is too large.
	QuotaNoChunk
	// TakeCountLate: a Take of N counts its permits on disk only when it
	// answers, not as its view ends (the service's take writes what it
	// got before it goes on in the next view): the node's report for the
	// next view leaves out the permits the Take got in the old one, so
	// the ledger gives the next view those again, while the Take tells
	// its client them at its end. The node still holds them against its
	// chunk meanwhile, as the service's chunks do in memory.
	TakeCountLate
	// RegrantWithinLimits: a grant held, asked again in a new view,
	// waits for a user of the node under MaxLocks (MaxSessions for a
	// large semaphore) as a new request does, as the service's grab did
	// before it let regrants past the limit: an adopter holding more
	// grants than its limit (its own and the adopted sessions') is not
	// ready until enough of them are given back, and no view serves
	// meanwhile.
	RegrantWithinLimits
	// UnitsUnchecked: a node serves an Acquire with the units it is
	// given, without reading the control log's record of the
	// semaphore's units (Config.Units): two clients giving one
	// semaphore different units use two instances of it, and hold more
	// units at once than the first use said it has.
	UnitsUnchecked
	// RefreshForgetsHeld: a node's ready in a new view does not record
	// again the units of the semaphores its sessions hold (a plain
	// control.ReadyEntry, not a HoldingEntry): after a refresh, which
	// forgets every semaphore's units, the first Acquire of a held
	// semaphore records other units while its holders hold it.
	RefreshForgetsHeld
	// TryLeaks: a try that gives up is answered Taken, but its request
	// is left at the instance (the service's drop and abandon not
	// done): granted later, it is held by the session with nobody told,
	// until the session ends.
	TryLeaks
	// NamesStale: a lock's grant held, asked again in a new view, keeps
	// the resource ids its names had in the view it was held in instead
	// of asking their homes again (names.go): in the new view a name's
	// home gives it an id afresh, and another client's request of the
	// name, on that id, is granted while the holder holds it on the old
	// one.
	NamesStale
)

// DefaultTryWait is the service's TryWait (service.Config: 20 ms), how
// long a try waits for its grant where the algorithm cannot say that it
// waits behind another user; at a tick a millisecond, 20 ticks.
const DefaultTryWait = 20 * time.Millisecond

// Config is a node's data plane.
type Config struct {
	Self proc.ID
	// Run is the node's start (its disk's count): the ids it issues are
	// of this run.
	Run uint64
	// Slack is the lease rule's slack, the control plane's lease (the
	// service's --suspect); LockDelay holds an expired session's grants.
	Slack, LockDelay proc.Time
	Broken           Broken
	// Waste is each quota's W, in the order of the control plane's
	// Config.Quotas (none: no quotas); Counts the permits of each the
	// node has issued over its whole life, from its disk; Slots how
	// many users each member hosts of a view's instance of a quota or
	// of a small semaphore (the service's --slots): a semaphore of fewer
	// units than Slots is small (Small), served on the slots.
	Waste  []uint64
	Counts []uint64
	Slots  int
	// Budgets: each quota's M, in the same order: a Take of more permits
	// is refused (the service's INVALID_ARGUMENT), as it could never be
	// filled.
	Budgets []uint64
	// MaxSessions, MaxLocks: the service's --max-sessions and
	// --max-locks (0: no limit). An open past MaxSessions sessions at
	// the node is refused (NodeLimit), a lock request past MaxLocks users
	// of the view's lock instance, a large semaphore's past MaxSessions
	// users of its instance (the service's limit "holders"); adopted
	// sessions and regrants pass them (package users, which the
	// service's locks.go runs too).
	MaxSessions, MaxLocks int
	// Units: a semaphore's units are checked against the control log
	// (the service's checkUnits): a node reads them there before its
	// first Acquire of a semaphore in a view, proposing the units asked
	// as the semaphore's first use (Out.Record; the first entry of a
	// semaphore wins), and refuses an Acquire of other units (Mismatch).
	// Off, every Acquire is served with the units it gives: a run whose
	// clients all give one semaphore the same units needs no read, and
	// keeps the timing it had before the check was modelled.
	Units bool
	// TryWait: how long a try waits for its grant once it has its user
	// (0: DefaultTryWait), unless the algorithm tells when it waits
	// behind another (proc.Queued: Process watches it).
	TryWait proc.Time
}

// Out is what the node asks of its driver, as data, after an input.
type Out struct {
	Replies []Addressed // answers to clients
	Sends   []Addressed // Keep and KeepAck to other nodes, on the links
	Asks    []Ask       // requests of the instances' users
	Frees   []Ask       // releases of the instances' users
	Events  []proc.Event
	// Retire: the instances of views older than this epoch stop.
	Retire uint64
	// Left: the backups this node records at no more (the service closes
	// its queue to each): what the links still owe them of its records
	// is dropped.
	Left []proc.ID
	// Ready: the node is ready in this view (control.Node.Ready);
	// Stopped: it stopped serving its lost view (control.Node.Stopped).
	Ready   uint64
	Stopped bool
	// Counts: the node issued permits, and these are its counts now:
	// the driver writes them to its disk before the Replies go, and
	// tells the control node (control.Node.Issued).
	Counts []uint64
	// Holding: with Ready and Config.Units, the semaphores the node's
	// sessions hold again in the view, each once, and their units: its
	// ready records them (control.Node.ReadyHolding), which a refresh
	// forgot.
	Holding []SemUnits
	// Record: semaphores whose units the node waits to read from the
	// control log (Config.Units), with the units of the first Acquire
	// that waits: the driver proposes them (control.Node.RecordSemaphore)
	// until the log has an entry for the semaphore, and gives the node
	// the units the log has (Node.UnitsRead).
	Record []SemUnits
	// Tries: a try asked (or waiting for a slot): the driver fires
	// TryOut after this long, the service's TryWait timer.
	Tries []TryTimer
}

// SemUnits is a semaphore and its units.
type SemUnits struct {
	Sem, Units int32
}

// TryTimer is the give-up of try Grant's N-th ask, After ticks on.
type TryTimer struct {
	Grant, N uint64
	After    proc.Time
}

// Limit is what the node's count of a quota may reach in the view it
// serves (control.Node.Limit): OK false, nothing.
type Limit struct {
	Max uint64
	OK  bool
}

// Addressed is a message and its destination.
type Addressed struct {
	To proc.ID
	M  proc.Message
}

// Ask is a user of the instance of Key in view Epoch asking for Res (the
// lock's; a semaphore's user asks for a unit, a quota's for a permit),
// or releasing what it holds; from the driver (Entered), the user
// granted, and the unit of a semaphore's, or a quota's user rejected.
type Ask struct {
	Epoch    uint64
	Key      Key
	User     proc.ID
	Res      []proc.ResID
	Unit     int32
	Rejected bool
	// Try: of an ask, the grant id of a try (0: none): the driver
	// watches its user if the algorithm can tell that it waits behind
	// another (Watch, Behind).
	Try uint64
}

// Empty reports whether o asks for nothing.
func (o *Out) Empty() bool {
	return len(o.Replies)+len(o.Sends)+len(o.Asks)+len(o.Frees)+len(o.Events)+len(o.Left)+len(o.Tries) == 0 && o.Retire == 0 && o.Ready == 0 && !o.Stopped &&
		o.Counts == nil && len(o.Record) == 0
}

// Node is one node's data plane, pure: its sessions (package session's
// Session, Expiry, Handed, Delays), the grants by id, the records it owes
// its backup (session.Outbox) and keeps for others (session.Keeper), the
// users of each view's instances (the lock's, each semaphore's), and its
// readiness in a new view.
// Time is an input (ticks), and so is the control plane's lease left
// (Lease, before each input); every output is in the Out it is handed.
type Node struct {
	cfg     Config
	now     proc.Time
	lease   proc.Time
	ids     uint64
	clock   uint64 // Lamport: the fencing counters
	view    session.View
	gen     uint64 // this run's generation in view
	serving bool

	sessions map[uint64]*sess
	handed   session.Handed
	keeper   *session.Keeper
	expiry   session.Expiry[*sess]
	delays   session.Delays[*grant]
	users    map[instKey]*instUsers
	waiting  []*grant // requests waiting for a view to serve

	tables map[uint64]*nameTable // the lock names' ids, by view (names.go)

	backup    proc.ID // -1: none
	backupGen uint64
	// outGen: this node's generation when it began recording at the
	// backup; a new one of its own (it rejoined after a lost fence) moves
	// the backup too, as primary.go's moveBackup does: the backup answers
	// each record with the generation it was made by, and the node takes
	// only its own generation's answers.
	outGen uint64
	outbox session.Outbox[*rec]
	kas    map[uint64]*kaWait // keep-alives waiting for their record, by record number
	opens  map[uint64]*kaWait // opens waiting for their record, by record number
	ready  *readying
	stops  uint64 // lost fences so far
	early  []early

	// The quotas: the permits issued over the node's life, those asked
	// of the serving view's instances and not answered yet, and what the
	// counts may reach in the view (Limits), kept by package chunk's
	// rule, the service's too; the serving view's quotas, the node's
	// users of each instance, and the takes not yet asked.
	chunks *chunk.Quotas
	quotas []quotaView
	slots  map[instKey]*slots
	takes  []*take

	// The semaphores' units read from the control log (Config.Units),
	// and the Acquires waiting for a read.
	sems      map[int32]semRecord
	unitsWait []*grant
	// tries: the tries not answered, by grant id (TryOut, Behind).
	tries map[uint64]*grant
}

// semRecord is a semaphore's units as the control log had them when its
// newest view was epoch (the service's semRecord): good for an Acquire
// in that view or an earlier one. A node reads the log again at its
// first Acquire of the semaphore in a later view (a refresh between
// forgets the units of the semaphores nobody holds).
type semRecord struct {
	units int32
	epoch uint64
}

// quotaView is a quota in the view the node serves: spent (the ledger
// left it nothing: no instance), and guess (the view began short of an
// absent member's report: a reject proves nothing of the quota's waste).
type quotaView struct{ spent, guess bool }

// take is a client's Take of want permits, one at a time: waiting, or
// its next permit asked on user of the instance of quota q in view at
// (placed). got: the permits it got so far, over every view; inView:
// those of the view it is asked in (at a view change the service's
// take returns what it got in the old view, and answers if the lease
// ran out meanwhile); late: of got, those not counted yet
// (TakeCountLate).
type take struct {
	s      *sess
	client proc.ID
	req    uint64
	q      int32
	at     uint64
	user   proc.ID
	placed bool

	want, got, inView, late uint64
}

// slots is this node's users of one view's instance of a quota: the
// service's slots, a fixed block of users per member.
type slots struct {
	free   []proc.ID
	byUser map[proc.ID]*take
}

// early is records addressed to a generation of this node it has not
// taken on yet.
type early struct {
	from proc.ID
	k    Keep
}

type sess struct {
	st     session.Session
	grants session.Grants[*grant]
}

// grant is a Lock or Acquire of a session: its id and its life as the
// service's (session.GrantLife), and where this node asks it.
type grant struct {
	session.GrantLife
	s              *sess
	key            Key          // the lock, or a semaphore
	res            []proc.ResID // the lock's names, sorted
	epoch, counter uint64       // the token, once answered
	// tokenUnit: a semaphore's unit in view epoch, the one its token
	// names; unit: where it is held now (a new view numbers the units
	// afresh, and a regrant moves it).
	tokenUnit, unit int32
	client          proc.ID
	req             uint64 // the Lock or Acquire to answer (0: none)
	// Where it is asked: the instance of key in view at, and its user,
	// entered once the algorithm granted it there.
	at      uint64
	user    proc.ID
	placed  bool
	queued  bool // waiting for a slot of the instance of key in view at
	entered bool
	regrant bool // asked again in a new view, with its token
	// claimed: queued at the node's most users, counting on one given
	// back (users.Claim: uncounted once it is no longer queued).
	claimed bool
	// try: a try (Call.Try) not answered; tryN counts its asks, so a
	// give-up timer of an older one (another view's), or one the
	// algorithm's watch replaced (watched), does nothing.
	try     bool
	tryN    uint64
	watched bool
	leaked  bool // TryLeaks: answered Taken, left at its instance

	// ids: the names' resource ids in view at, from their homes (what
	// the lock's instance is asked for); resolving: waiting there for a
	// home's answer (names.go).
	ids       []proc.ResID
	resolving bool
}

// instUsers is this node's users of one view's instance of a key: made
// one per open request (the lock's, a large semaphore's), or a small
// semaphore's block of slots (block), the free ones in free, a request
// waiting in queue, in order, while every slot is taken (the service's
// grab and idle).
//
// Made one per request, they are counted by lazy (nil for a block of
// slots), package users' rule, which the service's locks.go runs too:
// at most Config.MaxLocks users of the lock, MaxSessions of a large
// semaphore (0: no limit), past which a request is refused unless a
// user given back is on its way to being free and not claimed by
// another request (it waits for it, claimed); a regrant makes a user
// past the most, and one going free while the most are free is not kept.
type instUsers struct {
	free   []proc.ID
	byUser map[proc.ID]*grant
	queue  []*grant
	lazy   *users.Lazy
}

type then uint8

const (
	thenNone    then = iota
	thenAnswer       // answer the Lock of g
	thenRelease      // give g back
	thenEnd          // the session's end is recorded: its grants go back
	thenOpen         // answer the open
	thenKA           // answer the keep-alive
	thenReady        // a record of the view change
)

// rec is a record in the outbox and what follows its acknowledgement.
type rec struct {
	stops  uint64 // the node's lost fences when it was first pushed
	pushed bool
	s      *sess
	end    session.Time
	then   then
	g      *grant
	held   []*grant
	delay  proc.Time
}

type kaWait struct {
	s        *sess
	client   proc.ID
	req      uint64
	deadline proc.Time
	lease    proc.Time // the node's lease when the call came: the answer says no more
}

// readying is a view change under way: the regrants not answered yet,
// the records not acknowledged, and how long the records are waited for.
type readying struct {
	epoch    uint64
	regrants int
	records  int
	until    proc.Time
	holding  []SemUnits // the semaphores held again (Config.Units)
}

// New is node cfg.Self's data plane, with nothing yet.
func New(cfg Config) *Node {
	k := len(cfg.Waste)
	counts := make([]uint64, k)
	copy(counts, cfg.Counts)
	return &Node{cfg: cfg, sessions: map[uint64]*sess{}, keeper: session.NewKeeper(), users: map[instKey]*instUsers{},
		tables: map[uint64]*nameTable{}, backup: -1, kas: map[uint64]*kaWait{}, opens: map[uint64]*kaWait{},
		chunks: chunk.New(counts), quotas: make([]quotaView, k), slots: map[instKey]*slots{},
		sems: map[int32]semRecord{}, tries: map[uint64]*grant{}}
}

// Limits sets what the node's counts may reach in view epoch, one per
// quota, for the next input (control.Node.Limit); a take is asked only
// in the view the limits are of.
func (n *Node) Limits(epoch uint64, l []Limit) {
	n.chunks.Set(epoch, func(i int) (uint64, bool) { return l[i].Max, l[i].OK })
}

// Counts is the permits of each quota the node has issued over its life.
func (n *Node) Counts() []uint64 {
	if n.chunks.Len() == 0 {
		return nil
	}
	return n.chunks.Counts()
}

// At sets the time and the control plane's lease left for the next input.
func (n *Node) At(now, lease proc.Time) { n.now, n.lease = now, lease }

// Stamp is the Lamport time a message of the node carries.
func (n *Node) Stamp() uint64 { n.clock++; return n.clock }

// Witness moves the clock up to a message's stamp.
func (n *Node) Witness(t uint64) { n.clock = max(n.clock, t) }

// id is a new session or grant id, of this node's run: node, run and a
// count (session.Find's ownRun).
func (n *Node) id() uint64 {
	n.ids++
	return uint64(n.cfg.Self+1)<<48 | (n.cfg.Run&0xffff)<<32 | n.ids
}

func (n *Node) ownRun(id uint64) bool { return id>>32 == uint64(n.cfg.Self+1)<<16|n.cfg.Run&0xffff }

func (n *Node) emit(o *Out, k proc.EventKind, s *proc.Session) {
	o.Events = append(o.Events, proc.Event{Kind: k, S: s})
}

func (n *Node) reply(o *Out, to proc.ID, r Reply) { o.Replies = append(o.Replies, Addressed{to, r}) }

// Call takes a client's call.
func (n *Node) Call(o *Out, from proc.ID, c Call) {
	if c.Op == OpOpen {
		n.open(o, from, c)
		return
	}
	if c.Op == OpHolders {
		n.holders(o, from, c)
		return
	}
	// The service's Take checks its quota and its count before the
	// session: a Take of more than the budget could never be filled,
	// and is refused before a permit is consumed.
	if c.Op == OpTake && (c.Sem < 0 || int(c.Sem) >= n.chunks.Len() || c.N < 1 || uint64(c.N) > n.budget(c.Sem)) {
		n.reply(o, from, Reply{Req: c.Req, Code: Invalid, Session: c.Session})
		return
	}
	s, code, r := n.session(c.Session)
	if s == nil {
		r.Req, r.Code, r.Session = c.Req, code, c.Session
		n.reply(o, from, r)
		return
	}
	switch c.Op {
	case OpKeepAlive:
		n.keepAlive(o, from, c, s)
	case OpLock, OpAcquire:
		if c.Op == OpAcquire && (c.Units < 1 || c.Sem < 0) {
			n.reply(o, from, Reply{Req: c.Req, Code: Invalid, Session: c.Session})
			return
		}
		g := &grant{GrantLife: session.GrantLife{ID: n.id()}, s: s, client: from, req: c.Req, try: c.Try}
		if g.try {
			n.tries[g.ID] = g
		}
		if c.Op == OpAcquire {
			g.key = Key{Sem: c.Sem, Units: c.Units}
		}
		for _, name := range c.Names {
			g.res = append(g.res, proc.ResID(name))
		}
		slices.Sort(g.res)
		g.res = slices.Compact(g.res)
		s.grants.Add(g)
		if n.unitsChecked(o, g) {
			n.place(o, g)
		}
	case OpTake:
		n.takes = append(n.takes, &take{s: s, client: from, req: c.Req, q: c.Sem, want: uint64(c.N)})
		n.issue(o)
	case OpUnlock, OpRelease:
		g := s.grants.Get(c.Grant)
		if g == nil || !g.Held() {
			n.reply(o, from, Reply{Req: c.Req, Code: NotHeld, Session: c.Session, Grant: c.Grant})
			return
		}
		s.grants.Drop(g.ID)
		n.reply(o, from, Reply{Req: c.Req, Code: OK, Session: c.Session, Grant: c.Grant})
		// Its user is on its way back (users.GivenBack, as the
		// service's givenBack): a request at the node's most waits for
		// it rather than being refused.
		if u := n.users[instKey{g.at, g.key}]; u != nil && g.placed && g.entered && u.lazy != nil {
			u.lazy.GivenBack(g.user)
		}
		// Recorded at the backup before it goes back (api.go, giveBack).
		n.push(o, &rec{s: s, then: thenRelease, g: g})
	case OpClose:
		n.end(o, s, 0, true)
		n.reply(o, from, Reply{Req: c.Req, Code: OK, Session: c.Session})
	}
}

// unitsChecked reports whether g, a new request or one that starts over
// in a new view, may be asked: its semaphore's units are checked
// (Config.Units) in the node's view, as the service's acquire checks
// them in every view it asks in (a refresh between forgets the units of
// the semaphores nobody holds, and a request not granted yet holds
// nothing). The units are read from the control log first unless the
// node read them in its view (one read per semaphore: the others wait
// for it, as the service's unitsRead; UnitsRead asks them); other
// units are refused (Mismatch).
func (n *Node) unitsChecked(o *Out, g *grant) bool {
	if g.key.Lock() || !n.cfg.Units || n.cfg.Broken == UnitsUnchecked {
		return true
	}
	r, ok := n.sems[g.key.Sem]
	switch {
	case ok && r.epoch >= n.view.Epoch && r.units != g.key.Units:
		n.mismatch(o, g, r.units)
	case ok && r.epoch >= n.view.Epoch:
		return true
	default:
		if !slices.ContainsFunc(n.unitsWait, func(w *grant) bool { return w.key.Sem == g.key.Sem }) {
			o.Record = append(o.Record, SemUnits{Sem: g.key.Sem, Units: g.key.Units})
		}
		n.unitsWait = append(n.unitsWait, g)
	}
	return false
}

// mismatch refuses g's request: its semaphore has units (the log's).
func (n *Node) mismatch(o *Out, g *grant, units int32) {
	g.s.grants.Drop(g.ID)
	g.Lose()
	n.reply(o, g.client, Reply{Req: g.req, Code: Mismatch, Session: g.s.st.ID, Units: units})
}

// place asks for g in the view served, or keeps it waiting for one.
func (n *Node) place(o *Out, g *grant) {
	if n.serving && n.lease > 0 {
		n.ask(o, g, n.view.Epoch)
		n.tryTimer(o, g)
	} else {
		n.waiting = append(n.waiting, g)
	}
}

// UnitsRead is the driver's word that the control log, its newest view
// epoch, has units for semaphore sem (Out.Record): the Acquires that
// waited for the read are refused if they gave other units (Mismatch),
// asked if not.
func (n *Node) UnitsRead(o *Out, sem, units int32, epoch uint64) {
	n.sems[sem] = semRecord{units, epoch}
	w := n.unitsWait
	n.unitsWait = nil
	for _, g := range w {
		switch {
		case g.key.Sem != sem:
			n.unitsWait = append(n.unitsWait, g)
		case g.State == session.Lost || g.s.st.Ended:
			// Its session ended meanwhile, and answered it (end).
		case g.key.Units != units:
			n.mismatch(o, g, units)
		default:
			n.place(o, g)
		}
	}
}

// session is the session id this node serves, or where it stands
// (session.Find) and the answer that says so.
func (n *Node) session(id uint64) (*sess, Code, Reply) {
	if s := n.sessions[id]; s != nil {
		return s, OK, Reply{}
	}
	primary, until, kept := n.keeper.Keeps(id)
	switch session.Find(kept, !kept && n.handed.Has(id, st(n.now)), n.ownRun(id)) {
	case session.Moving:
		if n.lease <= 0 {
			return nil, Unavailable, Reply{}
		}
		r := Reply{Lease: n.lease, Primary: proc.ID(primary)}
		if until != 0 {
			r.Kept, r.Said = ticks(session.Kept(st(n.now), until)), true
		}
		return nil, Moving, r
	case session.NotHere:
		return nil, NotHere, Reply{}
	}
	return nil, Expired, Reply{}
}

func (n *Node) open(o *Out, from proc.ID, c Call) {
	if n.lease <= 0 || !n.serving || c.TTL <= 0 {
		n.reply(o, from, Reply{Req: c.Req, Code: Unavailable})
		return
	}
	if n.cfg.MaxSessions > 0 && len(n.sessions) >= n.cfg.MaxSessions {
		// Adopted sessions count, and may have passed it (Adopt).
		n.reply(o, from, Reply{Req: c.Req, Code: NodeLimit})
		return
	}
	id := n.id()
	s := &sess{st: session.Opened(id, st(n.now), dur(c.TTL))}
	n.sessions[id] = s
	n.expiry.Add(s, s.st.Deadline)
	n.emit(o, proc.EvOpened, &proc.Session{ID: id, TTL: c.TTL})
	w := &kaWait{s: s, client: from, req: c.Req, deadline: n.now + 3*n.cfg.Slack, lease: n.lease}
	if k, ok := n.push(o, &rec{s: s, then: thenOpen}); ok {
		n.opens[k] = w
		return
	}
	n.answerAlive(o, w, w.lease)
}

func (n *Node) answerAlive(o *Out, w *kaWait, lease proc.Time) {
	n.reply(o, w.client, Reply{Req: w.req, Code: OK, Session: w.s.st.ID, TTL: ticks(w.s.st.TTL), Lease: lease})
}

// keepAlive is sessions.go's KeepAlive: recorded before it is answered
// unless the backup keeps the session half a slack past the new deadline
// already; a record not acknowledged within a quarter of the slack cuts
// the answer's lease to what the backup keeps (session.Lease.Promise).
func (n *Node) keepAlive(o *Out, from proc.ID, c Call, s *sess) {
	if n.lease <= 0 {
		n.reply(o, from, Reply{Req: c.Req, Code: Unavailable, Session: c.Session})
		return
	}
	if !s.st.KeepAlive(st(n.now)) {
		n.reply(o, from, Reply{Req: c.Req, Code: gone(s), Session: c.Session})
		return
	}
	w := &kaWait{s: s, client: from, req: c.Req, deadline: n.now + n.cfg.Slack/4, lease: n.lease}
	if s.st.Covered(dur(n.cfg.Slack)) {
		n.answerAlive(o, w, w.lease)
		return
	}
	if k, ok := n.push(o, &rec{s: s, then: thenKA}); ok {
		n.kas[k] = w
		return
	}
	n.answerAlive(o, w, w.lease)
}

// Small reports whether semaphore k is a small one, served as the
// service serves a semaphore of fewer units than a node's slots
// (service/semaphores.go): the cluster's semaphore algorithm on the
// view's fixed slots, Slots per member. The boundary is the node's
// slots because a node's held grants of k, at most R, must find slots
// in every view it asks them again in.
func (n *Node) Small(k Key) bool {
	return !k.Lock() && !k.Quota && int(k.Units) < n.cfg.Slots
}

// block is this node's slots of an instance on the slots in its view,
// the service's owner: users rank×Slots to rank×Slots+Slots-1, the
// first taken first.
func (n *Node) block() []proc.ID {
	rank, _ := slices.BinarySearch(n.view.Members, n.cfg.Self)
	free := make([]proc.ID, 0, n.cfg.Slots)
	for j := n.cfg.Slots - 1; j >= 0; j-- {
		free = append(free, proc.ID(rank*n.cfg.Slots+j))
	}
	return free
}

// ask asks for g on a user of this node in the instance of its key in
// epoch: a small semaphore's waits in order for a free slot. A new
// request past the node's most users of a lock or large semaphore
// instance is refused (NodeLimit: the service's RESOURCE_EXHAUSTED,
// NODE_LIMIT), or waits for a user given back that is not free yet
// (users.Lazy.Ask, as the service's grab and idle, claimed).
func (n *Node) ask(o *Out, g *grant, epoch uint64) {
	// A lock's names are resolved first, as the service's acquire and
	// regrant do before they take a user.
	if g.key.Lock() && !(g.regrant && n.cfg.Broken == NamesStale && g.ids != nil) && !n.resolve(o, g, epoch) {
		return
	}
	u := n.users[instKey{epoch, g.key}]
	if u == nil {
		u = &instUsers{byUser: map[proc.ID]*grant{}}
		if n.Small(g.key) {
			u.free = n.block()
		} else {
			// The service's placement (locks.go, a large semaphore's
			// too): user u on member u mod N, the ids below lockRange.
			most := n.cfg.MaxSessions
			if g.key.Lock() {
				most = n.cfg.MaxLocks
			}
			rank, _ := slices.BinarySearch(n.view.Members, n.cfg.Self)
			u.lazy = users.New(rank, len(n.view.Members), most, lockRange)
		}
		n.users[instKey{epoch, g.key}] = u
	}
	var id proc.ID
	switch k := len(u.free); {
	case k > 0:
		id, u.free = u.free[k-1], u.free[:k-1]
	case u.lazy == nil:
		// Not placed: a grant held in an older view is on no user of
		// this one until a slot is free (its release gives none back).
		g.at, g.placed, g.queued, g.entered = epoch, false, true, false
		u.queue = append(u.queue, g)
		return
	default:
		// At the node's most users, all busy, a regrant passes: the
		// node is ready in epoch only once its held grants are asked
		// again, and an adopter may hold more than its most.
		v, next := u.lazy.Ask(g.regrant && n.cfg.Broken != RegrantWithinLimits)
		switch {
		case v == users.Full && !g.regrant:
			n.refuseGrant(o, g)
			return
		case v != users.Make:
			// Claimed, or a regrant refused a user (RegrantWithinLimits,
			// or its ids at lockRange) waiting for any to be free.
			if v == users.Claim {
				g.claimed = true
			}
			g.at, g.placed, g.queued, g.entered = epoch, false, true, false
			u.queue = append(u.queue, g)
			return
		}
		id = next
		u.lazy.Made()
	}
	u.byUser[id] = g
	g.at, g.user, g.placed, g.queued, g.entered = epoch, id, true, false, false
	a := Ask{Epoch: epoch, Key: g.key, User: id, Res: g.ids}
	if g.try {
		a.Try = g.ID
	}
	o.Asks = append(o.Asks, a)
}

// tryTimer starts try g's give-up once it is asked in a view (on its
// user, or waiting for a slot; not refused): the service's TryWait timer,
// made after grab in each round of acquire's loop, so not counting the
// wait for a view to serve. A slot given later (free) keeps the timer,
// as the service's idle and request do.
func (n *Node) tryTimer(o *Out, g *grant) {
	if !g.try || !g.placed && !g.queued {
		return
	}
	g.tryN++
	g.watched = false
	wait := n.cfg.TryWait
	if wait <= 0 {
		wait = ticks(DefaultTryWait)
	}
	o.Tries = append(o.Tries, TryTimer{Grant: g.ID, N: g.tryN, After: wait})
}

// waitingTry reports whether try g still waits in the ask it made in
// view at on user (placed, not granted) or for a slot: one a give-up may
// withdraw.
func (n *Node) waitingTry(g *grant) bool {
	if g.State != session.Waiting || !g.try {
		delete(n.tries, g.ID)
		return false
	}
	return g.placed && !g.entered || g.queued
}

// TryOut is try grant's TryWait over, for its n-th ask: it gives up
// unless it was granted meanwhile, asked again since (a new view), or
// its algorithm's watch took over from the timer.
func (n *Node) TryOut(o *Out, grant, k uint64) {
	g := n.tries[grant]
	if g == nil || g.tryN != k || g.watched || !n.waitingTry(g) {
		return
	}
	n.giveUp(o, g)
}

// Watch is the driver's word that a.Try's user is of an algorithm that
// tells when it waits behind another (proc.Queued): as the service's
// acquire, the try no longer gives up on a timer, only once that
// algorithm says it is behind (Behind).
func (n *Node) Watch(a Ask) {
	if g := n.tries[a.Try]; g != nil && n.Watching(a) {
		g.watched = true
	}
}

// Watching reports whether the try of a.Try still waits on user a.User
// of the instance of a.Key in view a.Epoch: the driver stops watching
// it otherwise.
func (n *Node) Watching(a Ask) bool {
	g := n.tries[a.Try]
	return g != nil && n.waitingTry(g) && g.placed && g.at == a.Epoch && g.key == a.Key && g.user == a.User
}

// Behind is the algorithm's word that the try of a.Try waits behind
// another user (proc.Queued.Behind): it gives up at once (the service's
// watch, every 2 ms; the driver looks after every input instead).
func (n *Node) Behind(o *Out, a Ask) {
	if n.Watching(a) {
		n.giveUp(o, n.tries[a.Try])
	}
}

// giveUp answers try g Taken, as the service's acquire does (errTaken):
// it drops the grant from its session (s.drop: never recorded, since a
// grant is recorded at the backup only once granted), ends its wait for
// a slot, and abandons its ask: the algorithm's grant, if it comes, is
// given back at once (Entered: lost). A grant that came before the
// give-up was answered as any other.
func (n *Node) giveUp(o *Out, g *grant) {
	delete(n.tries, g.ID)
	g.try = false
	n.reply(o, g.client, Reply{Req: g.req, Code: Taken, Session: g.s.st.ID})
	if n.cfg.Broken == TryLeaks {
		g.leaked = true // granted later, answered to nobody
		return
	}
	g.s.grants.Drop(g.ID)
	g.Lose()
	n.unqueue(g)
}

// refuseGrant answers g's request refused at the node's limit: it is
// no grant of its session.
func (n *Node) refuseGrant(o *Out, g *grant) {
	g.s.grants.Drop(g.ID)
	delete(n.tries, g.ID)
	g.Lose()
	n.reply(o, g.client, Reply{Req: g.req, Code: NodeLimit, Session: g.s.st.ID})
}

// unqueue drops g from the requests waiting for a slot.
func (n *Node) unqueue(g *grant) {
	if !g.queued {
		return
	}
	g.queued = false
	claimed := g.claimed
	g.claimed = false
	if u := n.users[instKey{g.at, g.key}]; u != nil {
		u.queue = slices.DeleteFunc(u.queue, func(x *grant) bool { return x == g })
		if claimed {
			u.lazy.Unclaim()
		}
	}
}

// release gives g back in its instance (once), or drops it if it is not
// entered there yet (abandon: the algorithm's answer is given back when
// it comes).
func (n *Node) release(o *Out, g *grant) {
	g.Release()
	if !g.placed || !g.entered {
		return
	}
	n.free(o, g)
}

func (n *Node) free(o *Out, g *grant) {
	u := n.users[instKey{g.at, g.key}]
	g.placed = false
	if u == nil {
		return // its view retired: the instance is gone
	}
	delete(u.byUser, g.user)
	if u.lazy != nil {
		u.lazy.Returned(g.user) // free: not on its way back any more
	}
	o.Frees = append(o.Frees, Ask{Epoch: g.at, Key: g.key, User: g.user})
	// A user is kept only while the node has at most its most alive
	// (users.Keep): one made past it for a regrant is dropped (the
	// service's putBack), its id not given again, and a request waiting
	// goes on waiting (the node is still at its most).
	if u.lazy != nil && !u.lazy.Keep() {
		u.lazy.Dropped()
		return
	}
	// The slot goes to the first request waiting for one (released
	// first: Frees go before Asks).
	u.free = append(u.free, g.user)
	if len(u.queue) > 0 {
		next := u.queue[0]
		u.queue = u.queue[1:]
		next.queued = false
		if next.claimed {
			next.claimed = false
			u.lazy.Unclaim()
		}
		n.ask(o, next, g.at)
	}
}

// Entered is the instance of a.Key in view a.Epoch granting user a.User
// its request (a semaphore's: unit a.Unit of that view; a quota's: a
// permit, or a reject).
func (n *Node) Entered(o *Out, a Ask) {
	if a.Key.Quota {
		n.permit(o, a)
		return
	}
	epoch := a.Epoch
	u := n.users[instKey{epoch, a.Key}]
	if u == nil {
		return
	}
	g := u.byUser[a.User]
	if g == nil {
		return
	}
	g.entered, g.unit = true, a.Unit
	if g.regrant {
		// Asked again in a new view: it counts for the node's readiness
		// whether it is still wanted or was given back meanwhile.
		g.regrant = false
		if n.ready != nil && n.ready.epoch == epoch {
			n.ready.regrants--
			n.readyCheck(o)
		}
		if g.State == session.Released {
			n.free(o, g)
		} else if !g.s.st.Ended {
			n.emit(o, proc.EvHeld, &proc.Session{ID: g.s.st.ID, Grant: g.ID, Call: g.req})
		}
		return
	}
	switch {
	case g.State == session.Released || g.State == session.Lost:
		n.free(o, g)
	case epoch != n.view.Epoch || !n.serving || n.lease <= 0:
		// The view changed, or the lease ran out, before the answer: the
		// request starts over in the next view that serves (acquire).
		n.free(o, g)
		n.waiting = append(n.waiting, g)
	default:
		// A try granted before it gave up is answered as any request.
		g.try = false
		delete(n.tries, g.ID)
		g.Answer()
		g.epoch, g.counter, g.tokenUnit = epoch, n.Stamp(), a.Unit
		n.emit(o, proc.EvHeld, &proc.Session{ID: g.s.st.ID, Grant: g.ID, Call: g.req})
		// Never answered before the backup has it.
		n.push(o, &rec{s: g.s, then: thenAnswer, g: g})
	}
}

func quotaKey(q int32) Key { return Key{Sem: q, Quota: true} }

// issue asks for the takes waiting, in order, each on a free user of its
// quota's instance in the view served, within the node's chunk (package
// chunk's Reserve, as the service's take: chunks.reserve, then the
// request on a slot); a quota
// the view has nothing of is refused at once. A take waits while the
// node does not serve, no user of its is free, or one more permit could
// pass the node's limit (until the report that moves it commits).
func (n *Node) issue(o *Out) {
	if !n.serving || n.lease <= 0 {
		return
	}
	epoch := n.view.Epoch
	n.takes = slices.DeleteFunc(n.takes, func(t *take) bool {
		switch {
		case t.placed:
			return false
		case t.s.st.Ended:
			// Asked in a view that changed, its session ended since.
			n.answerTake(o, t, gone(t.s))
			return true
		}
		if qv := n.quotas[t.q]; qv.spent {
			n.refuse(o, t, qv)
			return true
		}
		sl := n.slots[instKey{epoch, quotaKey(t.q)}]
		k := len(sl.free)
		switch {
		case k == 0:
			return false
		case n.cfg.Broken == QuotaNoChunk:
			n.chunks.Overdraw(int(t.q))
		case !n.chunks.Reserve(epoch, int(t.q)):
			return false
		}
		t.user, sl.free = sl.free[k-1], sl.free[:k-1]
		t.at, t.placed = epoch, true
		sl.byUser[t.user] = t
		o.Asks = append(o.Asks, Ask{Epoch: epoch, Key: quotaKey(t.q), User: t.user})
		return false
	})
}

// budget is quota q's M (none given: any count goes).
func (n *Node) budget(q int32) uint64 {
	if int(q) < len(n.cfg.Budgets) {
		return n.cfg.Budgets[q]
	}
	return math.MaxUint64
}

// refuse answers t's reject: RESOURCE_EXHAUSTED, or UNAVAILABLE in a
// view that began short of an absent member's report (the service's
// guess: the reject proves nothing of the quota's waste).
func (n *Node) refuse(o *Out, t *take, qv quotaView) {
	code := Exhausted
	if qv.guess {
		code = Unavailable
	}
	n.answerTake(o, t, code)
}

// answerTake answers t with code and the permits it got, which are
// consumed whatever the code (the service's TakeResponse, or takeShort's
// count: QUOTA_EXHAUSTED, TAKE_CUT_SHORT); those not counted yet are
// counted first (TakeCountLate: only now), so the answer never tells a
// permit the disk does not have.
func (n *Node) answerTake(o *Out, t *take, code Code) {
	if t.late > 0 {
		q := int(t.q)
		n.chunks.Settle(q, int(t.late), n.chunks.Count(q)+t.late)
		t.late = 0
		o.Counts = n.chunks.Counts()
	}
	n.reply(o, t.client, Reply{Req: t.req, Code: code, Session: t.s.st.ID, Permits: int64(t.got)})
}

// permit is the answer of a quota's instance to a take: a permit is
// counted (the driver writes the counts before the answer goes,
// Out.Counts), and consumed whatever the answer; it is handed out only
// while the node serves (the service's lapsed Take: UNAVAILABLE, the
// permit spent). Only the instance of the node's view answers: an older
// one stopped when the node adopted its view (unplace).
func (n *Node) permit(o *Out, a Ask) {
	sl := n.slots[instKey{a.Epoch, a.Key}]
	if sl == nil {
		return
	}
	t := sl.byUser[a.User]
	if t == nil {
		return
	}
	delete(sl.byUser, a.User)
	sl.free = append(sl.free, a.User)
	t.placed = false
	n.takes = slices.DeleteFunc(n.takes, func(x *take) bool { return x == t })
	if a.Rejected {
		n.chunks.Settle(int(t.q), 1, 0)
		n.refuse(o, t, n.quotas[t.q])
		n.issue(o)
		return
	}
	// Issued, whatever comes of it (told, or lost with the session or
	// the lease): the checker holds the nodes' permits to the budget.
	n.emit(o, proc.EvIssued, &proc.Session{ID: t.s.st.ID, Quota: t.q + 1})
	t.got++
	t.inView++
	more := t.got < t.want && !t.s.st.Ended
	if n.cfg.Broken == TakeCountLate && more {
		t.late++ // held against the chunk, reserved, not counted
	} else {
		n.chunks.Settle(int(t.q), 1, n.chunks.Count(int(t.q))+1)
		o.Counts = n.chunks.Counts()
	}
	switch {
	case t.s.st.Ended:
		// The service's take stops at the session's end: what it got is
		// its count (TAKE_CUT_SHORT), the code the session's.
		n.answerTake(o, t, gone(t.s))
	case more:
		// The next permit, on a slot taken again: the service's Take
		// gives its slot back after each answer and waits for one behind
		// the other takes waiting (a channel's receivers, in order).
		n.takes = append(n.takes, t)
	case !n.serving || n.lease <= 0:
		// Every permit taken, the lease out meanwhile: the service's
		// lapsed take, UNAVAILABLE with the count (TAKE_CUT_SHORT).
		n.answerTake(o, t, Unavailable)
	default:
		n.answerTake(o, t, OK)
	}
	n.issue(o)
}

// unplace takes back the takes asked in views before epoch: their
// instances stop, and what they did not answer was not issued; they
// are asked again once a view serves (the service's Take goes on in the
// next view with the rest). A take that got permits in the view it
// leaves while the node's lease is out answers with them instead (the
// service's lapsed take: UNAVAILABLE, TAKE_CUT_SHORT).
func (n *Node) unplace(o *Out, before uint64) {
	n.takes = slices.DeleteFunc(n.takes, func(t *take) bool {
		if t.placed && t.at < before {
			t.placed = false
			n.chunks.Settle(int(t.q), 1, 0)
		}
		if t.placed {
			return false
		}
		lapsed := t.inView > 0 && n.lease <= 0
		t.inView = 0
		if lapsed {
			n.answerTake(o, t, Unavailable)
		}
		return lapsed
	})
	for k := range n.slots { // any order: it only deletes
		if k.Epoch < before {
			delete(n.slots, k)
		}
	}
}

// push records s at the backup, to do r.then once the backup has it;
// false (and r.then done now, or dropped for a keep-alive's or an open's
// answer, which the caller gives) when there is no backup.
func (n *Node) push(o *Out, r *rec) (uint64, bool) {
	if n.backup < 0 {
		n.done(o, r)
		return 0, false
	}
	var grants []session.Grant
	for _, g := range r.s.grants.Held() {
		// As the service's primary.go: a lock's names; a semaphore's key
		// and the unit its token names.
		rg := session.Grant{ID: g.ID, Key: g.key.String(), Epoch: g.epoch, Counter: g.counter}
		if g.key.Lock() {
			rg.Names = names(g.res)
		} else {
			rg.Unit = g.tokenUnit
		}
		grants = append(grants, rg)
	}
	r2, end := r.s.st.Record(st(n.now), dur(n.cfg.Slack), grants)
	r.end = end
	if !r.pushed {
		// A record pushed again at a new backup (moveBackup) keeps its
		// first fences: an end made before a lost fence is handed, not
		// recorded, whoever acknowledges it later (the session may have
		// been adopted meanwhile).
		r.stops, r.pushed = n.stops, true
	}
	k, _ := n.outbox.Push(r)
	o.Sends = append(o.Sends, Addressed{n.backup, Keep{Primary: n.cfg.Self, Gen: n.gen, To: n.backupGen, Epoch: n.view.Epoch, Recs: []KeepRec{{N: k, Record: r2}}}})
	return k, true
}

func names(res []proc.ResID) []string {
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = string(rune('a' + r))
	}
	return out
}

// done does what follows r's acknowledgement.
func (n *Node) done(o *Out, r *rec) {
	switch r.then {
	case thenAnswer:
		g := r.g
		if g.leaked {
			return // TryLeaks: nobody waits for it
		}
		if g.s.st.Ended || g.State == session.Released {
			// Ended meanwhile: end gives it back.
			n.reply(o, g.client, Reply{Req: g.req, Code: gone(g.s), Session: g.s.st.ID})
			return
		}
		n.reply(o, g.client, Reply{Req: g.req, Code: OK, Session: g.s.st.ID, Grant: g.ID, Epoch: g.epoch, Counter: g.counter, Unit: g.tokenUnit})
	case thenRelease:
		n.release(o, r.g)
	case thenEnd:
		if r.stops != n.stops {
			// The node stopped serving before its backup had the end: the
			// backup answers a record of a run it took over (or moved
			// away from) as it does one it kept (the service's Keep), so
			// the end may not be kept there, and the backup may have
			// adopted the session. It is handed, not ended; its grants
			// go back here (the node's instance is gone) and are not held
			// by a lock-delay to be asked again beside the adopter's.
			n.emit(o, proc.EvHanded, &proc.Session{ID: r.s.st.ID})
			for _, g := range r.held {
				n.release(o, g)
			}
			return
		}
		n.emit(o, proc.EvEnded, &proc.Session{ID: r.s.st.ID})
		for _, g := range r.held {
			if r.delay > 0 {
				n.delays.Add(g, st(n.now+r.delay))
			} else {
				n.release(o, g)
			}
		}
	}
}

// gone is the answer to a call of s once it ended (session.Gone).
func gone(s *sess) Code {
	if s.st.Gone() == session.NotHere {
		return NotHere
	}
	return Expired
}

// KeepAck is the backup's answer.
func (n *Node) KeepAck(o *Out, from proc.ID, a KeepAck) {
	if from != n.backup || a.Gen != n.gen {
		return
	}
	for _, r := range n.outbox.Ack(a.N) {
		r.s.st.Acked(r.end)
		n.done(o, r)
	}
	// In record order, not the maps' order: the answers leave in it.
	for _, k := range slices.Sorted(maps.Keys(n.kas)) {
		if w := n.kas[k]; k <= a.N {
			delete(n.kas, k)
			n.answerAlive(o, w, w.lease)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(n.opens)) {
		if w := n.opens[k]; k <= a.N {
			delete(n.opens, k)
			if w.s.st.Ended {
				n.reply(o, w.client, Reply{Req: w.req, Code: Unavailable})
			} else {
				n.answerAlive(o, w, w.lease)
			}
		}
	}
	if n.ready != nil && n.ready.records > 0 {
		n.ready.records = 0
		for _, p := range n.outbox.Send(0, st(n.now)) {
			if p.Record.then == thenReady {
				n.ready.records++
			}
		}
		n.readyCheck(o)
	}
}

// Keep takes another node's records, as its backup: those addressed to
// this node's generation, while it has not stopped serving since it took
// it on (later generations' wait until this node adopts a view that gives
// it one). Those addressed to an earlier generation are dropped, not
// answered: a link resends a primary's records to the node's address,
// and a node restarted, or rejoined after it stopped serving, is not
// the backup they were made for (it did not see the views since: kept,
// they would be adopted in a view that names it the successor of a
// fenced primary run, stale). The primary records again at the new
// generation once its view says the backup's generation changed.
func (n *Node) Keep(o *Out, from proc.ID, k Keep) {
	switch n.keeper.Admit(k.To) {
	case session.AdmitLater:
		n.early = append(n.early, early{from, k})
		return
	case session.AdmitDrop:
		return
	}
	recs := make([]session.Record, 0, len(k.Recs))
	var top uint64
	forget := false
	for _, r := range k.Recs {
		recs = append(recs, r.Record)
		top = max(top, r.N)
		forget = forget || r.N == 1
	}
	n.keeper.Keep(st(n.now), session.Run{Node: int(k.Primary), Gen: k.Gen}, k.Epoch, forget, recs)
	o.Sends = append(o.Sends, Addressed{from, KeepAck{Gen: k.Gen, N: top}})
}

// end ends s: with its end recorded at the backup (its grants go back
// once it has it, after delay), or handed to the backup (the node stopped
// serving: the backup adopts it).
func (n *Node) end(o *Out, s *sess, delay proc.Time, record bool) {
	handed, ok := s.st.End(record)
	if !ok {
		return
	}
	delete(n.sessions, s.st.ID)
	if !record {
		n.handed.Add(s.st.ID, handed)
		n.emit(o, proc.EvHanded, &proc.Session{ID: s.st.ID})
	} else {
		n.handed.Remove(s.st.ID)
	}
	held, lost := s.grants.End()
	for _, g := range lost {
		delete(n.tries, g.ID)
		n.unqueue(g)
		if g.placed && g.entered {
			n.free(o, g)
		}
		if g.req != 0 {
			n.reply(o, g.client, Reply{Req: g.req, Code: gone(s), Session: s.st.ID})
		}
	}
	n.waiting = slices.DeleteFunc(n.waiting, func(g *grant) bool { return g.s == s })
	// A take asked is answered when its instance answers: a permit then
	// is issued all the same.
	n.takes = slices.DeleteFunc(n.takes, func(t *take) bool {
		if t.s != s || t.placed {
			return false
		}
		n.answerTake(o, t, gone(s))
		return true
	})
	if record {
		n.push(o, &rec{s: s, then: thenEnd, held: held, delay: delay})
		return
	}
	for _, g := range held {
		n.release(o, g)
	}
}

// Tick looks at the deadlines: the lock-delays over, the sessions run
// out, the keep-alives and opens whose record did not come back in time,
// and a view change's wait for its records.
func (n *Node) Tick(o *Out) {
	now := st(n.now)
	gs, _ := n.delays.Due(now)
	for _, g := range gs {
		n.release(o, g)
	}
	for {
		s, _, ok := n.expiry.Next(now)
		if !ok {
			break
		}
		switch s.st.Due(now, n.lease > 0) {
		case session.Later:
			n.expiry.Add(s, s.st.Deadline)
		case session.Wait:
			n.expiry.Add(s, now.Add(50*Tick))
		case session.Expire:
			delay := n.cfg.LockDelay
			if n.cfg.Broken == NoLockDelay {
				delay = 0
			}
			n.end(o, s, delay, true)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(n.kas)) {
		w := n.kas[k]
		if n.now < w.deadline {
			continue
		}
		delete(n.kas, k)
		if l, ok := w.s.st.Promise(now, dur(w.lease)); ok && n.lease > 0 {
			n.answerAlive(o, w, ticks(l))
		} else {
			n.reply(o, w.client, Reply{Req: w.req, Code: Unavailable, Session: w.s.st.ID})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(n.opens)) {
		w := n.opens[k]
		if n.now < w.deadline {
			continue
		}
		delete(n.opens, k)
		n.end(o, w.s, 0, true) // its record may reach the backup yet
		n.reply(o, w.client, Reply{Req: w.req, Code: Unavailable})
	}
	if n.ready != nil && n.now >= n.ready.until {
		n.ready.records = 0
		n.readyCheck(o)
	}
	// The limits may have grown since (a report committed).
	n.issue(o)
}

// Adopt moves the node to view v, which replaced prev (ctl.go, adopt):
// older instances stop, the sessions kept for a run v leaves out are
// adopted, every grant held (and held by a lock-delay) is asked again in
// v with its token, a request not answered starts over once v serves,
// and the sessions are recorded at the backup of v if it moved. Ready
// comes once all that is done (the records waited for a slack at most).
func (n *Node) Adopt(o *Out, v, prev control.View) {
	sv, sp := sessionView(v), sessionView(prev)
	n.view, n.serving = sv, false
	i, _ := slices.BinarySearch(v.Members, n.cfg.Self)
	n.gen = v.Gens[i]
	o.Retire = v.Epoch
	for k := range n.users { // any order: it only deletes
		if k.Epoch < v.Epoch {
			delete(n.users, k)
		}
	}
	n.forget(v.Epoch)
	n.unplace(o, v.Epoch)
	clear(n.quotas)
	t := n.keeper.TakeOver(st(n.now), int(n.cfg.Self), sv, sp)
	n.keeper.Serve(n.gen)
	var adopted []*sess
	for _, a := range t.Adopt {
		if n.sessions[a.Record.ID] != nil {
			continue
		}
		if n.cfg.Broken == AdoptFresh {
			a.Lease = session.Adopt(st(n.now), a.Record.TTL, 0)
		}
		s := &sess{st: session.Adopted(a)}
		for _, rg := range a.Record.Grants {
			key, err := parseKey(rg.Key)
			if err != nil {
				panic(err) // records are this package's own
			}
			g := &grant{GrantLife: session.GrantLife{ID: rg.ID, State: session.Answered}, s: s, key: key, epoch: rg.Epoch, counter: rg.Counter, tokenUnit: rg.Unit, client: proc.None}
			for _, name := range rg.Names {
				g.res = append(g.res, proc.ResID(name[0]-'a'))
			}
			s.grants.Add(g)
		}
		n.sessions[s.st.ID] = s
		n.handed.Remove(s.st.ID)
		n.expiry.Add(s, s.st.Deadline)
		n.emit(o, proc.EvAdopted, &proc.Session{ID: s.st.ID})
		adopted = append(adopted, s)
	}
	r := &readying{epoch: v.Epoch, until: n.now + n.cfg.Slack}
	n.ready = r
	var held []*grant
	for _, id := range slices.Sorted(maps.Keys(n.sessions)) {
		s := n.sessions[id]
		for _, g := range s.grants.List() {
			switch {
			case g.Held():
				held = append(held, g)
			case g.placed || g.queued || g.resolving:
				// Asked in an older view (or waiting for a slot there, or
				// for its names' ids), not answered: it starts over once
				// v serves.
				g.placed, g.queued, g.claimed, g.resolving = false, false, false, false
				n.waiting = append(n.waiting, g)
			}
		}
	}
	for _, g := range n.delays.Held() {
		if g.Held() {
			held = append(held, g)
		}
	}
	if n.cfg.Broken == SemNoRegrant {
		held = slices.DeleteFunc(held, func(g *grant) bool { return !g.key.Lock() })
	}
	if n.cfg.Units && n.cfg.Broken != RefreshForgetsHeld {
		r.holding = holding(held)
	}
	for _, g := range held {
		g.regrant = true
		r.regrants++
		n.ask(o, g, v.Epoch)
	}
	n.moveBackup(o, adopted)
	// The records that came for this generation before the view did.
	e := n.early
	n.early = nil
	for _, x := range e {
		n.Keep(o, x.from, x.k)
	}
	n.readyCheck(o)
}

func sessionView(v control.View) session.View {
	return session.View{Epoch: v.Epoch, Members: v.Members, Gens: v.Gens}
}

// moveBackup makes the backup the one of the view (primary.go): if it
// moved, every session is recorded there, else the adopted ones.
func (n *Node) moveBackup(o *Out, adopted []*sess) {
	to, gen := proc.ID(-1), uint64(0)
	if b := session.Successor(int(n.cfg.Self), n.view); b >= 0 {
		to = proc.ID(b)
		i, _ := slices.BinarySearch(n.view.Members, to)
		gen = n.view.Gens[i]
	}
	record := adopted
	if to != n.backup || gen != n.backupGen || n.gen != n.outGen || n.outbox.Made() == 0 {
		left := n.outbox.Close()
		n.outbox = session.Outbox[*rec]{}
		if n.backup >= 0 {
			o.Left = append(o.Left, n.backup)
		}
		n.backup, n.backupGen, n.outGen = to, gen, n.gen
		record = nil
		for _, id := range slices.Sorted(maps.Keys(n.sessions)) {
			s := n.sessions[id]
			s.st.Moved()
			record = append(record, s)
		}
		// What the old backup did not acknowledge is done once the new
		// one has the session (the view that moved it records it again).
		for _, r := range left {
			if r.then == thenOpen || r.then == thenKA || r.then == thenReady {
				continue
			}
			n.push(o, r)
		}
		// The calls waiting for a record wait for the new backup's.
		for _, m := range []map[uint64]*kaWait{n.opens, n.kas} {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				w := m[k]
				delete(m, k)
				if k2, ok := n.push(o, &rec{s: w.s}); ok {
					m[k2] = w
				} else {
					n.answerAlive(o, w, w.lease)
				}
			}
		}
	}
	for _, s := range record {
		if _, ok := n.push(o, &rec{s: s, then: thenReady}); ok {
			n.ready.records++
		}
	}
}

// holding is the semaphores of the grants held, each once, by id, with
// their units (the service's heldSemaphores).
func holding(held []*grant) []SemUnits {
	var out []SemUnits
	for _, g := range held {
		if !g.key.Lock() && !g.key.Quota {
			out = append(out, SemUnits{Sem: g.key.Sem, Units: g.key.Units})
		}
	}
	slices.SortFunc(out, func(a, b SemUnits) int { return cmp.Or(cmp.Compare(a.Sem, b.Sem), cmp.Compare(a.Units, b.Units)) })
	return slices.CompactFunc(out, func(a, b SemUnits) bool { return a.Sem == b.Sem })
}

func (n *Node) readyCheck(o *Out) {
	if r := n.ready; r != nil && r.regrants <= 0 && r.records <= 0 {
		o.Ready, o.Holding = r.epoch, r.holding
		n.ready = nil
	}
}

// Serve opens the view: the requests waiting are asked in it. left is
// what the view may issue of each quota (control.Change.Left, in the
// order of the quotas): the node's users of each instance are its
// block of Slots (the service's owner), and a quota left nothing has no
// instance.
func (n *Node) Serve(o *Out, epoch uint64, left []control.QuotaLeft) {
	if epoch != n.view.Epoch {
		return
	}
	n.serving = true
	for i, l := range left {
		n.quotas[i] = quotaView{spent: l.Left == 0, guess: l.Reserve+min(n.cfg.Waste[i], l.Left) > n.cfg.Waste[i]}
		if l.Left == 0 {
			continue
		}
		n.slots[instKey{epoch, quotaKey(int32(i))}] = &slots{free: n.block(), byUser: map[proc.ID]*take{}}
	}
	w := n.waiting
	n.waiting = nil
	for _, g := range w {
		if g.State != session.Lost && !g.s.st.Ended && n.unitsChecked(o, g) {
			n.ask(o, g, epoch)
			n.tryTimer(o, g)
		}
	}
	n.issue(o)
}

// Fence stops serving epoch; lost: the node is out of the cluster's view,
// its instances stop and its sessions are handed to their backup (ctl.go,
// fence).
func (n *Node) Fence(o *Out, epoch uint64, lost bool) {
	if epoch == n.view.Epoch {
		n.serving = false
	}
	if !lost {
		return
	}
	n.stops++
	// The node rejoins as a new generation, and what its old one kept
	// for other nodes is no promise: the views it misses meanwhile move
	// their backups elsewhere (their later records, their ends, are
	// there), while a view that lists a primary's run after it (a run
	// fenced unknown to the others) may name this node its successor
	// again. Its primaries record every session again at the new
	// generation (a backup of another generation moved).
	n.keeper.Stop()
	o.Retire = n.view.Epoch + 1
	for k := range n.users { // any order: it only deletes
		if k.Epoch == n.view.Epoch {
			delete(n.users, k)
		}
	}
	n.unplace(o, n.view.Epoch+1)
	n.ready = nil
	for _, id := range slices.Sorted(maps.Keys(n.sessions)) {
		n.end(o, n.sessions[id], 0, n.cfg.Broken == FenceEnds)
	}
	for _, g := range n.delays.Held() {
		g.placed, g.queued, g.claimed = false, false, false
	}
	o.Stopped = true
}
