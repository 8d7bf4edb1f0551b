// Package control is the control plane of an allot cluster: which nodes
// serve, agreed by Raft (go.etcd.io/raft/v3), and how long a node may go
// on serving once it can no longer know.
//
// It is pure, like the algorithms: no clock, no I/O, no goroutine. A Node
// is Raft's RawNode plus the view state machine (State) that applies the
// entries Raft commits; the driver hands it time (Tick), messages (Step)
// and its answers (Ready, Stopped), and does what each Update says:
// persist Raft's hard state and entries, send its messages, take its
// Changes. Process runs a Node as a proc.Process, for the simulator and
// the explorer; the service drives a Node in real time.
//
//	             driver (service | Process in sim/explore)
//	Tick(now) ──┐  Step(msg) ──┐  Ready(E, counts) ──┐  Stopped(counts) ──┐
//	            v              v                     v                    v
//	+---------------- Node: raft.RawNode ── committed entries ──> State ----+
//	|  leader: proposes views     lease: ReadIndex every Lease/6            |
//	+------------------------------------------------------------------------+
//	            |                |                          |
//	   persist entries,     Raft messages          Changes: Adopt E, Serve E,
//	   hard state (fsync)   (after persisting)     Fence E (Lost: sessions end)
//
// # The log
//
// Besides Raft's configuration changes (Membership, below), these
// entries: a RejoinEntry (a node's new run: after every start, and after
// its lease ran out in a view that still counts it), a ViewEntry (the
// leader's choice of members), a ReadyEntry (a member holds again in the
// view every grant its sessions held), a ReportEntry and a LeaveEntry
// (Quotas, and Leave), and a SemaphoreEntry (a semaphore's units,
// recorded by the first node that serves an Acquire of its name, so that
// every node refuses other units for it: RecordSemaphore; the first entry
// of a name wins; applied only while the newest view is open), and a
// RefreshEntry (ProposeRefresh: any member asks for a view of the same
// members, which collects what nobody holds; it forgets the semaphores'
// units, and each member's ready in it, a HoldingEntry, records again
// those its sessions hold: ReadyHolding). A view's epoch is the
// index of its entry in the log: persisted, only growing, across restarts
// of any number of nodes; never a wall clock. Every node applying the same
// entries reaches the same State: the same views, members, generations and
// quota ledger.
//
// # Views
//
// The leader proposes a view when the nodes it would choose differ from
// the newest view's: of the voters it heard a message from within a lease
// (itself included) that have rejoined, each with its generation
// (how many rejoins of it were applied), the largest set in which every
// two heard each other within a lease, if it is a majority of the
// configuration.
//
// The data plane needs every link between the members of a view, not
// only the links to the leader: a lock's request waits on the nodes that
// home its names. So every node sends every other voter a Reach every
// Lease/4, outside the Raft log (Update.Reach, Node.Hear), on the links
// the data travels on: the voters it heard from within a lease. It is
// the probe and the report at once. A pair counts as linked only if each
// side's last Reach (the leader's own hearing, for the leader) names the
// other, so a one-way cut cuts the pair; a node whose Reach is older than
// a lease (or that sends none) is taken to hear everyone, and the
// leader's own failure detector judges it. Among the sets of the largest
// size the leader takes the one whose members the other candidates hear
// most (a crashed node is lost by the others one after the other, and
// must not be kept meanwhile in place of a live one; of a one-way cut,
// the side the other does not hear goes), then the one with the most
// members of the newest view (a steady cut keeps the view it led to),
// then the first by ids (a cut both ways between two followers leaves
// out the higher id); but while the newest view's members among the
// candidates are all linked and as many as the largest set, they stay
// the view (as a cut heals, the two sides hear each other again a Reach
// apart, and that moment's scores must not swap the one kept for the one
// left out). The run left out still holds its lease (the
// leader hears it: a silence of 0), so the view waits a whole lease's
// wait: it serves within
// Lease (until the cut side stops counting the other heard) + Lease/4
// (its next Reach) + ((1+2ρ)·Lease)·(1+ρ) + Margin + the round trips of
// the proposal and the readies: about 2.3 leases, the margin and the
// round trips (2.05 leases in the model, 2.0s with the service's lease of
// a second, TestFollowerCutKeepsGranting in client). Once the
// link is mended the next Reaches name both sides again and the next view
// takes the node back, without a wait, as a new run: the run left out
// fenced when it applied the view, and a run that fenced rejoins as a new
// one (Stopped), so a run once out never comes back. The cost is N(N−1) messages every
// Lease/4: 24 a second on 3 nodes with the service's lease of a second,
// 80 on 5, beside the idle Raft traffic's, which grows as N (heartbeats
// every tick, lease reads confirmed together: below).
//
// A member applying a view it is in adopts it (the driver
// stops the older view's instances and asks again for the grants its
// sessions hold) and proposes its ready; once every member is ready the
// view is open. A node serves an open view once its hold has passed and
// while it holds a lease.
//
// # Leases, and the clock assumption
//
// A node serves only while it holds a lease. Every Lease/6
// (LeaseReads; and at once when it learns of a new leader) it starts a
// Raft ReadIndex (ReadOnlySafe: the leader confirms its leadership with a
// quorum first) with its local start time t; once the read's index is
// applied, if the newest view still has this node (as its current run),
// the lease runs to t + Lease. A newer view that left the node out would
// have been committed before the leader received the read, so at an
// index at or below the read's: applied by then; or after, and then it
// waits for a lease from the leader's last hearing of the node, which is
// after t (below). The leader confirms its followers' reads together:
// it keeps them, and one ReadIndex of its own, started after they
// arrived, answers them all with its index (reads.go): a few heartbeat
// rounds every Lease/6 whatever N, not one per node, and an index only
// newer than each read's own would have been.
// When the lease runs out the node fences itself (Fence, Lost) and comes
// back as a new run (a rejoin).
//
// A view that leaves a run out (a node suspected, or replaced by its new
// run) serves nothing until that run's lease, and its clients' belief in
// their grants, have run out. The client closes its session's Done at its
// send time plus the lease its node said it had left, so no client
// believes past its node's lease (on the client's clock). The leader
// writes the wait into the view entry: the excluded run's lease ends at
// most Lease after it last reached the leader, so a run silent for q on
// the leader's clock needs, with every clock's rate within a factor 1+ρ of
// real time,
//
//	wait = ((1+2ρ)·Lease − (1−ρ)·q)·(1+ρ) + Margin
//
// counted by each node from when it applies the view (after the leader
// proposed it). A run replaced by a new run of its node counts q = 0: what
// the leader heard may be the new run's. Waits only add up: a later view
// never serves before an earlier view's wait has passed.
//
// The assumption is on clock rates only, never on their agreement: ρ = 1%
// (RhoNum/RhoDen; crystal oscillators drift by about 1e-4 and NTP slews by
// at most 5e-4), and Margin (the driver's: the service uses a tenth of the
// lease and at least 10ms) absorbs timer and scheduling delays. Chubby and
// etcd's leases rest on the same assumption.
//
// # Quotas
//
// Each node persists (fsync) how many permits of each quota it has issued
// before it answers a Take, and reports its counts in every ready and
// rejoin. The State keeps a ledger of the views that opened; a view
// leaves it once every member has reported after it, what it issued then
// known. A view opens with Left = Budget − (permits of the closed views)
// − (what every view still in the ledger may have issued); Reserve is the
// part of that which is a guess. So the permits issued in the cluster's
// whole life never exceed the budget, whatever crashes.
//
// What a view may have issued is bounded by chunks. A member serving a
// view issues at most Chunk (C) permits beyond its last report committed
// in that view (a ReportEntry, applied while the view is the newest):
// it proposes the next report once it has issued C/2 beyond the last, so
// the next chunk is usually granted before this one is used up, and a
// Take that would pass the bound waits for the report to commit — one
// Raft round trip per C/2 permits of a node, never on a lock's or a
// semaphore's path. A member stops serving a view when it applies a
// newer one, so every report its bound rests on is applied before the
// newer view opens; reports applied later do not count. A member that
// has not reported since (away: crashed, cut off) may have issued its
// last report plus C: the ledger counts that, not the view's whole Left,
// so once a majority is back the next view has all the rest to issue.
//
// The waste this adds is bounded and written down: a node away holds
// back at most C of a quota (it has not ended at most one view of the
// ledger: a ready in a later view ends the earlier ones), and it comes
// back with the node, on its data. The service takes C = max(1, W/(2n))
// for a quota of waste W on n nodes, so the nodes away hold back at most
// W/2 between them. A reject in a view with a Reserve proves only that
// Budget − Reserve − (the view's own waste) permits were issued: the
// service answers it as ResourceExhausted only if that reaches
// Budget − W, else as Unavailable. Chunk 0 is no bound: the whole
// Left of a view is held while one of its members is away (the rule
// before chunks). A ledger that trusts the reports alone (Broken
// NoChunk) lets a cut-off member's permits past the budget: the tests
// show it.
//
// # Membership
//
// The configuration changes at run time through the log (member.go):
// ProposeAdd and ProposeRemove, on the leader, propose a Raft
// configuration change (one at a time: Raft would drop a second one
// silently, and the next id is known only once the last add is applied).
// An add's entry carries a MemberEntry, the new member's id and address,
// so every node learns where it is from the log (Update.Members tells the
// driver, whose links follow); the first members' addresses are in the
// bootstrap snapshot (BootstrapAt), the state every node starts from, a
// node that joins later included: the leader sends it the entries from
// there, or its newest snapshot once it compacted them (Compaction). A
// node's id is
// the next never given, so a removed id never names another node and the
// views and the data plane keep their small integer ids; Config.MaxNodes
// bounds them. Every node checks a change as it applies it (an add of the
// next id at an address no member has, a remove of a member not the
// last): a change that fails is applied by none.
//
// The leader refuses (typed errors) an add of a member's address, a
// change after which the live members would not be a majority of the
// configuration (the voters it heard from within a lease, itself
// included; a member added is not live before it starts), and a remove
// of the last member. A view is chosen
// among the configuration's voters, so the views that follow a remove
// leave the node out, and wait for its lease as for any run left out
// (none if it left: Leave). The removed node fences when it applies its
// removal and proposes nothing more; the leader, which sends it nothing
// once it applied the removal, tells it the removal is committed with
// heartbeats for an election timeout. A leader that removes itself steps
// down once the change is applied.
//
// # Elections without an unseeded clock
//
// Raft draws its randomized election timeout from a source no seed
// controls. A Node never lets Raft's own timer fire (it stops ticking a
// follower's Raft one tick short of the minimum timeout, and observes
// every reset) and campaigns itself after ElectionTicks to
// 2·ElectionTicks ticks without a leader, drawn from Config.Rand: a seed
// replays a run.
//
// # Compaction
//
// The log would grow for the cluster's life (views, rejoins, readies, a
// report every C/2 permits a node, semaphores) and be replayed in full at
// every start. A node takes a snapshot of its State every
// Config.SnapshotEvery entries it applies (DefaultSnapshotEvery), as
// etcd's raftexample does: State.Encode, deterministic bytes (every map a
// slice sorted by key) of what the applied log determines — the
// membership with its addresses and next id, each node's generation, last
// run and leave, the newest view with its readies and what it may issue,
// the quota ledger, the semaphores. DecodeState is the inverse; a node
// restored from a snapshot and the entries after it has the State of one
// that applied the whole log. The Update carries the snapshot: the driver
// persists it and deletes the entries it covers in the same write. Raft's
// storage keeps Config.SnapshotKeep entries behind it, for a follower a
// little behind.
//
// A follower behind the leader's first index (down or cut off while the
// log moved on) is sent the snapshot (MsgSnap): its Update says Restored,
// the driver replaces its whole log with it, and the node takes its State
// and configuration, moving on to its view as if it had applied the
// entries (a view it learns so waits its Wait from then). Nobody tells the
// leader a snapshot was lost: it reports every MsgSnap it hands out as
// sent (ReportSnapshot); if the follower never answers, the leader probes,
// is refused, and sends it again. A node is also snapshotted at every
// configuration change once its log was compacted: a member just added
// starts from the bootstrap state, and Raft refuses a snapshot whose
// configuration does not have it, so the leader's newest must be taken
// after the add.
//
// # What is not here yet
//
// Process (the simulator's and the explorer's) drives no configuration
// change: the tests of this package do, on their model network. A State
// beyond a codec value (codec.MaxSize, a megabyte: some four thousand
// semaphore names of the service's longest, more than twice the most a
// node may hold, and a refresh forgets those nobody holds) is not
// snapshotted, and its log grows as before.
package control
