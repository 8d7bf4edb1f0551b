package service

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/store"
	tgrpc "github.com/allot-dev/allot/transport/grpc"
)

// The membership of a running cluster is the control log's (package
// control: Raft configuration changes, each with the new member's id and
// address): Cluster.Nodes are the nodes it started with, ids 0..n-1, and
// a node added later has the next id never given. A node's links reach
// the members the log has, and follow it as it changes (setPeers).

// Errors of the membership.
var (
	// ErrStaleMembership: the node list a node was started with is not
	// the membership its log has (a node was added or removed since).
	ErrStaleMembership = errors.New("stale membership")
	// ErrRemoved: this node was removed from the cluster.
	ErrRemoved = errors.New("this node was removed from the cluster")
)

// nodeName is node k's name on the link transport.
func nodeName(k int) string { return strconv.Itoa(k) }

// MemberInfo is a member of the cluster as a node sees it.
type MemberInfo struct {
	ID     int    `json:"id"`
	Addr   string `json:"address"`
	Voter  bool   `json:"voter"`   // every member votes (no learners)
	InView bool   `json:"in_view"` // a member of the newest view
	Leader bool   `json:"leader"`  // the Raft leader, as this node knows
	// Rejoins counts the starts of the member the log has applied (0:
	// it never joined); lost.go.
	Rejoins uint64 `json:"rejoins"`
}

// membership is the node's part in the cluster's membership: the
// members the control log has, as this node applied it (read of its
// control host, a memberLog), and the links to them, which follow the
// log as members are added and removed (setPeers). Until New hands it
// the control host, it knows the cluster file's nodes only (want,
// byID).
type membership struct {
	// What the node is, fixed once New returns.
	self    int
	nodes   []string       // Cluster.Nodes: the addresses of a store older than addresses in the log
	told    map[int]string // Config.Peers: the members a joining node was told of
	via     []string       // Config.PeerAddrs: where to dial the members, by id (nil: their addresses)
	suspect time.Duration  // how long a link to a member that left stays
	log     *slog.Logger
	ctl     memberLog // set by New once the control host is made

	mu       sync.Mutex       // tr, peers, dropping
	tr       *tgrpc.Transport // the link transport (nil until link)
	peers    map[int]string   // the members linked to, by id: setPeers
	dropping map[int]bool     // peers no more members, whose link goes soon
	removed  chan struct{}    // closed once this node applied its own removal
}

// memberLog is what the membership reads of the control host: the
// members its log has, as this node applied it; and the same with what
// the node knows of each as of that entry (Members: an address "" where
// a store older than addresses in the log has none), and the newest
// view's epoch.
type memberLog interface {
	members() []control.Member
	memberInfo() ([]MemberInfo, uint64)
}

func newMembership(cfg Config, log *slog.Logger) membership {
	return membership{
		self: cfg.Self, nodes: cfg.Cluster.Nodes, told: cfg.Peers, via: cfg.PeerAddrs, suspect: cfg.Suspect, log: log,
		peers: map[int]string{}, dropping: map[int]bool{}, removed: make(chan struct{}),
	}
}

// addrOf is member m's address: the log's, or for a store older than
// addresses in the log, the cluster's node list.
func (ms *membership) addrOf(m control.Member) string {
	if m.Addr == "" && int(m.ID) < len(ms.nodes) {
		return ms.nodes[m.ID]
	}
	return m.Addr
}

// member is member id as this node's log has it.
func (ms *membership) member(id int) (control.Member, bool) {
	for _, m := range ms.ctl.members() {
		if int(m.ID) == id {
			return m, true
		}
	}
	return control.Member{}, false
}

// addr is member id's address as this node's log has it ("" if it is
// not a member).
func (ms *membership) addr(id int) string {
	if m, ok := ms.member(id); ok {
		return ms.addrOf(m)
	}
	return ""
}

// list is the membership as this node has applied the log, by id, and
// the newest view's epoch.
func (ms *membership) list() ([]MemberInfo, uint64) {
	out, epoch := ms.ctl.memberInfo()
	for i, m := range out {
		out[i].Addr = ms.addrOf(control.Member{ID: proc.ID(m.ID), Addr: m.Addr})
	}
	return out, epoch
}

// check refuses a node list (Cluster.Nodes, as the node was started
// with) that is not the membership in the log: a list from before a
// member was added or removed would make the node dial the wrong peers
// and take a stale view of who votes.
func (ms *membership) check() error {
	log := map[int]string{}
	for _, m := range ms.ctl.members() {
		log[int(m.ID)] = ms.addrOf(m)
	}
	given := map[int]string{}
	for k, a := range ms.nodes {
		given[k] = a
	}
	if maps.Equal(log, given) {
		return nil
	}
	return fmt.Errorf("%w: node %d was started with the nodes %s, but its log has the members %s; restart it on its data dir without a node list (allot serve --data-dir DIR)",
		ErrStaleMembership, ms.self, strings.Join(ms.nodes, ","), listMembers(log))
}

// listMembers writes members as ID=ADDR, by id.
func listMembers(ms map[int]string) string {
	var b []string
	for _, id := range slices.Sorted(maps.Keys(ms)) {
		b = append(b, fmt.Sprintf("%d=%s", id, ms[id]))
	}
	return strings.Join(b, " ")
}

