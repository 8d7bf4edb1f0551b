package control

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/allot-dev/allot/proc"
)

// Config is one node of the control plane. Times are in the driver's
// units (proc.Time: ticks of the simulator, milliseconds of the service).
type Config struct {
	Self proc.ID // the node's id; its Raft id is Self+1
	// Run is distinct for every start of the node (a
	// restart is a new run): it names the node's rejoins.
	Run uint64
	// Lease is L: a node serves at most L after the start of a read that
	// confirmed it is in the newest view; a view that leaves a run out
	// waits that long (times the clock-rate bound) before it serves. It
	// also sets Raft's timeouts: one tick is Lease/LeaseTicks.
	Lease proc.Time
	// Margin is added to every wait for a lease to run out: the delays
	// of a process's timers (scheduling, a garbage collection).
	Margin proc.Time
	// Quotas are the quotas the ledger accounts for, the same on every
	// node, in the same order.
	Quotas []Quota
	// Counts are the permits of each quota this node has issued over its
	// whole life, as persisted.
	Counts []uint64
	// Rand draws the election timeouts.
	Rand *rand.Rand
	// Logger is Raft's logger (nil: discard).
	Logger raft.Logger
	// SnapshotEvery is how many entries the node applies between two
	// snapshots of its State (0: DefaultSnapshotEvery; negative: never,
	// the log is never compacted). SnapshotKeep is how many entries
	// before a snapshot its Raft storage keeps, for a follower a little
	// behind (0: DefaultSnapshotKeep, or SnapshotEvery if that is less;
	// negative: none).
	SnapshotEvery, SnapshotKeep int
	// MaxNodes bounds the node ids a member added gets (0: no bound):
	// the service's ids hold a node in 6 bits.
	MaxNodes int
	// Broken, for the checkers' tests only, breaks the protocol on
	// purpose (0: none).
	Broken Broken
}

// Broken names a deliberate break of the protocol, to show a checker
// catches it.
type Broken uint8

const (
	// NoWait: a view that leaves a run out serves as soon as it is
	// open, while the left-out run may still serve.
	NoWait Broken = iota + 1
	// NoLease: a node serves its view without a lease and never fences
	// itself: cut off, it serves on beside the view that replaced it.
	NoLease
	// NoChunk: the quota ledger counts a member away from a view as
	// having issued only what it last reported, not the chunk it may
	// have issued beyond.
	NoChunk
)

// The Raft timing: a tick is Lease/LeaseTicks; the leader sends
// heartbeats every tick; a node campaigns after ElectionTicks to
// 2·ElectionTicks ticks without a leader (a third to two thirds of a
// lease), and again within ElectionTicks/2 ticks when a round elects
// nobody (a split vote); the leader thinks a member dead after a lease
// (LeaseTicks) without a message from it.
//
// A node renews its lease every Lease/LeaseReads (reads.go), so that when
// the leader crashes every other node has about three quarters of a
// lease left, more than the longest election: a leader's crash is over,
// and the leases renewed by the next, before they run out. With reads
// every Lease/4 as before, as little as five eighths of a lease was
// left, less than the two thirds an election may wait: in the model,
// with messages of 1% of a lease, some follower's lease ran out before
// the next leader renewed it after 11 of 1000 leader crashes (seeds
// 1..200, five moments of a renewal period each), and after none with
// reads every Lease/6 (TestLeaderCrashKeepsTheOthersLeases); with
// messages of up to 2, 3 and 4% (a loaded machine's), 34, 108 and 257
// against 6, 48 and 153. A lapse fences the node as lost: its sessions
// move. The cost is half as many lease reads again, each a heartbeat
// round that the leader shares among its followers' reads. The election timing
// stays: a shorter one (with a longer split-vote retry), better in the
// model, lost more sessions on a loaded machine's real processes, for
// reasons not found.
//
// After a stall of the node's own (its driver's input came late), at most
// MaxCatchUp ticks are counted at once: the rest of the stall is not
// time in which the others were silent.
const (
	LeaseTicks     = 30
	ElectionTicks  = 10
	HeartbeatTicks = 1
	MaxCatchUp     = 2
	LeaseReads     = 6 // lease reads a lease (reads.go)
)

// The compaction defaults: a snapshot every 1000 entries applied (a few
// kilobytes of State, against a thousand entries replayed at a start),
// and a tail of 100 entries behind it, so that a follower a round trip
// or two behind gets entries, not a snapshot.
const (
	DefaultSnapshotEvery = 1000
	DefaultSnapshotKeep  = 100
)

// Rho is ρ, the bound on clock rates this package assumes: no node's
// clock runs more than a factor 1+ρ faster or slower than real time, over
// a lease. Leases are a few seconds; quartz drifts by 1e-4, NTP slews by
// at most 5e-4: ρ = 1% leaves a factor 20 of room. Written as a fraction.
const (
	RhoNum = 1
	RhoDen = 100
)

// Change is a step of this node from one view to another, for the
// driver to take.
type Change struct {
	Kind ChangeKind
	View View        // Adopt, Serve: the view; Fence: View.Epoch is the view ended
	Lost bool        // Fence: the node's sessions end (it is not in a newer view)
	Left []QuotaLeft // Serve: what the view may issue of each quota
	// Prev, for Adopt, is the view View replaced in the log: a run View
	// leaves out was last in Prev (a run once out never comes back), so
	// Prev says who kept its sessions (the service's backups). Epoch 0
	// when this node did not apply that view itself: it moved on from a
	// snapshot, or the log had no view before.
	Prev View
}

