package dataplane

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// lockRange is the lock instance's users and resources, as the service's
// (names.go): the managers come after the users. A semaphore's instance
// has as many users, its owner after them (the service's large
// semaphores: instance.go, problem).
const lockRange = 1 << 24

// ProcessConfig is a node: its control plane, its data plane and the
// algorithms it hosts per view.
type ProcessConfig struct {
	Control control.Config
	Data    Config
	// Lock serves the lock, Pool the large semaphores (the service's:
	// central-pool, its users made one per open request, its owner the
	// one process after them); each makes its processes one at a time
	// (Process). Pool is needed only if the clients acquire one of at
	// least Data.Slots units, SmallPool if they acquire one of fewer
	// (the service's semaphore algorithm, R-RESOURCES by default). Quota
	// serves the quotas (Control.Quotas; the service's controller).
	// SmallPool and Quota serve one instance per key in each view, built
	// whole (Build) on Data.Slots users per member, their tree the
	// service's.
	Lock, Pool, SmallPool, Quota algo.Algorithm
	// Resend: how often a link resends what was not acknowledged.
	Resend proc.Time
	// RefreshEvery: how often (ticks) the node, while it leads the
	// control plane, proposes a refresh of the view (the service's
	// refresher, --refresh-every: control.Node.ProposeRefresh); 0: never.
	RefreshEvery proc.Time
}

// Process is a whole node as a proc.Process, for the simulator: the
// control plane (control.Node, driven as control.Process drives it, its
// Disk kept across restarts), the data plane (Node), the lock instance of
// each view it adopts and the instance of each semaphore asked in it (the
// algorithm's processes this node owns, made as first used, their
// messages in Inst), and the links that carry the data
// plane's messages between nodes reliably and in order (Link, LinkAck:
// the service's links). Clients' calls come as Call and are answered
// with Reply.
type Process struct {
	cfg  ProcessConfig
	disk *control.Disk
	ctl  *control.Node
	dp   *Node
	rand *rand.Rand

	inst map[instKey]*hosted
	// retired: the instances of views older than this stopped for good.
	retired uint64
	// early: instance messages of a view not adopted yet.
	early map[uint64][]Inst
	out   map[proc.ID]*sendLink
	in    map[proc.ID]*recvLink
	local []Inst // messages between this node's own processes, not delivered yet
	// entered: users whose algorithm granted them, not told to dp yet
	entered []Ask
	// watch: the tries asked on a user of an algorithm that tells when
	// it waits behind another (proc.Queued), looked at after every input
	// (the service's watch asks every 2 ms).
	watch []Ask
	// left: what the view served, served, may issue of each quota.
	left   []control.QuotaLeft
	served uint64
	// reads: the semaphores whose units the data plane waits to read
	// from the control log (Out.Record), by semaphore.
	reads map[int32]*unitsRead
}

// unitsRead is a read of a semaphore's units from the control log (the
// service's readUnits): the units proposed as its first use, the log's
// view when they were last proposed, and when to propose them again (a
// proposal may be lost: no leader, a leader change).
type unitsRead struct {
	units    int32
	proposed uint64
	again    proc.Time
}

// instKey names an instance: its view and what it serves.
type instKey struct {
	Epoch uint64
	Key   Key
}

// hosted is this node's share of one view's instance of a key.
type hosted struct {
	epoch   uint64
	key     Key
	members []proc.ID
	procs   map[proc.ID]proc.Process
	pb      *algo.Problem
	// built: the processes of an instance on the slots (a quota's, a
	// small semaphore's), all of them, as Build makes them; this node
	// starts its own, its block of slots, when it makes the instance.
	built []proc.Process
	slots int
}

type sendLink struct {
	seq     uint64
	pending []Link
}

type recvLink struct {
	run  uint64
	next uint64
}

// NewProcess is node cfg.Control.Self on disk (control.Bootstrap for a
// new one), which the process writes.
func NewProcess(cfg ProcessConfig, disk *control.Disk) *Process {
	return &Process{cfg: cfg, disk: disk}
}

// Restarted is a new process on a copy of the disk: the sessions, the
// records kept, the instances and the links are lost with the run.
func (p *Process) Restarted() proc.Process {
	d := p.disk.Clone()
	return NewProcess(p.cfg, &d)
}

