package control

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/allot-dev/allot/proc"
)

// Member is a node of the Raft configuration: every member votes (there
// are no learners). Addr is where the others reach it ("" in a cluster
// bootstrapped without addresses, as the simulator's).
type Member struct {
	ID   proc.ID
	Addr string
}

// The errors of a membership change: each says why the change was not
// proposed.
var (
	ErrNotLeader    = errors.New("control: not the leader")
	ErrMemberExists = errors.New("control: the address is a member already")
	ErrNotMember    = errors.New("control: not a member")
	ErrLastMember   = errors.New("control: the last member cannot be removed")
	ErrNoMajority   = errors.New("control: the members left would not be a live majority")
	ErrConfBusy     = errors.New("control: another membership change is in progress")
	ErrTooMany      = errors.New("control: no node id left")
	ErrBadAddress   = errors.New("control: a member needs an address")
)

// membership is the configuration as the log says: each member's
// address, and the next id to give (ids are never given twice, so a
// removed node's id never names another).
type membership struct {
	addrs map[proc.ID]string
	next  proc.ID
}

// BootstrapAt is the persisted state of a new cluster of nodes 0..n-1 at
// these addresses, the same on every one of them, and the first state of
// a node that joins it later: the leader sends it the entries from there,
// or, once it compacted them, its newest snapshot, taken when the node's
// add was applied or later (Raft refuses a snapshot whose configuration
// does not have the node).
func BootstrapAt(addrs []string) Disk {
	var ids []proc.ID
	e := MembersEntry{Next: int32(len(addrs)), Addrs: slices.Clone(addrs)}
	for i := range addrs {
		ids = append(ids, proc.ID(i))
		e.Nodes = append(e.Nodes, int32(i))
	}
	d := Bootstrap(ids)
	d.Snapshot.Data = encodeEntry(e)
	return d
}

// list is the members, by id.
func (m membership) list() []Member {
	var out []Member
	for _, id := range slices.Sorted(maps.Keys(m.addrs)) {
		out = append(out, Member{ID: id, Addr: m.addrs[id]})
	}
	return out
}

// has reports whether addr is a member's address.
func (m membership) has(addr string) bool {
	for _, a := range m.addrs { // any order: is it there
		if a == addr {
			return true
		}
	}
	return false
}

// applyConf applies a committed configuration change to the membership,
// if it is valid for it: an add of the next id at an address no member
// has, or a remove of a member that is not the last. An invalid one (two
// proposals raced, a hostile entry) is applied by no node: every node
// decides the same from the same log.
func (s *State) applyConf(cc raftpb.ConfChange) bool {
	switch cc.Type {
	case raftpb.ConfChangeAddNode:
		x, err := decodeEntry(cc.Context)
		e, ok := x.(MemberEntry)
		if err != nil || !ok || e.Addr == "" || proc.ID(e.Node) != s.members.next || cc.NodeID != raftID(proc.ID(e.Node)) || s.members.has(e.Addr) {
			return false
		}
		s.members.addrs[proc.ID(e.Node)] = e.Addr
		s.members.next++
	case raftpb.ConfChangeRemoveNode:
		id := procID(cc.NodeID)
		if _, ok := s.members.addrs[id]; !ok || cc.NodeID == 0 || len(s.members.addrs) == 1 {
			return false
		}
		delete(s.members.addrs, id)
	default:
		return false
	}
	return true
}

// wasRemoved reports whether node id was a member and was removed: ids
// are given in order and never again.
func (s *State) wasRemoved(id proc.ID) bool {
	_, in := s.members.addrs[id]
	return !in && id < s.members.next
}

// Members is the configuration as applied so far, by id.
func (s *State) Members() []Member { return s.members.list() }

// Members is the configuration this node has applied, by id.
func (n *Node) Members() []Member { return n.sm.Members() }

// Removed reports whether this node has applied its own removal: it
// serves nothing more and proposes nothing.
func (n *Node) Removed() bool { return n.removed }

// ProposeAdd proposes, on the leader, a new member at addr; it returns
// the id it will have once the change is applied (Members has it then).
// The id is the next never given: a node restarted at a new address is a
// remove and an add, under a new id. It is refused if the live members
// (the voters the leader heard from within a lease) would not be a
// majority of the configuration with the new one, which is not live
// before it starts.
func (n *Node) ProposeAdd(now proc.Time, addr string) (proc.ID, error) {
	n.Tick(now)
	if err := n.canChange(); err != nil {
		return 0, err
	}
	if addr == "" {
		return 0, ErrBadAddress
	}
	if n.sm.members.has(addr) {
		return 0, fmt.Errorf("%w: %s", ErrMemberExists, addr)
	}
	// The new member is not live before it starts: the live members
	// must be a majority of the configuration with it, or the cluster
	// would have no view until it starts.
	if alive := n.liveMembers(-1); 2*alive <= len(n.sm.members.addrs)+1 {
		return 0, fmt.Errorf("%w: %d of the %d members with the new one would be live", ErrNoMajority, alive, len(n.sm.members.addrs)+1)
	}
	id := n.sm.members.next
	if n.cfg.MaxNodes > 0 && int(id) >= n.cfg.MaxNodes {
		return 0, fmt.Errorf("%w: node ids are below %d, and %d were given", ErrTooMany, n.cfg.MaxNodes, id)
	}
	ctx := encodeEntry(MemberEntry{Node: int32(id), Addr: addr})
	if err := n.rn.ProposeConfChange(raftpb.ConfChange{Type: raftpb.ConfChangeAddNode, NodeID: raftID(id), Context: ctx}); err != nil {
		return 0, fmt.Errorf("%w: %v", ErrNotLeader, err)
	}
	n.confProposed = true
	return id, nil
}