// ChangeKind is what a Change asks of the driver.
type ChangeKind uint8

const (
	// Adopt: the node is a member of a new view. The driver stops the
	// older view's instances, asks again in the new view for every grant
	// its sessions hold, then calls Node.Ready.
	Adopt ChangeKind = iota + 1
	// Serve: the view takes new requests on this node.
	Serve
	// Fence: the node stops serving View.Epoch. Lost: its sessions end
	// (their clients' leases run out with the node's); the driver calls
	// Node.Stopped once nothing of the view is served any more.
	Fence
)

func (k ChangeKind) String() string {
	switch k {
	case Adopt:
		return "adopt"
	case Serve:
		return "serve"
	case Fence:
		return "fence"
	}
	return fmt.Sprintf("change(%d)", uint8(k))
}

// Update is what a Node asks of its driver after an input: persist
// Snapshot, HardState and Entries (fsync if MustSync) before sending
// Messages, and act on Changes in order. Members, when not nil, is the
// configuration as it now is (a change was applied): the driver's
// transport reaches these members before it sends.
//
// Snapshot, when not empty, replaces the log up to its index: the driver
// persists it and deletes the entries at or below its index, in one
// write with Entries and HardState. Restored says it came from the
// leader (this node was behind the leader's first index) and replaced
// the node's whole log and State: the driver deletes every entry it
// kept before it writes Entries.
//
// Reach, when ReachTo is not empty, is for the driver to send to each
// node of ReachTo (on the links its data travels on), like Messages but
// with nothing to persist first.
type Update struct {
	Snapshot  raftpb.Snapshot
	Restored  bool
	HardState raftpb.HardState
	Entries   []raftpb.Entry
	MustSync  bool
	Messages  []raftpb.Message
	Changes   []Change
	Members   []Member
	Reach     Reach
	ReachTo   []proc.ID
}

// Empty reports whether u asks for nothing.
func (u Update) Empty() bool {
	return raft.IsEmptySnap(u.Snapshot) && raft.IsEmptyHardState(u.HardState) && len(u.Entries) == 0 && len(u.Messages) == 0 && len(u.Changes) == 0 && u.Members == nil && len(u.ReachTo) == 0
}

// phase is where this node is with the newest view.
type phase uint8

const (
	out      phase = iota // in no view
	adopting              // told the driver to adopt the view, not yet ready
	readied               // the driver is ready in it, the entry proposed
	serving
	fenced // served it, then lost it: waiting for the driver to stop
)

// read is a lease read in flight: this node's own (own: it renews the
// lease), and on the leader the followers' reads it answers (reads.go).
type read struct {
	sent   proc.Time
	index  uint64 // 0 until the read index is known
	own    bool
	term   uint64           // the leader's term when it started
	answer []raftpb.Message // followers' reads (MsgReadIndex) it confirms
}

// Node is the control plane at one node: Raft's RawNode and the view state
// machine over the entries it commits, the node's lease, and, on the
// leader, the proposal of views. It is pure: the driver hands it time and
// messages and does what its Updates say.
type Node struct {
	cfg     Config
	rn      *raft.RawNode
	storage *raft.MemoryStorage
	sm      *State
	// conf is Raft's configuration as last applied, for the next
	// snapshot; snapped is the index of the newest snapshot.
	conf    raftpb.ConfState
	snapped uint64
	now     proc.Time
	ticks   int64 // Raft ticks so far
	tickDue proc.Time

	// The election timer: Raft's own would draw from a source no seed
	// controls, so the node never lets Raft reach it (raftElapsed bounds
	// Raft's elapsed ticks from above) and campaigns on its own, seeded.
	raftElapsed  int
	sinceLeader  int
	electionTime int
	lastStatus   raft.BasicStatus

	// The leader's failure detector: the Raft tick each node was last
	// heard from, and the view proposal in flight.
	heard    map[proc.ID]int64
	leadFrom int64
	// reports: each node's last Reach (reach.go); reachDue: this
	// node's own is due in the next Update.
	reports  map[proc.ID]report
	reachDue bool
	proposed int64 // the tick of the last view proposed (0: none in flight)

	seq     uint64 // the rejoins of this run
	leaving bool   // the driver stopped serving for good: no more views
	// removed: this node applied its own removal from the
	// configuration; confProposed: a configuration change was proposed
	// since the last Next (not in storage yet).
	removed      bool
	confProposed bool
	// farewells: removed nodes the leader tells so (sayFarewells);
	// extra: those messages, for the next Update.
	farewells map[uint64]farewell
	extra     []raftpb.Message
	counts    []uint64
	holding   []SemaphoreEntry // the semaphores held again in the view adopted (ReadyHolding)
	// reported: the counts of the last report proposed in the view
	// served (nil: none since it began).
	reported []uint64
	ph       phase
	epoch    uint64 // the view of ph
	// hold: no view serves before it. Each view that leaves a run out
	// moves it to Wait after the view is applied, and a later view that
	// takes nobody else out does not shorten it.
	hold    proc.Time
	lease   proc.Time // serving until (exclusive)
	leased  bool      // a lease was taken since the node last fenced
	reads   map[uint64]*read
	nextRd  uint64
	readDue proc.Time
	reachAt proc.Time // when this node's next Reach is due
	propDue int64     // the tick to propose a ready or a rejoin again

	// The leader's followers' reads kept for its next round, when it
	// started its last one and when it became leader (reads.go).
	kept      []raftpb.Message
	lastRound proc.Time
	leaderAt  proc.Time

	// lost: a message proved this node's log lost entries it had
	// acknowledged (lost.go); it steps and ticks nothing more.
	lost error
}

