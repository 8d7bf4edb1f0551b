package service

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/service/store"
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

// addrOf is member m's address: the log's, or for a store older than
// addresses in the log, the cluster's node list.
func (n *Node) addrOf(m control.Member) string {
	if m.Addr == "" && int(m.ID) < len(n.c.Nodes) {
		return n.c.Nodes[m.ID]
	}
	return m.Addr
}

// memberAddr is member id's address as this node's log has it ("" if
// it is not a member).
func (n *Node) memberAddr(id int) string {
	n.ctl.mu.Lock()
	defer n.ctl.mu.Unlock()
	for _, m := range n.ctl.node.Members() {
		if int(m.ID) == id {
			return n.addrOf(m)
		}
	}
	return ""
}

// Members is the membership as this node has applied the log, by id, and
// the newest view's epoch.
func (n *Node) Members() ([]MemberInfo, uint64) {
	h := n.ctl
	h.mu.Lock()
	ms, st, lead := h.node.Members(), h.node.State(), h.node.Leader()
	v := st.View()
	var out []MemberInfo
	for _, m := range ms {
		rejoins, _ := st.Gen(m.ID, [2]uint64{})
		out = append(out, MemberInfo{ID: int(m.ID), Addr: n.addrOf(m), Voter: true, InView: slices.Contains(v.Members, m.ID), Leader: m.ID == lead, Rejoins: rejoins})
	}
	h.mu.Unlock()
	return out, v.Epoch
}

// checkMembership refuses a node list (Cluster.Nodes, as the node was
// started with) that is not the membership in the log: a list from
// before a member was added or removed would make the node dial the
// wrong peers and take a stale view of who votes.
func (n *Node) checkMembership(ms []control.Member) error {
	log := map[int]string{}
	for _, m := range ms {
		log[int(m.ID)] = n.addrOf(m)
	}
	given := map[int]string{}
	for k, a := range n.c.Nodes {
		given[k] = a
	}
	if maps.Equal(log, given) {
		return nil
	}
	return fmt.Errorf("%w: node %d was started with the nodes %s, but its log has the members %s; restart it on its data dir without a node list (allot serve --data-dir DIR)",
		ErrStaleMembership, n.self, strings.Join(n.c.Nodes, ","), listMembers(log))
}

// listMembers writes members as ID=ADDR, by id.
func listMembers(ms map[int]string) string {
	var b []string
	for _, id := range slices.Sorted(maps.Keys(ms)) {
		b = append(b, fmt.Sprintf("%d=%s", id, ms[id]))
	}
	return strings.Join(b, " ")
}

// wantPeers are the nodes this node links to, by id: the members of the
// log but itself, and while the log does not have it yet (a node that
// has just joined), the members the cluster told it of.
func (n *Node) wantPeers(ms []control.Member) map[int]string {
	want := map[int]string{}
	self := false
	for _, m := range ms {
		want[int(m.ID)] = n.addrOf(m)
		self = self || int(m.ID) == n.self
	}
	if !self {
		for id, a := range n.cfg.Peers {
			if _, ok := want[id]; !ok {
				want[id] = a
			}
		}
	}
	delete(want, n.self)
	for k := range want {
		if k < len(n.cfg.PeerAddrs) {
			want[k] = n.cfg.PeerAddrs[k]
		}
	}
	return want
}

// setPeers makes the links follow the membership ms.
func (n *Node) setPeers(ms []control.Member) {
	want := n.wantPeers(ms)
	n.pmu.Lock()
	defer n.pmu.Unlock()
	if n.tr == nil {
		return // Register links to the members then
	}
	for id := range n.peers {
		if _, ok := want[id]; !ok && !n.dropping[id] {
			// The link goes a lease later: the leader tells the node
			// meanwhile that its removal is committed (package
			// control), over it. Ids are never given again: nothing
			// else will want it.
			n.dropping[id] = true
			time.AfterFunc(n.cfg.Suspect, func() {
				n.pmu.Lock()
				defer n.pmu.Unlock()
				n.tr.RemovePeer(nodeName(id))
				delete(n.peers, id)
				delete(n.dropping, id)
			})
			n.log.Info("a member left: its link goes in a lease", "member", id)
		}
	}
	for id, a := range want {
		if _, ok := n.peers[id]; ok {
			continue
		}
		if err := n.tr.AddPeer(nodeName(id), a); err != nil {
			n.log.Warn("link to a new member", "member", id, "addr", a, "err", err)
			continue
		}
		n.peers[id] = a
		n.log.Info("a member joined: linking to it", "member", id, "addr", a)
	}
}

// Removed is closed once this node has applied its own removal from the
// cluster: it serves nothing more, and its process may end.
func (n *Node) Removed() <-chan struct{} { return n.removed }

// removedSelf closes Removed: the control host applied this node's own
// removal (once).
func (n *Node) removedSelf() { close(n.removed) }

// Addr is this node's address as the membership has it ("" if the log
// does not have it yet: a node that has just joined is told it by the
// cluster).
func (n *Node) Addr() string {
	n.ctl.mu.Lock()
	ms := n.ctl.node.Members()
	n.ctl.mu.Unlock()
	for _, m := range ms {
		if int(m.ID) == n.self {
			return n.addrOf(m)
		}
	}
	return n.cfg.Peers[n.self]
}

// linked is the ids this node links to now.
func (n *Node) linked() []int {
	n.pmu.Lock()
	defer n.pmu.Unlock()
	return slices.Sorted(maps.Keys(n.peers))
}

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

// nodesByID is the members' addresses indexed by id ("" for an id that
// is not a member's: one removed).
func (n *Node) nodesByID() []string {
	if n.ctl == nil {
		return n.c.Nodes
	}
	ms, _ := n.Members()
	var out []string
	for _, m := range ms {
		for len(out) <= m.ID {
			out = append(out, "")
		}
		out[m.ID] = m.Addr
	}
	return out
}
