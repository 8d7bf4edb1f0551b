// Package dataplane is the service's data plane as a pure machine, for
// the simulator: what a node of allot serve does with sessions, grants
// and backups, written once as a state machine (Node) over package
// session, and a node as a proc.Process (Process) that hosts it beside
// the control plane (package control) and the processes of each view's
// instances: the lock algorithm's, the semaphores' pool algorithms' (a
// large one's, a small one's), and the quotas' controller's.
//
//	   clients: Call (open, keep-alive, lock, unlock, acquire, release, take, close, holders)
//	                │      ──> Reply
//	Process ────────┼─────────────────────────────────────────────────────────────┐
//	│  control.Node (Raft, views, leases; its Disk across restarts)              │
//	│     │ Adopt(view, prev), Serve, Fence(lost); LeaseLeft before each input   │
//	│     v                                                                      │
//	│  Node (pure: time and the lease are inputs, outputs are data in an Out)    │
//	│     sessions (session.Session: the lease rule), Expiry, Handed, Delays     │
//	│     grants by id (session.Grants; each one's life a GrantLife, as the      │
//	│       service's), each on a Key (the lock, or semaphore j of R units):     │
//	│       a lock's names resolved to ids in the view by their homes            │
//	│       (names.go: Resolve ─> Resolved, a table per view), then              │
//	│       asked on a user of the view's instance of its key (a small           │
//	│       semaphore's on a free slot of the node's block, or waiting, in       │
//	│       order, for one), answered once the backup has them, asked again in   │
//	│       every new view (regrant; a semaphore's on a unit numbered afresh,    │
//	│       its token's unit kept)                                               │
//	│     Outbox: the records owed to the backup (Keep ─> KeepAck)               │
//	│     Keeper: the records kept for others; TakeOver: adoption               │
//	│     readiness in a new view: regrants answered, records acknowledged       │
//	│     takes: of N permits, one at a time, each on a slot of the view's       │
//	│       instance of its quota, within the node's chunk (package chunk;       │
//	│       Limits: control.Node.Limit); the counts over the node's life, on     │
//	│       disk before the answer (Counts); one answer with what the Take got   │
//	│     Out: Replies, Sends (Keep, KeepAck, Resolve, Resolved), Asks, Frees,   │
//	│          Events, Ready, Stopped, Retire, Left, Counts, Record (units to    │
//	│          read), Holding, Tries                                             │
//	│     v                                                                      │
//	│  instances, one per (view, key): the lock's (ProcessConfig.Lock), each     │
//	│  large semaphore's (R ≥ Slots; ProcessConfig.Pool: central-pool, its       │
//	│  owner on the view's first member), each small one's (R < Slots;           │
//	│  ProcessConfig.SmallPool: R-RESOURCES on Slots users per member), each     │
//	│  quota's once the view serves (ProcessConfig.Quota: the controller on      │
//	│  the same slots, its budget the ledger's Left); the service's              │
//	│  placement, processes made as first used (on the slots, all of the         │
//	│  node's at once); their messages as Inst (which instance: Epoch, Key),     │
//	│  stamped by the Lamport clock                                              │
//	│  the disk: control.Disk, Counts beside the log, kept across restarts       │
//	│  links to the other nodes: Link/LinkAck, resent until acknowledged, in     │
//	│  order (the service's links)                                               │
//	└────────────────────────────────────────────────────────────────────────────┘
//
// It follows service/: names.go (a lock name's home in the view by
// rendezvous hashing, package lockname's, which both share; the home
// giving the name an id of its own range, rank + N·k, on its first
// question in the view, the same to every later one; a node asking the
// home over the links once per view, the names of a request one at a
// time, before it takes a user; a regrant resolving its names again in
// the new view; a question of a view the home has left unanswered, the
// request starting over in the next view; the tables given back at the
// next view's adoption), holders.go (OpHolders: a session's grants held
// that hold a lock's name or a semaphore, with their ids and tokens, read
// from the node's sessions, own and adopted; none, answered OK, for a
// session it does not have: what client/'s reclaim, and svcsim's client,
// ask the session's node after a Lock or Acquire was cut off, to find
// its grant held), sessions.go (open, keep-alive: recorded unless
// covered, a backup not answering in a quarter lease cuts the answer's
// lease to what it keeps; close), grants.go and api.go (a grant
// registered with its session, answered only once its record is at the
// backup, a request whose view changed asked again once the next view
// serves, an unlock or release recorded before the give-back; a
// semaphore's grant one unit, its token naming the unit of the view it
// was issued in, tokenUnit, while regrant moves where it is held, unit;
// the records' Key "sem/NAME/UNITS" and Unit, primary.go and backup.go),
// semaphores.go's two ways of serving a semaphore of R units, by R
// against the node's slots (Config.Slots, the service's --slots): a
// large one, R ≥ slots, by central-pool over users made one per open
// request, as the lock's; a small one, R < slots, by the cluster's
// semaphore algorithm (R-RESOURCES) on the view's fixed slots, slots per
// member in blocks, the tree instance.go's, each node building its own
// block of processes when the instance is first used, a request taking a
// free slot of its node's block or waiting, in order, for one (locks.go's
// grab, instance.go's idle), so that a regrant of a node's held grants,
// at most R < slots, always finds slots; expiry.go (sessions run
// out only while the node holds its lease; an expired session's grants
// held a lock-delay, asked again meanwhile in a new view), ctl.go's adopt
// and fence, primary.go's moveBackup, backup.go's takeOver and
// adoptSession, the lock's placement of locks.go, and take.go's Take
// with ctl.go's chunks (a permit asked only while the node's count and
// the permits asked stay below the limit the log allows it in the view:
// package chunk's rule, which both share; counted on disk before the
// answer, the counts given to the control
// node in Issued, Ready and Stopped, and to it at every start: the
// ledger of control's "# Quotas" counts them) and serve's quota instances
// (the controller's budget what the ledger left the view, none when it
// left nothing: every Take refused; a reject RESOURCE_EXHAUSTED, or
// UNAVAILABLE in a view begun short of an absent member's report).
//
// Where it differs, and why:
//
//   - A lock's names are small integers, spelt as the records spell them
//     ("a", "b", ...) for their homes; the service's home refuses a
//     question past its range of ids in a view (lockRange, NODE_LIMIT
//     "names", and asks for a refresh), which the model's few names
//     never reach: not modelled. A
//     semaphore is an id. Its units are checked as semaphores.go's
//     checkUnits does when Config.Units is set (svcsim sets it only when
//     some clients give other units, --mismatch: the read costs a Raft
//     round trip per semaphore and view, which would move every run's
//     timing): a node's first Acquire of a semaphore in a view waits
//     for the control log's units (Out.Record: the driver proposes the
//     units asked, control.Node.RecordSemaphore, while the log's view
//     is open, again in a newer view or after half a lease, and reads
//     State.Semaphore after every input; the first entry wins), the
//     other Acquires of it meanwhile waiting for that read; an Acquire
//     of other units is refused (Mismatch: FAILED_PRECONDITION,
//     UNITS_MISMATCH, with the log's units), and the instance of a
//     semaphore runs with the units of the Acquires it serves, those the
//     log recorded. The node keeps what it read until its view moves
//     past the log's view it read it in, and a request that starts over
//     in a new view is checked again there (grants.go's acquire checks
//     in every view it asks in). The control plane's refresh is
//     modelled when ProcessConfig.RefreshEvery is set (svcsim's
//     --refresh-every): the node proposes one (control.Node.
//     ProposeRefresh) on a timer while it leads, instead of the
//     service's refresher, which proposes when a node has idle
//     instances or its most semaphores in use; the refresh view forgets
//     every semaphore's units, and each member's ready records again
//     the units of those its sessions hold (Out.Holding: a
//     HoldingEntry, control.Node.ReadyHolding), so a held semaphore's
//     units are never forgotten while held. Not modelled: the limit of
//     semaphores in use (--max-semaphores). The
//     nodes' limits are (Config.MaxSessions, MaxLocks: the service's
//     --max-sessions, --max-locks), as sessions.go's OpenSession and
//     grants.go's acquire apply them: an open past MaxSessions, a lock
//     request past MaxLocks users of the view's lock instance, a large
//     semaphore's past MaxSessions users of its instance, answered
//     NodeLimit (RESOURCE_EXHAUSTED, NODE_LIMIT), unless a user given
//     back is on its way to being free (claimed: the request waits for
//     it); adopted sessions and regrants pass them, and a user made past
//     the limit is not kept once the node has its most idle. That rule,
//     the node's users of a lazy instance counted, is package users',
//     which the service's locks.go (grab, givenBack, putBack) and this
//     package's Node.ask and free both run: written once, not copied.
//     The users' ids stay below lockRange, which bounds the regrants
//     past the limit (the model's few users never reach it). The slots
//     are the model's (Config.Slots: svcsim's are 2 by default, the
//     service's 16, so few that a view's instance stays small), so a
//     small semaphore there is one of 1 unit. A small semaphore's request still waiting for a slot when
//     its view changes starts over once the next view serves, as one
//     asked there does; the service's waits in idle until its view
//     retires, then asks again in the view that serves: the same.
//   - A try (Call.Try: the service's TryLock, TryAcquire) is modelled as
//     grants.go's acquire with try: its give-up timer, TryWait
//     (Config.TryWait; the service's 20 ms default is 20 ticks,
//     DefaultTryWait), starts once the request has its user or waits for
//     a slot (after grab: a view's wait does not count), anew in each
//     view it is asked in, and goes on while a slot it waited for is
//     given to it (idle, then request). Asked on a user of an algorithm
//     that tells when it waits behind another (proc.Queued: the lock's,
//     modular-ordered; not the semaphores' central-pool nor R-RESOURCES),
//     the timer is dropped and the try gives up only once that user says
//     it is behind (the service's watch). Given up, it is answered Taken
//     (FAILED_PRECONDITION, TAKEN; client/'s ErrLocked): dropped from its
//     session (never recorded at the backup: a grant is recorded only once
//     granted), out of the queue for a slot, and its ask abandoned: the
//     algorithm's grant, if it comes, is given back at once (Entered of
//     a grant lost), nobody told. A try granted before it gives up is
//     answered OK once recorded, as any request (the service stops
//     watching its timer once the answer is taken). The service's watch
//     asks the algorithm every 2 ms; Process asks after every input of
//     the node, so it sees a try behind no later than the service would.
//     TryLeaks answers Taken but leaves the request at the instance: its
//     grant lands held by the session, told nobody, until the session
//     ends.
//   - A Take of N permits (OpTake, Call.N) is modelled as take.go's: N
//     outside 1..the quota's budget refused before anything
//     (INVALID_ARGUMENT: Invalid, Config.Budgets); its permits asked one
//     at a time, each on a slot of the view's instance taken for it and
//     given back at its answer, the take then waiting for a slot behind
//     the takes already waiting (the service's slot channel serves its
//     receivers in order), each within the node's chunk; the rest asked
//     in the next view that serves after a view change; one answer
//     (Reply.Permits): OK with all N; Exhausted (or Unavailable in a
//     view begun short of a report) with those it got before the reject,
//     QUOTA_EXHAUSTED's "taken"; the session's end, or the lease out
//     once the view it got permits in retires or once it got all N, its
//     code with what it got (TAKE_CUT_SHORT when above 0, the service's
//     lapsed take). The client's answer is one EvPermit of all it was
//     told (proc.Session.Permits), before an EvReject, EvGiveUp or
//     EvExpired of a Take cut short. The service's Take holds its slot
//     while it waits for its chunk; the model's take waits for the
//     chunk first, then for a slot, as its Take of one permit did: that
//     orders the takes of a node differently, not what the node may
//     issue. svcsim's
//     client does not take again what a Take cut short lacks (client/'s
//     Take does, on the session's new node): it keeps what it was told
//     and gives the rest up.
//     A quota is an index fixed for the run (the service's names, from
//     the cluster's configuration), every one of the same budget and
//     waste. The service writes the permits a Take got to its store in
//     one AddIssued when the chunk is used up, the view retires or the
//     Take ends, before it answers or waits for the next report (which
//     then counts them); the model counts each permit as its instance
//     answers, in the same step (a step is atomic: no crash falls
//     between the count and the answer), earlier than the service but
//     never later, so neither answers a permit the disk does not have,
//     nor leaves one a report of the next view does not count
//     (TakeCountLate counts at the answer only, and is caught). A take
//     waiting for its chunk is looked at again on the
//     data plane's tick and at each answer (the service's reserve wakes
//     when the limit grows); one asked when its view changes is asked
//     again in the next view that serves. A take is not recorded at the
//     backup (nor is the service's): it is answered by the node it was
//     asked at, or given up by the client when it moves. A node not
//     serving keeps a take waiting (the service's Take waits for a view
//     up to its context). Within a view the controller runs as the
//     paper's model has it (reliable links, no failures: Afek et al.,
//     section 2); a member lost breaks only the view's liveness, and the
//     next view's budget comes from the ledger.
//   - Open answers "unavailable" at once from a node not serving (the
//     service waits up to three leases for one), and records without a
//     context: the client moves on instead.
//   - An end acknowledged after the node's lost fence is not taken as
//     recorded (EvHanded, its grants not held by a lock-delay): the backup
//     acknowledges a record it refused (a run it took over), so the end
//     may not be kept there and the backup may have adopted the session.
//     The service's Backup.Keep says which it refused
//     (KeepResponse.refused), and its primary counts a refused end, or
//     one unanswered when the node stopped serving, as handed.
//   - A lost fence empties the node's Keeper: the records its old
//     generation kept are not its new generation's (its primaries record
//     again at a backup of another generation), and kept, they would be
//     adopted in a later view that names this node the successor of a
//     fenced run — stale records, an ended session adopted with grants
//     long given back. The service does the same (ctl.go, fence).
//
// What the service still does itself: all but what package session
// holds. service/ does not drive this package yet; it keeps its own
// goroutines, locks and gRPC streams around package session (the
// sessions' leases, records and adoption, and since a session's grants
// and each grant's life: session.Grants, session.GrantLife), and the
// rest is kept in step by hand.
package dataplane