// want are the nodes this node links to, by id: the members of the log
// but itself, and while the log does not have it yet (a node that has
// just joined), the members the cluster told it of.
func (ms *membership) want(members []control.Member) map[int]string {
	want := map[int]string{}
	self := false
	for _, m := range members {
		want[int(m.ID)] = ms.addrOf(m)
		self = self || int(m.ID) == ms.self
	}
	if !self {
		for id, a := range ms.told {
			if _, ok := want[id]; !ok {
				want[id] = a
			}
		}
	}
	delete(want, ms.self)
	for k := range want {
		if k < len(ms.via) {
			want[k] = ms.via[k]
		}
	}
	return want
}

// link makes the node's link transport of cfg (its Node and Peers
// filled in here), linked to the members the log has; the links follow
// the log from then on.
func (ms *membership) link(cfg tgrpc.Config) (*tgrpc.Transport, error) {
	cfg.Node, cfg.Peers = nodeName(ms.self), map[string]string{}
	ms.mu.Lock()
	for k, addr := range ms.want(ms.ctl.members()) {
		cfg.Peers[nodeName(k)] = addr
		ms.peers[k] = addr
	}
	ms.mu.Unlock()
	tr, err := tgrpc.New(cfg)
	if err != nil {
		return nil, err
	}
	ms.mu.Lock()
	ms.tr = tr
	ms.mu.Unlock()
	// The membership may have changed since it was read: the control
	// host's setPeers did nothing without the transport.
	ms.setPeers(ms.ctl.members())
	return tr, nil
}

// transport is the link transport (nil before link).
func (ms *membership) transport() *tgrpc.Transport {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.tr
}

// setPeers makes the links follow the membership members.
func (ms *membership) setPeers(members []control.Member) {
	want := ms.want(members)
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.tr == nil {
		return // link links to the members then
	}
	for id := range ms.peers {
		if _, ok := want[id]; !ok && !ms.dropping[id] {
			// The link goes a lease later: the leader tells the node
			// meanwhile that its removal is committed (package
			// control), over it. Ids are never given again: nothing
			// else will want it.
			ms.dropping[id] = true
			time.AfterFunc(ms.suspect, func() {
				ms.mu.Lock()
				defer ms.mu.Unlock()
				ms.tr.RemovePeer(nodeName(id))
				delete(ms.peers, id)
				delete(ms.dropping, id)
			})
			ms.log.Info("a member left: its link goes in a lease", "member", id)
		}
	}
	for id, a := range want {
		if _, ok := ms.peers[id]; ok {
			continue
		}
		if err := ms.tr.AddPeer(nodeName(id), a); err != nil {
			ms.log.Warn("link to a new member", "member", id, "addr", a, "err", err)
			continue
		}
		ms.peers[id] = a
		ms.log.Info("a member joined: linking to it", "member", id, "addr", a)
	}
}

// peerAddr is the address member k is linked to at.
func (ms *membership) peerAddr(k int) (string, bool) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	a, ok := ms.peers[k]
	return a, ok
}

// removedSelf closes removed: the control host applied this node's own
// removal (once).
func (ms *membership) removedSelf() { close(ms.removed) }

// selfAddr is this node's address as the membership has it ("" if the
// log does not have it yet: a node that has just joined is told it by
// the cluster).
func (ms *membership) selfAddr() string {
	if m, ok := ms.member(ms.self); ok {
		return ms.addrOf(m)
	}
	return ms.told[ms.self]
}

// links is the node's link counts and its links to the members it links
// to, by id; false before it has its transport.
func (ms *membership) links() (tgrpc.LinkStats, []peerLink, bool) {
	ms.mu.Lock()
	tr, ids := ms.tr, slices.Sorted(maps.Keys(ms.peers))
	ms.mu.Unlock()
	if tr == nil {
		return tgrpc.LinkStats{}, nil, false
	}
	var ps []peerLink
	for _, k := range ids {
		if p, ok := tr.Peer(nodeName(k)); ok {
			ps = append(ps, peerLink{k, p})
		}
	}
	return tr.Stats(), ps, true
}

// byID is the members' addresses indexed by id ("" for an id that is not
// a member's: one removed).
func (ms *membership) byID() []string {
	if ms.ctl == nil {
		return ms.nodes
	}
	members, _ := ms.list()
	var out []string
	for _, m := range members {
		for len(out) <= m.ID {
			out = append(out, "")
		}
		out[m.ID] = m.Addr
	}
	return out
}

// Members is the membership as this node has applied the log, by id, and
// the newest view's epoch.
func (n *Node) Members() ([]MemberInfo, uint64) { return n.members.list() }

// Removed is closed once this node has applied its own removal from the
// cluster: it serves nothing more, and its process may end.
func (n *Node) Removed() <-chan struct{} { return n.members.removed }

// Addr is this node's address as the membership has it ("" if the log
// does not have it yet: a node that has just joined is told it by the
// cluster).
func (n *Node) Addr() string { return n.members.selfAddr() }

// FromDataDir is the cluster description and the node id kept in the
// store of a data directory: a node restarted on its data needs nothing
// else (store.ErrNoStore: the directory has none).
func FromDataDir(dir string) (Cluster, int, error) {
	id, err := store.Peek(dir)
	if err != nil {
		return Cluster{}, 0, err
	}
	var c Cluster
	if len(id.Spec) == 0 {
		return c, 0, fmt.Errorf("%w: the store in %s is older than the cluster description it keeps: start the node with its node list once", ErrCluster, dir)
	}
	if err := json.Unmarshal(id.Spec, &c); err != nil {
		return c, 0, fmt.Errorf("%w: the cluster description in %s: %v", store.ErrCorrupt, dir, err)
	}
	if !slices.Equal(c.Nodes, id.Nodes) {
		return c, 0, fmt.Errorf("%w: the cluster description in %s does not match its store", store.ErrCorrupt, dir)
	}
	return c, id.Node, nil
}