// Start starts the node on its disk as a new run.
func (p *Process) Start(env proc.Env) {
	p.disk.Runs++
	cc := p.cfg.Control
	cc.Run, cc.Rand = p.disk.Runs, env.Rand()
	if len(cc.Quotas) > 0 {
		// What the node issued, as its disk has it: the control node
		// reports them, the data plane counts on from them.
		cc.Counts = make([]uint64, len(cc.Quotas))
		copy(cc.Counts, p.disk.Counts)
	}
	p.rand = env.Rand()
	n, err := control.New(cc, p.disk.Clone(), env.Now())
	if err != nil {
		panic(fmt.Sprintf("dataplane process %d: %v", cc.Self, err)) // a configuration error of the driver's
	}
	p.ctl = n
	dc := p.cfg.Data
	dc.Self, dc.Run, dc.Counts = cc.Self, p.disk.Runs, cc.Counts
	dc.Budgets = nil
	for _, q := range cc.Quotas {
		dc.Budgets = append(dc.Budgets, q.Budget)
	}
	p.dp = New(dc)
	p.inst, p.early = map[instKey]*hosted{}, map[uint64][]Inst{}
	p.out, p.in = map[proc.ID]*sendLink{}, map[proc.ID]*recvLink{}
	p.reads = map[int32]*unitsRead{}
	env.After(p.tickEvery(), tickTimer{})
	env.After(dataEvery, dataTimer{})
	env.After(p.cfg.Resend, resendTimer{})
	if p.cfg.RefreshEvery > 0 {
		env.After(p.cfg.RefreshEvery, refreshTimer{})
	}
	p.flush(env, &Out{})
}

// dataEvery is how often the data plane looks at its deadlines, in ticks.
const dataEvery = 10

func (p *Process) tickEvery() proc.Time { return p.cfg.Control.Lease / control.LeaseTicks }

func (p *Process) at(env proc.Env) *Out {
	p.dp.At(env.Now(), p.ctl.LeaseLeft(env.Now()))
	p.limits()
	return &Out{}
}

// limits gives the data plane what its counts may reach in its view.
func (p *Process) limits() {
	if k := len(p.cfg.Control.Quotas); k > 0 {
		l := make([]Limit, k)
		for i := range l {
			l[i].Max, l[i].OK = p.ctl.Limit(p.dp.view.Epoch, i)
		}
		p.dp.Limits(p.dp.view.Epoch, l)
	}
}

// Deliver takes a control message, a client's call, or a link's message.
func (p *Process) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	o := p.at(env)
	switch m := m.(type) {
	case control.Reach:
		p.ctl.Hear(env.Now(), from, m)
	case control.Msg:
		var rm raftpb.Message
		if err := rm.Unmarshal(m.Raft); err != nil || proc.ID(rm.From-1) != from {
			return
		}
		if err := p.ctl.Step(env.Now(), rm); err != nil {
			return
		}
	case Call:
		p.dp.Call(o, from, m)
	case Link:
		p.receive(env, o, from, m)
	case LinkAck:
		if l := p.out[from]; l != nil && m.Run == p.disk.Runs {
			l.pending = slices.DeleteFunc(l.pending, func(k Link) bool { return k.Seq <= m.Seq })
		}
	}
	p.flush(env, o)
}

// receive takes a link's message in order: a run the link has not heard
// of starts it at the sender's oldest message not acknowledged.
func (p *Process) receive(env proc.Env, o *Out, from proc.ID, m Link) {
	r := p.in[from]
	if r == nil || m.Run > r.run {
		r = &recvLink{run: m.Run, next: m.Base}
		p.in[from] = r
	}
	if m.Run < r.run {
		return // an older run's, late
	}
	// The sender gave up what it sent before Base (an instance retired):
	// the link goes on from there.
	r.next = max(r.next, m.Base)
	if m.Seq == r.next {
		r.next++
		switch inner := m.M.(type) {
		case Inst:
			p.dp.Witness(inner.Stamp)
			p.inst1(env, inner)
		case Keep:
			p.dp.Keep(o, from, inner)
		case KeepAck:
			p.dp.KeepAck(o, from, inner)
		case Resolve:
			p.dp.Resolve(o, from, inner)
		case Resolved:
			p.dp.Resolved(o, inner)
		}
	}
	if r.next > 1 {
		env.Send(from, LinkAck{Run: m.Run, Seq: r.next - 1})
	}
}