// ProposeRemove proposes, on the leader, that member id leave the
// configuration. It is refused if the members left would not hold a
// live majority of the new configuration (the voters the leader heard
// from within a lease, itself included), or if id is the last member.
// The views that follow leave id out, and wait for its lease unless its
// run left cleanly (Leave).
func (n *Node) ProposeRemove(now proc.Time, id proc.ID) error {
	n.Tick(now)
	if err := n.canChange(); err != nil {
		return err
	}
	if _, ok := n.sm.members.addrs[id]; !ok {
		return fmt.Errorf("%w: node %d", ErrNotMember, id)
	}
	if len(n.sm.members.addrs) == 1 {
		return ErrLastMember
	}
	alive := n.liveMembers(id)
	if rest := len(n.sm.members.addrs) - 1; 2*alive <= rest {
		return fmt.Errorf("%w: %d of the %d left are live", ErrNoMajority, alive, rest)
	}
	if err := n.rn.ProposeConfChange(raftpb.ConfChange{Type: raftpb.ConfChangeRemoveNode, NodeID: raftID(id)}); err != nil {
		return fmt.Errorf("%w: %v", ErrNotLeader, err)
	}
	n.confProposed = true
	return nil
}

// liveMembers counts the members but one (but) the leader heard from within a
// lease since it leads, itself included.
func (n *Node) liveMembers(but proc.ID) int {
	alive := 0
	for m := range n.sm.members.addrs { // any order: it counts
		if m != but && n.heardLately(m) {
			alive++
		}
	}
	return alive
}

// alive reports whether the leader heard from member p within a lease
// (itself always); a new leader counts every member alive for its first
// lease, so that its first view does not leave out members it has not
// heard from yet.
func (n *Node) alive(p proc.ID) bool {
	return p == n.cfg.Self || n.ticks-max(n.heard[p], n.leadFrom) <= LeaseTicks
}

// heardLately reports whether the leader heard from member p within a
// lease and since it leads (itself always): the evidence a membership
// change asks for. A member a new leader has not heard from yet is not
// counted live: counted, as alive counts it, it let a remove through
// right after the old leader died that left the new one alone with the
// dead one (TestRemoveRightAfterAnElection). Live followers answer a new
// leader's first heartbeats within a tick or two.
func (n *Node) heardLately(p proc.ID) bool {
	h, ok := n.heard[p]
	return p == n.cfg.Self || ok && h >= n.leadFrom && n.ticks-h <= LeaseTicks
}

// canChange refuses a change off the leader, or while another is not
// applied yet: Raft allows one at a time (it would drop the second
// silently), and the next id is only known once the last add applied.
func (n *Node) canChange() error {
	st := n.rn.Status()
	if st.RaftState != raft.StateLeader {
		return ErrNotLeader
	}
	if n.removed {
		return ErrNotMember
	}
	last, err := n.storage.LastIndex()
	if err != nil {
		return err
	}
	if st.Applied < last {
		ents, err := n.storage.Entries(st.Applied+1, last+1, math.MaxUint64)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if e.Type != raftpb.EntryNormal {
				return ErrConfBusy
			}
		}
	}
	if n.confProposed {
		return ErrConfBusy // proposed since the last Next: not in storage yet
	}
	return nil
}

// applyConfEntry applies a committed configuration change: to the
// membership, then to Raft (an invalid one as no change). It reports
// whether the membership changed.
func (n *Node) applyConfEntry(e raftpb.Entry) (bool, error) {
	if e.Type != raftpb.EntryConfChange {
		return false, fmt.Errorf("control: entry %d: unexpected %s", e.Index, e.Type)
	}
	var cc raftpb.ConfChange
	if err := cc.Unmarshal(e.Data); err != nil {
		return false, fmt.Errorf("control: entry %d: %w", e.Index, err)
	}
	st := n.rn.Status()
	ok := n.sm.applyConf(cc)
	if !ok {
		cc.NodeID = raft.None // Raft skips a change of no node
	}
	if pr, tracked := st.Progress[cc.NodeID]; ok && cc.Type == raftpb.ConfChangeRemoveNode && st.RaftState == raft.StateLeader && tracked && procID(cc.NodeID) != n.cfg.Self {
		// Once the leader applies the removal it sends the node nothing
		// more, so the node may never learn the entry that removes it
		// is committed, and would wait on unserved. The leader tells it
		// for a while, as a heartbeat carries it: up to what the node
		// has of the log.
		n.farewells[cc.NodeID] = farewell{commit: min(pr.Match, st.Commit), until: n.ticks + ElectionTicks}
	}
	n.conf = *n.rn.ApplyConfChange(cc)
	n.sm.applied = e.Index
	if ok && cc.Type == raftpb.ConfChangeRemoveNode && procID(cc.NodeID) == n.cfg.Self {
		n.removed = true
	}
	return ok, nil
}

// farewell is a removed node the leader tells its removal is committed,
// until a tick: a heartbeat with commit (at most what the node has of
// the log, as Raft's own heartbeats).
type farewell struct {
	commit uint64
	until  int64
}

// sayFarewells queues a heartbeat to each removed node still to be told,
// on the leader.
func (n *Node) sayFarewells() {
	st := n.rn.BasicStatus()
	for _, id := range slices.Sorted(maps.Keys(n.farewells)) { // in one order: they leave in it
		f := n.farewells[id]
		if st.RaftState != raft.StateLeader || n.ticks > f.until {
			delete(n.farewells, id)
			continue
		}
		n.extra = append(n.extra, raftpb.Message{Type: raftpb.MsgHeartbeat, To: id, From: raftID(n.cfg.Self), Term: st.Term, Commit: f.commit})
	}
}
