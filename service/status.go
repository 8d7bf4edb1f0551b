package service

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/allot-dev/allot/algo"
)

// This file is the node's read-only status endpoint (/status, beside
// /metrics): what the node knows now, for allot ui --cluster. It reads the
// node's state under the node's locks and changes nothing.

// Status is one node's view of the cluster at one moment.
type Status struct {
	Node      int              `json:"node"`
	Nodes     []string         `json:"nodes"` // the members' addresses by id ("": a removed id)
	Lock      string           `json:"lock"`
	Semaphore string           `json:"semaphore"`
	Quota     string           `json:"quota,omitempty"`
	Epoch     uint64           `json:"epoch"` // the view this node is in (0: none yet)
	Live      []int            `json:"live"`  // the view's members
	Fenced    bool             `json:"fenced"`
	Draining  bool             `json:"draining"`
	Sessions  []SessionStatus  `json:"sessions"`
	Quotas    []QuotaStatus    `json:"quotas"`
	Instances []InstanceStatus `json:"instances"`
}

// SessionStatus is one session of the node and its grants.
type SessionStatus struct {
	ID     uint64        `json:"id,string"` // a string: ids pass 2^53, JavaScript's exact integers
	TTLms  int64         `json:"ttl_ms"`
	Grants []GrantStatus `json:"grants"`
}

// GrantStatus is one Lock or Acquire of a session: held (with its token)
// or waiting.
type GrantStatus struct {
	ID  uint64 `json:"id,string"`
	Key string `json:"key"` // "lock" or "sem/NAME/R"
	// Resources are the lock's names, as lock keys ("lock/" + name,
	// Cluster.LockKey), sorted.
	Resources []string `json:"resources,omitempty"`
	Held      bool     `json:"held"`
	// The token and unit of a held grant.
	Epoch   uint64 `json:"epoch,omitempty"`
	Counter uint64 `json:"counter,omitempty"`
	Unit    *int32 `json:"unit,omitempty"`
}

// QuotaStatus is a quota's permits issued by this node: Issued[i] is
// the count of node i, and only this node's own (persisted) count is
// filled in; a reader merges the nodes' answers.
type QuotaStatus struct {
	Name   string   `json:"name"`
	Budget int      `json:"budget"`
	Waste  int      `json:"waste"`
	Issued []uint64 `json:"issued"`
}

// InstanceStatus is one algorithm instance the node hosts (a space: an
// instance key in one view).
type InstanceStatus struct {
	Space string `json:"space"`
}

// Status returns what the node knows now.
func (n *Node) Status() Status {
	st := Status{Node: n.self, Nodes: n.members.byID(), Lock: n.c.Lock, Semaphore: n.c.Semaphore, Quota: n.c.Quota,
		Draining: n.draining.Load(), Sessions: []SessionStatus{}, Quotas: []QuotaStatus{}, Instances: []InstanceStatus{}}
	var counts []uint64
	if n.ctl != nil {
		counts = n.ctl.counts()
	}
	cur, names := n.views.snapshot()
	st.Fenced = true
	if cur != nil {
		st.Epoch, st.Live = cur.v.Epoch, cur.v.Members.List()
		st.Fenced = n.ctl == nil || !n.ctl.serving(cur.v.Epoch)
	}
	for _, name := range names {
		st.Instances = append(st.Instances, InstanceStatus{Space: name})
	}
	slices.SortFunc(st.Instances, func(a, b InstanceStatus) int { return cmp.Compare(a.Space, b.Space) })
	for _, s := range n.sessions.list() {
		ss := SessionStatus{ID: s.id, TTLms: s.ttl.Milliseconds(), Grants: []GrantStatus{}}
		s.mu.Lock()
		for _, g := range s.grants.List() {
			gs := GrantStatus{ID: g.ID, Key: g.key.String()}
			gs.Resources = g.keys()
			if g.Held() {
				// counter and unit are written before it is answered
				// (acquire), so they are read only once it is.
				u := g.tokenUnit // the unit of the view of its epoch
				gs.Held, gs.Epoch, gs.Counter = true, g.epoch, g.counter
				if g.key.Kind != algo.Exclusive {
					gs.Unit = &u
				}
			}
			ss.Grants = append(ss.Grants, gs) // in the order of their ids (List)
		}
		s.mu.Unlock()
		st.Sessions = append(st.Sessions, ss)
	}
	slices.SortFunc(st.Sessions, func(a, b SessionStatus) int { return cmp.Compare(a.ID, b.ID) })
	for name, q := range n.c.Quotas {
		issued := make([]uint64, max(len(st.Nodes), n.self+1))
		if n.ctl != nil {
			if i := slices.Index(n.ctl.quotas, name); i >= 0 && i < len(counts) {
				issued[n.self] = counts[i]
			}
		}
		st.Quotas = append(st.Quotas, QuotaStatus{Name: name, Budget: q.Budget, Waste: q.Waste, Issued: issued})
	}
	slices.SortFunc(st.Quotas, func(a, b QuotaStatus) int { return cmp.Compare(a.Name, b.Name) })
	return st
}

// StatusHandler serves Status as JSON (GET /status).
func (n *Node) StatusHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(n.Status())
	})
}