// Fire is a Raft tick, the data plane's tick, a resend, or an instance's
// timer.
func (p *Process) Fire(env proc.Env, t proc.Timer) {
	o := p.at(env)
	switch t := t.(type) {
	case tickTimer:
		p.ctl.Tick(env.Now())
		env.After(p.tickEvery(), tickTimer{})
	case dataTimer:
		p.dp.Tick(o)
		env.After(dataEvery, dataTimer{})
	case resendTimer:
		for _, to := range sortedIDs(p.out) {
			l := p.out[to]
			for _, k := range l.pending {
				k.Base = l.pending[0].Seq
				env.Send(to, k)
			}
		}
		env.After(p.cfg.Resend, resendTimer{})
	case refreshTimer:
		// Only the leader proposes, as the service's refresher does; the
		// entry refreshes the view only if it is still the newest and
		// open when applied.
		if st := p.ctl.State(); p.ctl.Leader() == p.cfg.Control.Self {
			if open, _ := st.Open(); open {
				_ = p.ctl.ProposeRefresh(st.View().Epoch) // a proposal dropped waits for the next
			}
		}
		env.After(p.cfg.RefreshEvery, refreshTimer{})
	case instTimer:
		if h := p.inst[instKey{t.Epoch, t.Key}]; h != nil {
			h.get(p, env, t.P).Fire(p.instEnv(env, h, t.P), t.T)
		}
	case tryTimer:
		p.dp.TryOut(o, t.Grant, t.N)
	}
	p.flush(env, o)
}

