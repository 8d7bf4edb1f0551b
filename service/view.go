package service

import (
	"sync"

	"github.com/allot-dev/allot/service/internal/space"
)

// views is the view this node is in and the instances it hosts, under one
// lock of their own: they change together. An instance is built only while
// its view is not behind the node's (instance), and adopting a view stops
// the instances of older ones (adopt): under one lock, no instance of a
// view the node has left is built after the sweep that would stop it.
// Sessions are not under this lock (sessionTable): a session's lookup never
// waits for an instance being built.
type views struct {
	mu        sync.Mutex
	cur       *epochState // the view this node is in (nil: none)
	adopted   uint64      // the largest epoch this node has adopted (never built again below)
	fenced    uint64      // the largest epoch this node stopped serving in (never built again, nor any before)
	instances map[space.Space]*instance
	retired   []string // the spaces of the instances retired at the last adopt (refresh.go: forget)
}

// current is the view this node is in (nil: none).
func (vs *views) current() *epochState {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	return vs.cur
}

// behind reports whether epoch is before a view this node has adopted:
// one it never serves again.
func (vs *views) behind(epoch uint64) bool {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	return vs.behindLocked(epoch)
}

// behindLocked is behind with vs.mu held. A view the node was fenced in
// counts too: the node's next view is a newer one (its run was left out,
// or it rejoins as a new run), and an instance of the fenced view built
// again would be fresh processes answering for state they never had.
func (vs *views) behindLocked(epoch uint64) bool {
	return epoch < vs.adopted || epoch <= vs.fenced
}

// adopt makes st the node's view and takes out the instances of older
// views, for the caller to retire; old is the view st replaces.
func (vs *views) adopt(st *epochState) (old *epochState, stop []*instance) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	old = vs.cur
	vs.adopted = max(vs.adopted, st.v.Epoch)
	vs.cur = st
	kept := make(map[space.Space]*instance, len(vs.instances))
	for sp, in := range vs.instances {
		if in.view.Epoch < st.v.Epoch {
			stop = append(stop, in)
		} else {
			kept[sp] = in
		}
	}
	// Afresh, not deleted from: a Go map never shrinks, and a refresh
	// is to give the memory of the instances it retires back.
	vs.instances = kept
	return old, stop
}

// fence leaves the node in no view, fenced in epoch, and takes out every
// instance (each runs in a view), for the caller to retire; cur is the
// view it leaves.
func (vs *views) fence(epoch uint64) (cur *epochState, stop []*instance) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	cur = vs.cur
	vs.cur = nil
	vs.fenced = max(vs.fenced, epoch)
	if cur != nil {
		vs.fenced = max(vs.fenced, cur.v.Epoch)
	}
	for _, in := range vs.instances {
		stop = append(stop, in)
	}
	clear(vs.instances)
	return cur, stop
}
