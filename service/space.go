package service

import (
	"errors"
	"strings"
	"sync"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/space"
)

// This file is where an instance's name meets the node: a name the link
// transport hands over (a peer's message, a placement) is parsed once
// into its space.Space, and the node finds and builds its instances by
// that typed value (package service/internal/space says why names are
// what they are).

// spaceNames are the space names the link transport handed over, each
// parsed once: space name -> parsed. The zero value has none.
type spaceNames struct{ m sync.Map }

// parsed is what a space name says: its instance, or why it names none.
type parsed struct {
	sp  space.Space
	err error
}

// parse returns the instance a space name of the link transport names,
// parsed on its first use: an instance of a view of this cluster's nodes.
func (s *spaceNames) parse(name string) (space.Space, error) {
	if x, ok := s.m.Load(name); ok {
		p := x.(parsed)
		return p.sp, p.err
	}
	// A view may name members added after the cluster file (ids up to
	// MaxNodes, which space.Parse holds it to): not only the file's.
	var p parsed
	p.sp, p.err = space.Parse(name)
	s.m.Store(name, p)
	return p.sp, p.err
}

// forget drops the names of the views before epoch (a malformed name
// stays: it is refused again without a parse).
func (s *spaceNames) forget(epoch uint64) {
	s.m.Range(func(k, v any) bool {
		if p := v.(parsed); p.err == nil && p.sp.View.Epoch < epoch {
			s.m.Delete(k)
		}
		return true
	})
}

// place is the transport's placement: which node hosts process id of a
// space. A name without a view (the transport asks of "" when it cuts a
// link) places on every node of the cluster file.
func (n *Node) place(name string, id proc.ID) (string, bool) {
	if id < 0 {
		return "", false
	}
	if name == ctlSpace || name == namesSpace {
		if int(id) >= MaxNodes {
			return "", false
		}
		return nodeName(int(id)), true
	}
	v := n.every
	if strings.Contains(name, "@") {
		sp, err := n.spaces.parse(name)
		if err != nil {
			return "", false
		}
		switch {
		case sp.Key.Kind == algo.Exclusive && int64(id) >= 3*lockRange:
			// Past the lock's users, managers and the subroutine's
			// helpers: a coordinator (central) or a lock per resource
			// (ordered, at 2·lockRange + the resource).
			return "", false
		case n.large(sp.Key) && id > lockRange:
			return "", false // past a large semaphore's users and owner
		}
		return nodeName(n.ownerOf(sp, id)), true
	}
	return nodeName(n.owner(v, v.Members.Len()*n.c.Slots, id)), true
}

// open builds the instance of a space a message came for, and in the
// lock's the process it is for, if not made yet.
func (n *Node) open(name string, id proc.ID) {
	sp, err := n.spaces.parse(name)
	var in *instance
	if err == nil {
		in, err = n.instance(sp)
	}
	if err == nil {
		in.ensure(id)
	}
	if err != nil && !errors.Is(err, errRetiredView) {
		n.log.Warn("link: message for an instance this node does not build", "instance", name, "err", err)
	}
}

// Errors of instances.
var (
	errSpace       = errors.New("not an instance of this cluster")
	errRetiredView = errors.New("an instance of a view this node has left")
)

// instance returns the instance of a space, building it on first use. An
// instance of a view older than this node's is not built again.
func (n *Node) instance(sp space.Space) (*instance, error) {
	// A view the control log has but this run did not adopt (it is not
	// in it: a restarted node's old run was) is never built either:
	// fresh processes would answer for state they never had.
	unknown := func(e, cur uint64) bool {
		return e <= n.ctl.newest.Load() && e != cur && e != n.ctl.member.Load()
	}
	return n.views.get(sp, unknown, func() (*instance, error) { return n.newInstance(sp) })
}