func sortedIDs[V any](m map[proc.ID]V) []proc.ID {
	ids := make([]proc.ID, 0, len(m))
	for id := range m { // any order: sorted below
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// send puts m on the link to a node.
func (p *Process) send(env proc.Env, to proc.ID, m proc.Message) {
	l := p.out[to]
	if l == nil {
		l = &sendLink{}
		p.out[to] = l
	}
	l.seq++
	base := l.seq
	if len(l.pending) > 0 {
		base = l.pending[0].Seq
	}
	k := Link{Run: p.disk.Runs, Base: base, Seq: l.seq, M: m}
	l.pending = append(l.pending, k)
	env.Send(to, k)
}

// flush does what the control node and the data plane ask until neither
// asks anything.
func (p *Process) flush(env proc.Env, o *Out) {
	for {
		for len(p.local) > 0 {
			m := p.local[0]
			p.local = p.local[1:]
			p.inst1(env, m)
		}
		for _, e := range p.entered {
			p.dp.Entered(o, e)
		}
		p.entered = nil
		p.readUnits(env, o)
		p.behind(o)
		u, err := p.ctl.Next(env.Now())
		if err != nil {
			panic(fmt.Sprintf("dataplane process %d: %v", p.cfg.Control.Self, err)) // a log the node cannot apply: a bug
		}
		if u.Empty() && o.Empty() && len(p.local) == 0 && len(p.entered) == 0 {
			return
		}
		p.disk.Save(u)
		for _, m := range u.Messages {
			b, err := m.Marshal()
			if err != nil {
				panic(fmt.Sprintf("dataplane process %d: %v", p.cfg.Control.Self, err))
			}
			env.Send(proc.ID(m.To-1), control.Msg{Raft: b})
		}
		for _, to := range u.ReachTo {
			env.Send(to, u.Reach)
		}
		for _, c := range u.Changes {
			switch c.Kind {
			case control.Adopt:
				p.dp.Adopt(o, c.View, c.Prev)
				p.host(env, c.View.Epoch, Key{})
			case control.Serve:
				env.Emit(proc.Event{Kind: proc.EvView, Epoch: c.View.Epoch, Members: c.View.Members})
				p.left, p.served = c.Left, c.View.Epoch
				p.hostQuotas(env)
				// The limits of this view, not of the one the input
				// came in: a view adopted and served in one flush.
				p.limits()
				p.dp.Serve(o, c.View.Epoch, c.Left)
			case control.Fence:
				env.Emit(proc.Event{Kind: proc.EvFence, Epoch: c.View.Epoch})
				p.dp.Fence(o, c.View.Epoch, c.Lost)
			}
		}
		p.apply(env, o)
		*o = Out{}
	}
}

// semName is semaphore sem's name in the control log.
func semName(sem int32) string { return strconv.Itoa(int(sem)) }

// readUnits gives the data plane the units the control log has for the
// semaphores it waits for, and proposes the units of those the log has
// none for: only while the log's newest view is open (an entry applied
// before is dropped: control.SemaphoreEntry), again at once in a newer
// view (its change may have dropped it), and again after half a lease
// (the service's readUnits, which polls the log every 2 ms; here the
// log is looked at after every input, and on the data plane's tick).
func (p *Process) readUnits(env proc.Env, o *Out) {
	if len(p.reads) == 0 {
		return
	}
	state := p.ctl.State()
	at := state.View().Epoch
	open, _ := state.Open()
	for _, sem := range slices.Sorted(maps.Keys(p.reads)) {
		r := p.reads[sem]
		if u, ok := state.Semaphore(semName(sem)); ok {
			delete(p.reads, sem)
			p.dp.UnitsRead(o, sem, u, at)
			continue
		}
		if now := env.Now(); open && (now >= r.again || at != r.proposed) {
			_ = p.ctl.RecordSemaphore(semName(sem), r.units) // a proposal dropped is proposed again
			r.again, r.proposed = now+p.cfg.Control.Lease/2, at
		}
	}
}

// apply does what the data plane asked.
func (p *Process) apply(env proc.Env, o *Out) {
	for _, r := range o.Record {
		if p.reads[r.Sem] == nil {
			p.reads[r.Sem] = &unitsRead{units: r.Units}
		}
	}
	if o.Counts != nil {
		// On disk before any answer goes: a permit the node would not
		// know of after a crash is never handed out.
		if p.cfg.Data.Broken != QuotaNoPersist {
			p.disk.Counts = slices.Clone(o.Counts)
		}
		p.ctl.Issued(env.Now(), o.Counts)
	}
	for _, e := range o.Events {
		env.Emit(e)
	}
	for _, r := range o.Replies {
		env.Send(r.To, r.M)
	}
	for _, to := range o.Left {
		if l := p.out[to]; l != nil {
			l.pending = slices.DeleteFunc(l.pending, func(k Link) bool {
				_, ok := k.M.(Keep)
				return ok
			})
		}
	}
	for _, s := range o.Sends {
		p.send(env, s.To, s.M)
	}
	if o.Retire > 0 {
		p.retired = max(p.retired, o.Retire)
		for k := range p.inst { // any order: it only deletes
			if k.Epoch < o.Retire {
				delete(p.inst, k)
			}
		}
		for e := range p.early { // any order: it only deletes
			if e < o.Retire {
				delete(p.early, e)
			}
		}
		// What the links still owe of retired instances is never needed.
		for _, l := range p.out { // any order: each link on its own
			l.pending = slices.DeleteFunc(l.pending, func(k Link) bool {
				m, ok := k.M.(Inst)
				return ok && m.Epoch < o.Retire
			})
		}
	}
	// A user given back is released before it is asked again.
	for _, a := range o.Frees {
		if h := p.inst[instKey{a.Epoch, a.Key}]; h != nil {
			h.get(p, env, a.User).(proc.Allocator).Release(p.instEnv(env, h, a.User))
		}
	}
	for _, a := range o.Asks {
		h := p.host(env, a.Epoch, a.Key)
		if h == nil {
			continue // its view retired meanwhile
		}
		u := h.get(p, env, a.User).(proc.Allocator)
		u.Request(p.instEnv(env, h, a.User), proc.Request{Res: a.Res})
		if _, ok := u.(proc.Queued); ok && a.Try != 0 {
			p.dp.Watch(a)
			p.watch = append(p.watch, a)
		}
	}
	for _, t := range o.Tries {
		env.After(t.After, tryTimer{Grant: t.Grant, N: t.N})
	}
	if o.Ready > 0 {
		if len(o.Holding) > 0 {
			sems := make([]control.SemaphoreEntry, len(o.Holding))
			for i, h := range o.Holding {
				sems[i] = control.SemaphoreEntry{Name: semName(h.Sem), Units: h.Units}
			}
			p.ctl.ReadyHolding(env.Now(), o.Ready, p.dp.Counts(), sems)
		} else {
			p.ctl.Ready(env.Now(), o.Ready, p.dp.Counts())
		}
	}
	if o.Stopped {
		p.ctl.Stopped(env.Now(), p.dp.Counts())
	}
}

// behind looks at the tries watched: one whose algorithm says it waits
// behind another user gives up (Node.Behind); one no longer waiting
// (granted, given up, its view gone) is watched no more.
func (p *Process) behind(o *Out) {
	p.watch = slices.DeleteFunc(p.watch, func(a Ask) bool {
		h := p.inst[instKey{a.Epoch, a.Key}]
		if h == nil || !p.dp.Watching(a) {
			return true
		}
		q, ok := h.procs[a.User].(proc.Queued)
		if !ok {
			return true
		}
		if known, b := q.Behind(); known && b {
			p.dp.Behind(o, a)
			return true
		}
		return false
	})
}

// host is the instance of key in epoch: the lock's made when the node
// adopts its view (the data plane asks in it only then), with the
// messages that came early; a semaphore's when first asked, or when a
// message of it comes, in the node's view. An instance on the slots is
// built whole, and this node's processes of it start as it is made
// (the service's newInstance): a quota's controller runs whether or not
// a user asks, a small semaphore's units move between its processes.
func (p *Process) host(env proc.Env, epoch uint64, key Key) *hosted {
	k := instKey{epoch, key}
	if h := p.inst[k]; h != nil || epoch < p.retired {
		return h
	}
	v := p.dp.view
	h := &hosted{epoch: epoch, key: key, members: v.Members, procs: map[proc.ID]proc.Process{}}
	var onSlots algo.Algorithm
	switch {
	case key.Quota:
		// Only once the view serves: its budget is what the ledger
		// left it then (the service's serve).
		if epoch != p.served || p.left[key.Sem].Left == 0 {
			return nil
		}
		left, w := p.left[key.Sem].Left, p.cfg.Data.Waste[key.Sem]
		h.slots = p.cfg.Data.Slots
		users := len(v.Members) * h.slots
		h.pb = &algo.Problem{Kind: algo.Quota, Users: users, Budget: int(left), Waste: int(min(w, left)), Graph: tree(users, h.slots)}
		onSlots = p.cfg.Quota
	case key.Lock():
		h.pb = &algo.Problem{Kind: algo.Exclusive, Users: lockRange, Resources: lockRange}
	case p.dp.Small(key):
		h.slots = p.cfg.Data.Slots
		users := len(v.Members) * h.slots
		h.pb = &algo.Problem{Kind: algo.Pool, Users: users, Units: int(key.Units), Graph: tree(users, h.slots)}
		onSlots = p.cfg.SmallPool
	default:
		h.pb = &algo.Problem{Kind: algo.Pool, Users: lockRange, Units: int(key.Units)}
	}
	if h.slots > 0 {
		if onSlots.Build == nil {
			panic(fmt.Sprintf("dataplane: no algorithm serves %s", key)) // a configuration error of the driver's
		}
		ps, err := onSlots.Build(h.pb)
		if err != nil {
			panic(fmt.Sprintf("dataplane: %s of %s: %v", onSlots.Name, key, err)) // a configuration error of the driver's
		}
		h.built = ps
	}
	p.inst[k] = h
	p.local = append(p.local, p.early[epoch]...)
	delete(p.early, epoch)
	rank, _ := slices.BinarySearch(v.Members, p.cfg.Control.Self)
	for j := range h.slots {
		h.get(p, env, proc.ID(rank*h.slots+j))
	}
	return h
}

// hostQuotas makes the instances of the quotas the view served left
// something (host starts this node's processes of each).
func (p *Process) hostQuotas(env proc.Env) {
	for i := range p.left {
		p.host(env, p.served, quotaKey(int32(i)))
	}
}

// tree is the communication graph of an instance on the slots, the
// service's (instance.go, tree: graph.Blocks).
func tree(users, slots int) *graph.Graph {
	g, err := graph.Blocks(users, slots)
	if err != nil {
		panic(err) // users and slots are positive: checked by the driver
	}
	return g
}

// owner is the member hosting process id (the service's lockOwner): a
// large semaphore's owner, process lockRange, is on the view's first
// member; the users of an instance on the slots (a quota's, a small
// semaphore's) are in blocks of slots, block b on member b (owner).
func (h *hosted) owner(id proc.ID) proc.ID {
	if h.slots > 0 {
		return h.members[int(id)/h.slots%len(h.members)]
	}
	return h.members[int(id%lockRange)%len(h.members)]
}

func (h *hosted) get(p *Process, env proc.Env, id proc.ID) proc.Process {
	if q := h.procs[id]; q != nil {
		return q
	}
	if h.built != nil {
		q := h.built[id]
		h.procs[id] = q
		q.Start(p.instEnv(env, h, id))
		return q
	}
	a := p.cfg.Lock
	if !h.key.Lock() {
		a = p.cfg.Pool
	}
	if a.Process == nil {
		panic(fmt.Sprintf("dataplane: no algorithm serves %s", h.key)) // a configuration error of the driver's
	}
	q, err := a.Process(h.pb, id)
	if err != nil {
		panic(fmt.Sprintf("dataplane: %s process %d of %s: %v", a.Name, id, h.key, err))
	}
	h.procs[id] = q
	q.Start(p.instEnv(env, h, id))
	return q
}

// inst1 delivers an instance message to its process here, if the node
// hosts its view (a view not adopted yet keeps it until then).
func (p *Process) inst1(env proc.Env, m Inst) {
	h := p.inst[instKey{m.Epoch, m.Key}]
	if h == nil && m.Epoch == p.dp.view.Epoch {
		h = p.host(env, m.Epoch, m.Key)
	}
	if h == nil {
		// A quota's instance is made once its view serves here: what
		// comes before waits for it.
		early := m.Epoch > p.dp.view.Epoch || m.Key.Quota && m.Epoch == p.dp.view.Epoch && p.served != m.Epoch
		if early && m.Epoch >= p.retired {
			p.early[m.Epoch] = append(p.early[m.Epoch], m)
		}
		return
	}
	h.get(p, env, m.To).Deliver(p.instEnv(env, h, m.To), m.From, m.M)
}

// instEnv is the Env of process self of instance h.
func (p *Process) instEnv(env proc.Env, h *hosted, self proc.ID) proc.Env {
	return &iEnv{p: p, env: env, h: h, self: self}
}

type iEnv struct {
	p    *Process
	env  proc.Env
	h    *hosted
	self proc.ID
}

func (e *iEnv) Self() proc.ID    { return e.self }
func (e *iEnv) Now() proc.Time   { return e.env.Now() }
func (e *iEnv) Rand() *rand.Rand { return e.p.rand }
func (e *iEnv) After(d proc.Time, t proc.Timer) {
	e.env.After(d, instTimer{Epoch: e.h.epoch, Key: e.h.key, P: e.self, T: t})
}

func (e *iEnv) Send(to proc.ID, m proc.Message) {
	msg := Inst{Epoch: e.h.epoch, Key: e.h.key, From: e.self, To: to, M: m}
	if at := e.h.owner(to); at != e.p.cfg.Control.Self {
		msg.Stamp = e.p.dp.Stamp()
		e.p.send(e.env, at, msg)
		return
	}
	e.p.local = append(e.p.local, msg)
}

// Emit takes a user's grant: the lock's EvEnter, a semaphore's EvGrant
// (with its unit in this view), a quota's EvPermit or EvReject.
func (e *iEnv) Emit(ev proc.Event) {
	if e.self >= lockRange {
		return
	}
	k := e.h.key
	switch {
	case k.Quota && (ev.Kind == proc.EvPermit || ev.Kind == proc.EvReject):
		e.p.entered = append(e.p.entered, Ask{Epoch: e.h.epoch, Key: k, User: e.self, Rejected: ev.Kind == proc.EvReject})
	case k.Lock() && ev.Kind == proc.EvEnter, !k.Lock() && !k.Quota && ev.Kind == proc.EvGrant:
		e.p.entered = append(e.p.entered, Ask{Epoch: e.h.epoch, Key: k, User: e.self, Unit: ev.Unit})
	}
}
