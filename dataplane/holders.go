package dataplane

import (
	"cmp"
	"slices"

	"github.com/allot-dev/allot/proc"
)

// holders answers c, an OpHolders: the grants of session c.Session held
// here that hold lock name c.Names[0], or semaphore c.Sem, as the
// service's Holders (holders.go) answers a call that names a session:
// read from the session table (its own sessions and those it adopted),
// held only (answered, not given back: a request still waiting holds
// nothing), the oldest first. A node that does not have the session
// answers none, not SESSION_NOT_HERE, as the service's: the client asks
// the node it found serving the session (client/'s reclaim, after
// rideOver). Nothing is recorded: it changes nothing.
func (n *Node) holders(o *Out, from proc.ID, c Call) {
	r := Reply{Req: c.Req, Code: OK, Session: c.Session}
	if s := n.sessions[c.Session]; s != nil {
		for _, g := range s.grants.Held() {
			if h, ok := g.holder(c); ok {
				r.Holders = append(r.Holders, h)
			}
		}
	}
	// In the order they were granted: by token, as the service's by the
	// time of its grant (a regrant keeps its token), then by id.
	slices.SortFunc(r.Holders, func(a, b Holder) int {
		return cmp.Or(cmp.Compare(a.Epoch, b.Epoch), cmp.Compare(a.Counter, b.Counter), cmp.Compare(a.Grant, b.Grant))
	})
	n.reply(o, from, r)
}

// holder is g as a holder of what c asks of (the service's grant.holder):
// a lock's grant that holds c.Names[0], or a semaphore's grant of c.Sem
// (whatever its units: the service matches the semaphore's name).
func (g *grant) holder(c Call) (Holder, bool) {
	switch {
	case g.key.Quota:
		return Holder{}, false
	case len(c.Names) == 0 && (g.key.Lock() || g.key.Sem != c.Sem):
		return Holder{}, false
	case len(c.Names) > 0 && (!g.key.Lock() || !slices.Contains(g.res, proc.ResID(c.Names[0]))):
		return Holder{}, false
	}
	h := Holder{Grant: g.ID, Key: g.key, Epoch: g.epoch, Counter: g.counter}
	if g.key.Lock() {
		for _, r := range g.res {
			h.Names = append(h.Names, int32(r))
		}
	} else {
		h.Unit = g.tokenUnit
	}
	return h, true
}