// ErrConfig marks a configuration the node cannot run.
var ErrConfig = errors.New("control: bad configuration")

// Bootstrap is the persisted state of a new cluster of these members, the
// same on every one of them.
func Bootstrap(members []proc.ID) Disk {
	var cs raftpb.ConfState
	for _, m := range members {
		cs.Voters = append(cs.Voters, raftID(m))
	}
	return Disk{Snapshot: raftpb.Snapshot{Metadata: raftpb.SnapshotMetadata{Index: 1, Term: 1, ConfState: cs}}}
}

func raftID(id proc.ID) uint64 { return uint64(id) + 1 }
func procID(id uint64) proc.ID { return proc.ID(id - 1) }

// New starts the control plane of a node from what it persisted (Bootstrap
// for a new one), at time now. The State is the snapshot's, and the
// committed entries after it are applied again.
func New(cfg Config, d Disk, now proc.Time) (*Node, error) {
	if cfg.Lease < LeaseTicks || cfg.Rand == nil || cfg.Self < 0 {
		return nil, fmt.Errorf("%w: lease %d time units (at least %d), a random source, a node id ≥ 0", ErrConfig, cfg.Lease, LeaseTicks)
	}
	if cfg.Logger == nil {
		cfg.Logger = discard{}
	}
	ms := raft.NewMemoryStorage()
	if err := ms.ApplySnapshot(d.Snapshot); err != nil {
		return nil, fmt.Errorf("control: persisted snapshot: %w", err)
	}
	sm, err := DecodeState(cfg.Quotas, d.Snapshot)
	if err != nil {
		return nil, err
	}
	if err := ms.Append(d.Entries); err != nil {
		return nil, fmt.Errorf("control: persisted entries: %w", err)
	}
	if err := ms.SetHardState(d.HardState); err != nil {
		return nil, fmt.Errorf("control: persisted hard state: %w", err)
	}
	rn, err := raft.NewRawNode(&raft.Config{
		ID:              raftID(cfg.Self),
		ElectionTick:    ElectionTicks,
		HeartbeatTick:   HeartbeatTicks,
		Storage:         ms,
		Applied:         d.Snapshot.Metadata.Index,
		MaxSizePerMsg:   256 << 10, // a message is at most a codec value (1MiB)
		MaxInflightMsgs: 256,
		CheckQuorum:     true,
		PreVote:         true,
		ReadOnlyOption:  raft.ReadOnlySafe,
		// A leader that removes itself steps down once the change is
		// applied: the others elect one among them.
		StepDownOnRemoval: true,
		Logger:            cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	n := &Node{
		cfg: cfg, rn: rn, storage: ms, sm: sm, now: now, conf: d.Snapshot.Metadata.ConfState, snapped: d.Snapshot.Metadata.Index,
		tickDue: now, heard: map[proc.ID]int64{}, reports: map[proc.ID]report{}, reads: map[uint64]*read{}, farewells: map[uint64]farewell{},
		counts: slices.Clone(cfg.Counts), seq: 1,
	}
	n.sm.broken = cfg.Broken
	n.removed = n.sm.wasRemoved(cfg.Self)
	n.electionTime = n.drawElection()
	switch {
	case len(d.Snapshot.Metadata.ConfState.Voters) == 1:
		n.electionTime = 1 // alone: nobody to wait for
	case d.HardState.Term == 0:
		// A new cluster has no leader to wait for: its first election
		// comes sooner (still seeded, still spread).
		n.electionTime = 1 + cfg.Rand.IntN(ElectionTicks/2)
	}
	n.lastStatus = rn.BasicStatus()
	return n, nil
}

// tickEvery is the length of a Raft tick.
func (n *Node) tickEvery() proc.Time { return n.cfg.Lease / LeaseTicks }

func (n *Node) drawElection() int { return ElectionTicks + n.cfg.Rand.IntN(ElectionTicks) }

// State is the view state machine as applied so far.
func (n *Node) State() *State { return n.sm }

// Leader is the id of the Raft leader this node knows of (proc.None: none).
func (n *Node) Leader() proc.ID {
	if l := n.rn.BasicStatus().Lead; l != raft.None {
		return procID(l)
	}
	return proc.None
}

// Run is this node's current run: the (Run, Seq) of its last rejoin.
func (n *Node) run() [2]uint64 { return [2]uint64{n.cfg.Run, n.seq} }

// gen is the generation this node serves as, and whether it has rejoined
// as its current run.
func (n *Node) gen() (uint64, bool) { return n.sm.Gen(n.cfg.Self, n.run()) }

// inView reports whether this node, as its current run, is a member of v.
func (n *Node) inView(v View) bool {
	g, ok := n.gen()
	return ok && v.Has(n.cfg.Self, g)
}

// Tick advances the node's clock to now: Raft ticks, the election timer,
// lease reads, and the lease's end.
func (n *Node) Tick(now proc.Time) {
	if n.lost != nil {
		return // it neither campaigns nor reads (lost.go)
	}
	n.now = max(n.now, now)
	if behind := (n.now-n.tickDue)/n.tickEvery() + 1; behind > MaxCatchUp {
		// The node itself stalled (a starved process, a stopped one, a
		// write to disk): the messages the others sent meanwhile wait to
		// be stepped. Counted as ticks, the stall would be their silence:
		// the leader stepped down (CheckQuorum) and the followers
		// campaigned before reading the messages that said otherwise,
		// and every lease ran out in the election. Raft's time skips
		// it; the leases go by n.now, real time, and a leader that
		// counts fewer ticks of a member's silence only waits longer
		// for its lease (shortestSilence).
		n.tickDue += (behind - MaxCatchUp) * n.tickEvery()
	}
	for n.now >= n.tickDue {
		n.tickDue += n.tickEvery()
		n.raftTick()
	}
	n.confirmKept()
	if n.now >= n.readDue {
		n.readDue = n.now + n.cfg.Lease/LeaseReads
		n.startRead()
	}
	if n.now >= n.reachAt {
		n.reachAt = n.now + n.cfg.Lease/4
		n.reachDue = !n.removed
	}
}

// raftTick is one Raft tick.
func (n *Node) raftTick() {
	n.ticks++
	st := n.rn.BasicStatus()
	if st.RaftState == raft.StateLeader {
		n.rn.Tick()
		n.sinceLeader = 0
	} else {
		// Raft's elapsed ticks stay below its (unseeded) timeout.
		if n.raftElapsed < ElectionTicks-1 {
			n.rn.Tick()
			n.raftElapsed++
		}
		n.sinceLeader++
		if n.sinceLeader >= ElectionTicks && st.Lead != raft.None {
			// Raft's own elapsed ticks never reach its timeout, so it
			// would go on refusing votes for a leader it no longer
			// hears (CheckQuorum's lease): it is told to forget it.
			_ = n.rn.ForgetLeader()
		}
		if n.sinceLeader >= n.electionTime {
			n.sinceLeader = 0
			// Campaigning, the node knows the leader is gone: if this
			// round ends with none (a split vote: the others campaigned
			// in the same tick), the next comes within ElectionTicks/2
			// (redrawn, so the split does not repeat), not a whole
			// election timeout later, when the others' leases would
			// have run out.
			n.electionTime = 1 + n.cfg.Rand.IntN(ElectionTicks/2)
			_ = n.rn.Campaign() // a learner or a removed node cannot: not an error
		}
	}
	n.observe(raftpb.Message{})
	n.proposeView()
	n.handOver()
	n.sayFarewells()
	if n.ticks >= n.propDue {
		n.proposeOwn()
	}
}

// observe follows Raft's state after an input: every transition but to
// pre-candidate resets Raft's elapsed ticks, and so does a message from
// the leader.
func (n *Node) observe(m raftpb.Message) {
	st := n.rn.BasicStatus()
	prev := n.lastStatus
	n.lastStatus = st
	if st.Term != prev.Term || (st.RaftState != prev.RaftState && st.RaftState != raft.StatePreCandidate) {
		n.raftElapsed = 0
	}
	if st.Lead != prev.Lead && st.Lead != raft.None {
		// A new leader: the lease is renewed through it at once, not
		// at the next read (the last ones may have died with the old).
		n.readDue = n.now
		n.reachAt = n.now
		// And its loss is suspected after a whole election timeout,
		// drawn afresh: the short timer of a new cluster's first
		// election (or of a retry) kept past it made the followers of
		// the first leader campaign together when it crashed, one time
		// in five.
		n.electionTime = n.drawElection()
	}
	if st.RaftState == raft.StateLeader && prev.RaftState != raft.StateLeader {
		// A new leader has heard from nobody yet: it gives every node
		// the benefit of the doubt for an election timeout.
		n.leadFrom = n.ticks
		n.proposed = 0
		n.leaderAt = n.now
	}
	if st.RaftState == raft.StateFollower && st.Lead != raft.None && m.From == st.Lead && m.Term == st.Term {
		switch m.Type {
		case raftpb.MsgApp, raftpb.MsgHeartbeat, raftpb.MsgSnap:
			n.raftElapsed = 0
			n.sinceLeader = 0
		}
	}
}

// Step hands the node a Raft message from another node. Once a message
// proved that this node's log lost entries it had acknowledged, Step
// returns ErrLogLost, for it and every message after it, and the node
// votes for nobody: the driver stops it.
func (n *Node) Step(now proc.Time, m raftpb.Message) error {
	if n.lost == nil {
		n.lost = n.lostLog(m)
	}
	if n.lost != nil {
		return n.lost
	}
	n.Tick(now)
	if m.From != 0 {
		n.heard[procID(m.From)] = n.ticks
	}
	if m.Type == raftpb.MsgReadIndex && m.From != 0 && n.lastStatus.RaftState == raft.StateLeader {
		n.keep(m) // confirmed with the others' (reads.go)
		return nil
	}
	err := n.rn.Step(m)
	n.observe(m)
	if err != nil && !errors.Is(err, raft.ErrStepPeerNotFound) && !errors.Is(err, raft.ErrStepLocalMsg) && !errors.Is(err, raft.ErrProposalDropped) {
		return fmt.Errorf("control: step %s from %d: %w", m.Type, m.From, err)
	}
	return nil
}

// Ready is the driver's answer to Adopt: the node holds again in epoch
// every grant its sessions held, and has issued counts permits in all.
func (n *Node) Ready(now proc.Time, epoch uint64, counts []uint64) {
	n.ReadyHolding(now, epoch, counts, nil)
}

// ReadyHolding is Ready from a node whose sessions hold the semaphores
// sems (name and units, each name once) again in epoch: the ready records
// their units (HoldingEntry), which a refresh forgot.
func (n *Node) ReadyHolding(now proc.Time, epoch uint64, counts []uint64, sems []SemaphoreEntry) {
	n.Tick(now)
	n.counts = slices.Clone(counts)
	if n.ph == adopting && n.epoch == epoch {
		n.holding = slices.Clone(sems)
	}
	if n.ph == adopting && n.epoch == epoch {
		n.ph = readied
		n.proposeOwn()
	}
}

// Stopped is the driver's answer to a lost Fence: nothing of the view is
// served any more, and the node has issued counts permits in all.
func (n *Node) Stopped(now proc.Time, counts []uint64) {
	n.Tick(now)
	n.counts = slices.Clone(counts)
	if n.ph != fenced {
		return
	}
	n.ph = out
	// The node comes back as a new run, and the leader moves on to a
	// view with it: whether its lease ran out in a view that still
	// counts this run in, or a view left it out while it heard the
	// leader (a cut to another member). A run once out never comes back
	// (the service's backups take it for gone): from here on this run
	// adopts no view (inView), not even one that still has it.
	n.seq++
	n.proposeOwn()
}

// Leave is the driver's word that this run has stopped serving for good:
// it gave every grant back and is shutting down, having issued counts
// permits in all. The node proposes its leave until Left.
func (n *Node) Leave(now proc.Time, counts []uint64) {
	n.Tick(now)
	n.counts = slices.Clone(counts)
	n.leaving = true
	n.ph = out
	n.proposeOwn()
}

// Left reports whether this run's leave is applied and it has handed
// its leadership on, if it led: the others may move on at once, without
// an election and without waiting for its lease.
func (n *Node) Left() bool {
	_, joined := n.gen()
	return joined && n.sm.Left(n.cfg.Self) && n.rn.BasicStatus().RaftState != raft.StateLeader
}

// handOver transfers the leadership of a node that left to the member of
// the newest view with the lowest id.
func (n *Node) handOver() {
	st := n.rn.BasicStatus()
	if !n.leaving || !n.sm.Left(n.cfg.Self) || st.RaftState != raft.StateLeader || st.LeadTransferee != raft.None {
		return
	}
	for _, m := range n.sm.View().Members {
		if m != n.cfg.Self {
			n.rn.TransferLeader(raftID(m))
			return
		}
	}
}

// proposeOwn proposes what this node waits for: its rejoin, or its
// ready. A proposal may be lost (no leader, a leader change): it is made
// again every election timeout until applied.
func (n *Node) proposeOwn() {
	n.propDue = n.ticks + ElectionTicks/2
	if n.removed {
		return
	}
	g, joined := n.gen()
	switch {
	case n.leaving:
		if joined && !n.sm.Left(n.cfg.Self) {
			_ = n.rn.Propose(encodeEntry(LeaveEntry{Node: int32(n.cfg.Self), Run: n.cfg.Run, Seq: n.seq, Counts: n.counts}))
		}
	case !joined:
		_ = n.rn.Propose(encodeEntry(RejoinEntry{Node: int32(n.cfg.Self), Run: n.cfg.Run, Seq: n.seq, Counts: n.counts}))
	case n.ph == readied:
		r := ReadyEntry{Epoch: n.epoch, Node: int32(n.cfg.Self), Gen: g, Counts: n.counts}
		if len(n.holding) == 0 {
			_ = n.rn.Propose(encodeEntry(r))
			break
		}
		b, err := entries.AppendMessage(nil, HoldingEntry{Ready: r, Sems: n.holding})
		if err != nil {
			// More held names than an entry holds (the driver bounds
			// them: the service's semaphores in use). The view must
			// open all the same: the ready goes without them, and
			// their units are recorded again at their next Acquire.
			n.cfg.Logger.Errorf("control: the ready of view %d without its semaphores: %v", n.epoch, err)
			b = encodeEntry(r)
		}
		_ = n.rn.Propose(b)
	case n.ph == serving && n.behind():
		n.reported = slices.Clone(n.counts)
		_ = n.rn.Propose(encodeEntry(ReportEntry{Epoch: n.epoch, Node: int32(n.cfg.Self), Gen: g, Counts: n.counts}))
	}
}

// RecordSemaphore proposes a SemaphoreEntry: semaphore name has units
// units. The driver reads State.Semaphore once it is applied (the first
// entry of a name wins), and proposes it again if it is not applied in a
// while: a proposal may be lost (no leader, a leader change).
func (n *Node) RecordSemaphore(name string, units int32) error {
	return n.rn.Propose(encodeEntry(SemaphoreEntry{Name: name, Units: units}))
}

// ProposeRefresh proposes a RefreshEntry for view epoch: once applied
// (if epoch is still the newest view, and open), every member adopts a
// view of the same members, and what nobody holds is collected.
func (n *Node) ProposeRefresh(epoch uint64) error {
	return n.rn.Propose(encodeEntry(RefreshEntry{Epoch: epoch}))
}

// Issued is the driver's word that this node, serving, has issued counts
// permits in all (on disk). Once it has issued half a chunk of a quota
// beyond its last committed report, it proposes a report: the next
// chunk is granted before this one is used up, and a Take rarely waits.
func (n *Node) Issued(now proc.Time, counts []uint64) {
	n.Tick(now)
	n.counts = slices.Clone(counts)
	if n.ph != serving || !n.behind() {
		return
	}
	if n.reported != nil && !n.grown() {
		return // the last report proposed is on its way
	}
	n.proposeOwn()
}

// grown reports whether some quota's count is half a chunk or more
// beyond the last report proposed.
func (n *Node) grown() bool {
	for i, c := range n.counts {
		if i < len(n.reported) && c > n.reported[i] && n.due(i, c-n.reported[i]) {
			return true
		}
	}
	return false
}

// behind reports whether some quota's count is half a chunk or more
// beyond what the log has of it in the view served.
func (n *Node) behind() bool {
	for i, c := range n.counts {
		if l, ok := n.sm.Limit(n.cfg.Self, n.epoch, i); ok && l != math.MaxUint64 {
			if committed := l - n.cfg.Quotas[i].Chunk; c > committed && n.due(i, c-committed) {
				return true
			}
		}
	}
	return false
}

// due reports whether d permits of quota i call for a report: half its
// chunk.
func (n *Node) due(i int, d uint64) bool { return d >= max(1, n.cfg.Quotas[i].Chunk/2) }

// Limit is what this node's count of quota i may reach in view epoch
// (math.MaxUint64: no bound); ok is false if it may issue nothing in it.
func (n *Node) Limit(epoch uint64, i int) (limit uint64, ok bool) {
	return n.sm.Limit(n.cfg.Self, epoch, i)
}

// proposeView proposes a new view, on the leader, when the members it
// would choose are not the newest view's: among the nodes heard from
// within a lease (and itself) that have rejoined, the largest set in
// which every two heard each other (clique), if it is a majority of the
// configuration. One proposal is in flight at a time (made again if not
// applied within two election timeouts).
func (n *Node) proposeView() {
	st := n.rn.Status()
	if st.RaftState != raft.StateLeader || (n.proposed != 0 && n.ticks-n.proposed < 2*ElectionTicks) {
		return
	}
	voters := slices.Sorted(maps.Keys(st.Config.Voters.IDs()))
	cur := n.sm.View()
	var cands []proc.ID
	for _, id := range voters {
		p := procID(id)
		if g := n.sm.gen[p]; n.alive(p) && g > 0 && !n.sm.left[p] {
			cands = append(cands, p)
		}
	}
	var next View
	for _, p := range n.clique(cands, cur) {
		next.Members = append(next.Members, p)
		next.Gens = append(next.Gens, n.sm.gen[p])
	}
	if 2*len(next.Members) <= len(voters) {
		return
	}
	if cur.Epoch > 0 && slices.Equal(cur.Members, next.Members) && slices.Equal(cur.Gens, next.Gens) {
		return
	}
	e := ViewEntry{Gens: next.Gens}
	for _, m := range next.Members {
		e.Members = append(e.Members, int32(m))
	}
	if q := n.shortestSilence(cur, next); cur.Epoch > 0 && q >= 0 {
		e.Wait = int64(n.holdFor(q))
	}
	if err := n.rn.Propose(encodeEntry(e)); err == nil {
		n.proposed = n.ticks
	}
}

// shortestSilence is how long, on this node's clock, the left-out run of
// cur heard from most recently has been silent (0 for a run replaced by a
// new one of its node); -1 if next leaves out no run, or only runs that
// left.
func (n *Node) shortestSilence(cur, next View) proc.Time {
	shortest := proc.Time(-1)
	for i, m := range cur.Members {
		if next.Has(m, cur.Gens[i]) || n.sm.left[m] && n.sm.gen[m] == cur.Gens[i] {
			continue // in the next view, or left: serving nothing
		}
		quiet := n.tickEvery() * proc.Time(n.ticks-max(n.heard[m], n.leadFrom))
		if m == n.cfg.Self || n.sm.gen[m] != cur.Gens[i] {
			// What the leader heard from the node may be its new run's:
			// the old run may have spoken last just now.
			quiet = 0
		}
		if shortest < 0 || quiet < shortest {
			shortest = quiet
		}
	}
	if shortest < 0 {
		return -1 // nobody to wait for
	}
	return shortest
}

// holdFor is the wait before a view that leaves a run out serves, when
// that run has been silent for quiet on the leader's clock. Its lease
// ends at most Lease after its last read started, on its clock: at most
// (1+ρ)·Lease in real time; its clients stop believing in their grants
// before that, on theirs: another ρ·Lease. The leader's quiet is at least
// (1−ρ)·quiet in real time, and each node waits from when it applies the
// view, after the leader proposed it, a wait its own clock stretches by
// at most (1+ρ): so (1+2ρ)·Lease − (1−ρ)·quiet, times (1+ρ), plus the
// margin.
func (n *Node) holdFor(quiet proc.Time) proc.Time {
	l, q := int64(n.cfg.Lease), int64(quiet)
	w := (l*(RhoDen+2*RhoNum) - q*(RhoDen-RhoNum)) / RhoDen
	w = w * (RhoDen + RhoNum) / RhoDen
	return proc.Time(max(w, 0)) + n.cfg.Margin
}

// startRead starts a lease read: the time it starts is its context. On
// the leader it confirms the followers' kept reads too.
func (n *Node) startRead() {
	if _, joined := n.gen(); !joined {
		return
	}
	n.readFor(true)
}

// LeaseLeft is how much longer this node may serve: 0 unless it serves.
func (n *Node) LeaseLeft(now proc.Time) proc.Time {
	return max(n.LeaseEnd()-now, 0)
}

// LeaseEnd is when this node's lease ends (0: it holds none: it is in no
// view, or fenced). A driver may keep it to answer without the node.
func (n *Node) LeaseEnd() proc.Time {
	if n.ph != serving && n.ph != adopting && n.ph != readied {
		return 0
	}
	if n.cfg.Broken == NoLease {
		return math.MaxInt64
	}
	return n.lease
}

// Member is the newest view's epoch if this run is a member of it, else
// 0: the view this node adopts, or has.
func (n *Node) Member() uint64 {
	if v := n.sm.View(); n.inView(v) {
		return v.Epoch
	}
	return 0
}

// ServingEpoch is the view this node serves, lease permitting (0: none).
func (n *Node) ServingEpoch() uint64 {
	if n.ph != serving || n.sm.View().Epoch != n.epoch {
		return 0
	}
	return n.epoch
}

// Serving reports whether the node serves now, and the view.
func (n *Node) Serving(now proc.Time) (View, bool) {
	v := n.sm.View()
	return v, n.ph == serving && v.Epoch == n.epoch && (now < n.lease || n.cfg.Broken == NoLease)
}

// Next returns what the node asks of its driver now. The driver must do
// it (persist, then send) before the next call to Next; the node assumes
// it done.
func (n *Node) Next(now proc.Time) (Update, error) {
	n.Tick(now)
	var u Update
	for n.rn.HasReady() {
		rd := n.rn.Ready()
		if !raft.IsEmptySnap(rd.Snapshot) {
			if err := n.restore(rd.Snapshot, &u); err != nil {
				return u, err
			}
		}
		if !raft.IsEmptyHardState(rd.HardState) {
			u.HardState = rd.HardState
			if err := n.storage.SetHardState(rd.HardState); err != nil {
				return u, err
			}
		}
		if len(rd.Entries) > 0 {
			u.Entries = append(u.Entries, rd.Entries...)
			if err := n.storage.Append(rd.Entries); err != nil {
				return u, err
			}
		}
		n.confProposed = false
		u.MustSync = u.MustSync || rd.MustSync
		u.Messages = append(u.Messages, rd.Messages...)
		for _, m := range rd.Messages {
			if m.Type == raftpb.MsgSnap {
				// The driver sends it after this Update, and no word
				// comes back if it is lost: Raft is told it went. The
				// follower's answer moves the leader on; if it never
				// comes, the leader probes, the follower refuses
				// entries past its log, and the snapshot goes again.
				n.rn.ReportSnapshot(m.To, raft.SnapshotFinish)
			}
		}
		due := false
		for _, e := range rd.CommittedEntries {
			if err := n.apply(e, &u); err != nil {
				return u, err
			}
			// A node added needs a snapshot with it in its
			// configuration, if the leader has compacted the entries
			// that would bring it there: one is taken at every
			// configuration change (they are rare).
			due = due || e.Type == raftpb.EntryConfChange && n.cfg.SnapshotEvery >= 0 && n.snapped > 1
		}
		for _, rs := range rd.ReadStates {
			if len(rs.RequestCtx) != 12 || binary.BigEndian.Uint32(rs.RequestCtx) != uint32(n.cfg.Self) {
				continue
			}
			id := binary.BigEndian.Uint64(rs.RequestCtx[4:])
			if r := n.reads[id]; r != nil {
				r.index = rs.Index
				n.answerKept(r, rs.Index)
				if !r.own {
					delete(n.reads, id)
				}
			}
		}
		n.rn.Advance(rd)
		n.observe(raftpb.Message{})
		if due || n.snapshotDue() {
			if err := n.snapshot(&u); err != nil {
				return u, err
			}
		}
	}
	n.renew()
	n.step(&u)
	u.Messages = append(u.Messages, n.extra...)
	n.extra = nil
	if n.reachDue {
		n.reachDue = false
		u.Reach, u.ReachTo = n.reach(), n.reachTo()
	}
	return u, nil
}

// snapshotDue reports whether SnapshotEvery entries were applied since
// the newest snapshot.
func (n *Node) snapshotDue() bool {
	every := cmp.Or(n.cfg.SnapshotEvery, DefaultSnapshotEvery)
	return every > 0 && n.sm.Applied() >= n.snapped+uint64(every)
}

// snapshot takes a snapshot of the State at the last entry applied, for
// the driver to persist in place of the log up to it, and compacts the
// Raft storage up to SnapshotKeep entries before it.
func (n *Node) snapshot(u *Update) error {
	at := n.sm.Applied()
	if at <= n.snapped {
		return nil
	}
	data, err := n.sm.Encode()
	if err != nil {
		// A State beyond a codec value: the log goes on growing rather
		// than the node stopping.
		n.cfg.Logger.Warningf("%v: the log is not compacted", err)
		return nil
	}
	snap, err := n.storage.CreateSnapshot(at, &n.conf, data)
	if err != nil {
		return fmt.Errorf("control: snapshot at %d: %w", at, err)
	}
	n.snapped = at
	u.Snapshot = snap
	keep := uint64(max(cmp.Or(n.cfg.SnapshotKeep, min(DefaultSnapshotKeep, cmp.Or(n.cfg.SnapshotEvery, DefaultSnapshotEvery))), 0))
	if at > keep {
		if err := n.storage.Compact(at - keep); err != nil && !errors.Is(err, raft.ErrCompacted) {
			return fmt.Errorf("control: compacting to %d: %w", at-keep, err)
		}
	}
	return nil
}

// restore replaces the node's State with the snapshot the leader sent:
// this node was behind the leader's first index. It moves on to the
// snapshot's view and configuration as if it had applied the entries.
func (n *Node) restore(snap raftpb.Snapshot, u *Update) error {
	sm, err := DecodeState(n.cfg.Quotas, snap)
	if err != nil {
		return err
	}
	if err := n.storage.ApplySnapshot(snap); err != nil {
		return fmt.Errorf("control: snapshot at %d: %w", snap.Metadata.Index, err)
	}
	before := n.sm.View().Epoch
	sm.broken = n.cfg.Broken
	*n.sm = *sm
	n.conf, n.snapped = snap.Metadata.ConfState, snap.Metadata.Index
	u.Snapshot, u.Restored = snap, true
	// The node is a member: Raft refuses a snapshot whose configuration
	// has it not.
	u.Members = n.sm.Members()
	if v := n.sm.View(); v.Epoch != before {
		n.viewChanged(v, View{}, u)
	}
	return nil
}

// apply applies one committed entry.
func (n *Node) apply(e raftpb.Entry, u *Update) error {
	if e.Type != raftpb.EntryNormal {
		changed, err := n.applyConfEntry(e)
		if changed {
			u.Members = n.sm.Members()
		}
		if n.removed {
			n.leave(u)
		}
		return err
	}
	before := n.sm.View()
	if err := n.sm.Apply(e.Index, e.Data); err != nil {
		return err
	}
	if v := n.sm.View(); v.Epoch != before.Epoch {
		n.viewChanged(v, before, u)
	}
	return nil
}

// leave stops a node that applied its own removal: it fences at once if
// it serves (the views that follow leave it out, and wait for its lease
// all the same), and proposes nothing more.
func (n *Node) leave(u *Update) {
	switch n.ph {
	case serving, adopting, readied:
		u.Changes = append(u.Changes, Change{Kind: Fence, View: View{Epoch: n.epoch}, Lost: true})
		n.ph, n.leased = fenced, false
	}
}

// viewChanged moves this node on to the newest view v, which replaced
// prev (Epoch 0: not known).
func (n *Node) viewChanged(v, prev View, u *Update) {
	n.hold = max(n.hold, n.now+v.Wait)
	n.proposed = 0
	in := n.inView(v)
	switch n.ph {
	case serving, adopting, readied:
		if !in {
			u.Changes = append(u.Changes, Change{Kind: Fence, View: View{Epoch: n.epoch}, Lost: true})
			n.ph, n.leased = fenced, false
			return
		}
		if n.ph == serving {
			u.Changes = append(u.Changes, Change{Kind: Fence, View: View{Epoch: n.epoch}})
		}
	case fenced:
		return // the driver has not stopped yet: Stopped moves on
	}
	if in && !n.leaving {
		n.ph, n.epoch = adopting, v.Epoch
		u.Changes = append(u.Changes, Change{Kind: Adopt, View: v, Prev: prev})
	} else {
		n.ph = out
	}
}

// renew extends the lease with every read whose index is applied: at the
// read's start this node was in the newest view if it still is now (a
// newer view would be at an index at or below the read's, applied).
func (n *Node) renew() {
	for id, r := range n.reads { // any order: deletes, and a max
		if !r.own || r.index == 0 || r.index > n.sm.Applied() {
			continue
		}
		delete(n.reads, id)
		if n.inView(n.sm.View()) {
			n.lease = max(n.lease, r.sent+n.cfg.Lease)
			n.leased = true
		}
	}
}

// step moves this node's phase on: serve once the view is open, waited
// and leased; fence once the lease runs out.
func (n *Node) step(u *Update) {
	v := n.sm.View()
	switch n.ph {
	case readied:
		open, left := n.sm.Open()
		held, leased := n.now < n.hold, n.now < n.lease
		switch n.cfg.Broken {
		case NoWait:
			held = false
		case NoLease:
			leased = true
		}
		if open && v.Epoch == n.epoch && !held && leased {
			n.ph, n.reported = serving, nil
			u.Changes = append(u.Changes, Change{Kind: Serve, View: v, Left: slices.Clone(left)})
			return
		}
	}
	if (n.ph == serving || n.ph == readied || n.ph == adopting) && n.leased && n.now >= n.lease && n.cfg.Broken != NoLease {
		u.Changes = append(u.Changes, Change{Kind: Fence, View: View{Epoch: n.epoch}, Lost: true})
		n.ph, n.leased = fenced, false
	}
}

// discard is a Raft logger that drops everything but fatal errors.
type discard struct{}

func (discard) Debug(...any)            {}
func (discard) Debugf(string, ...any)   {}
func (discard) Error(...any)            {}
func (discard) Errorf(string, ...any)   {}
func (discard) Info(...any)             {}
func (discard) Infof(string, ...any)    {}
func (discard) Warning(...any)          {}
func (discard) Warningf(string, ...any) {}
func (discard) Fatal(v ...any)          { panic(fmt.Sprint(v...)) }
func (discard) Fatalf(f string, v ...any) {
	panic(fmt.Sprintf(f, v...))
}
func (discard) Panic(v ...any)            { panic(fmt.Sprint(v...)) }
func (discard) Panicf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }
