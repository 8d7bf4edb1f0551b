package service

import (
	"cmp"
	"context"
	"slices"

	"github.com/allot-dev/allot/algo"
	pb "github.com/allot-dev/allot/api/allot/v1"
)

// Holders implements the Allot service: the grants that hold a lock's
// or a semaphore's name among the sessions this node serves (its own and
// those it adopted), read from the session table. The node knows no
// other node's sessions: a client asks every node (client.Holders).
func (n *Node) Holders(_ context.Context, r *pb.HoldersRequest) (*pb.HoldersResponse, error) {
	what := "lock"
	if r.Semaphore {
		what = "semaphore"
	}
	if err := checkName("name", what, r.Name, r.Semaphore); err != nil {
		return nil, err
	}
	var sessions []*session
	if r.Session != 0 {
		if s := n.sessions.get(r.Session); s != nil {
			sessions = append(sessions, s)
		}
	} else {
		sessions = n.sessions.list()
	}
	out := &pb.HoldersResponse{}
	for _, s := range sessions {
		s.mu.Lock()
		for _, g := range s.grants.List() {
			if h := g.holder(s.id, r.Name, r.Semaphore); h != nil {
				out.Holders = append(out.Holders, h)
			}
		}
		s.mu.Unlock()
	}
	// In the order they were granted: the oldest holder first.
	slices.SortFunc(out.Holders, func(a, b *pb.Holder) int {
		return cmp.Or(cmp.Compare(a.SinceUnixMs, b.SinceUnixMs), cmp.Compare(a.Grant, b.Grant))
	})
	return out, nil
}

// holder is g as a holder of name (a semaphore's if semaphore) for
// session sid, nil if g does not hold it (another name, or not held:
// waiting still, or given back).
func (g *grant) holder(sid uint64, name string, semaphore bool) *pb.Holder {
	switch {
	case semaphore && (g.key.Kind != algo.Pool || g.key.Name != name):
		return nil
	case !semaphore && (g.key.Kind != algo.Exclusive || !slices.Contains(g.names, name)):
		return nil
	}
	if !g.Held() {
		return nil
	}
	h := &pb.Holder{Session: sid, Grant: g.ID, SinceUnixMs: g.since.UnixMilli(), Token: &pb.Token{Resource: name, Epoch: g.epoch, Counter: g.counter}}
	if semaphore {
		h.Unit = g.tokenUnit
		h.Token.Resource = unitKey(g.key, g.tokenUnit, g.epoch)
	} else {
		h.Resources = slices.Compact(slices.Sorted(slices.Values(g.names)))
	}
	return h
}
