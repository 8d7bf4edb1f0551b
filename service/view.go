package service

import (
	"sync"

	"github.com/allot-dev/allot/algo"
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

// get returns the instance of sp, built by build on first use. An
// instance of a view behind this node's, or one unknown says the node
// never adopted (given the epoch of the node's view, 0 for none), is
// not built: errRetiredView. Built under the lock, so that no instance
// of a view adopt has left is built after its sweep.
func (vs *views) get(sp space.Space, unknown func(epoch, cur uint64) bool, build func() (*instance, error)) (*instance, error) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if in := vs.instances[sp]; in != nil {
		return in, nil
	}
	var cur uint64
	if vs.cur != nil {
		cur = vs.cur.v.Epoch
	}
	if e := sp.View.Epoch; vs.behindLocked(e) || unknown(e, cur) {
		return nil, errRetiredView
	}
	in, err := build()
	if err != nil {
		return nil, err
	}
	vs.instances[sp] = in
	return in, nil
}

// built reports whether the node hosts the instance of sp.
func (vs *views) built(sp space.Space) bool {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	return vs.instances[sp] != nil
}

// answerIn runs answer, which takes a grant's answer of view st, only
// while st is still the node's view and still (the caller's word that
// the node serves it) holds, under the views' lock: adopt reads the held
// grants after it moves the view, so the grant is either seen held there
// or sees the move here. moved: the view moved (answer did not run).
func (vs *views) answerIn(st *epochState, still bool, answer func() bool) (moved, ok bool) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if vs.cur != st || !still {
		return true, false
	}
	return false, answer()
}

// inView runs f on each instance of the node's view (not of older views
// still closing, nor of newer ones building), under the views' lock;
// false when the node is in no view.
func (vs *views) inView(f func(space.Space, *instance)) bool {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if vs.cur == nil {
		return false
	}
	for sp, in := range vs.instances {
		if sp.View == vs.cur.v {
			f(sp, in)
		}
	}
	return true
}

// snapshot is the node's view (nil: none) and the names of the
// instances it hosts, for its status.
func (vs *views) snapshot() (cur *epochState, names []string) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	for _, in := range vs.instances {
		names = append(names, in.name)
	}
	return vs.cur, names
}

// closeAll closes every instance, each then handed to closed, under the
// views' lock: at shutdown, none is built meanwhile.
func (vs *views) closeAll(closed func(*instance)) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	for _, in := range vs.instances {
		in.close()
		closed(in)
	}
}

// retire notes the spaces of the instances retired at the last adopt,
// and gives back those noted at the one before (refresh.go: forget).
func (vs *views) retire(spaces []string) (before []string) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	before, vs.retired = vs.retired, spaces
	return before
}

// semaphores counts the semaphore instances of view v on this node: its
// semaphores in use (Config.MaxSemaphores), idle ones included until a
// refresh collects them.
func (vs *views) semaphores(v space.View) int {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	k := 0
	for sp := range vs.instances {
		if sp.View == v && sp.Key.Kind == algo.Pool {
			k++
		}
	}
	return k
}

// addSent adds the messages of the node's instances to byKind (a
// sentCounter: metrics.go).
func (vs *views) addSent(byKind map[string]int64) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	for _, in := range vs.instances {
		for k, v := range in.h.Stats().ByKind {
			byKind[k] += v
		}
	}
}
