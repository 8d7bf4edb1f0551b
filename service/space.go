package service

import (
	"errors"
	"fmt"
	"strings"

	"github.com/allot-dev/allot/proc"
)

// spaceInfo is what a space name says.
type spaceInfo struct {
	key     string
	v       view
	epoched bool
	err     error
}

// spaceView parses a space name: a lock's or semaphore's key@VIEW, or a
// quota's key, which runs on every node of the cluster file.
func (n *Node) spaceView(space string) (string, view, bool, error) {
	if x, ok := n.views.Load(space); ok {
		i := x.(spaceInfo)
		return i.key, i.v, i.epoched, i.err
	}
	i := spaceInfo{key: space}
	if strings.Contains(space, "@") {
		i.key, i.v, i.err = splitSpace(space)
		i.epoched = true
		for _, k := range i.v.live {
			if k >= MaxNodes {
				i.err = fmt.Errorf("%w: %q names node %d, ids are below %d", errSpace, space, k, MaxNodes)
			}
		}
	} else {
		i.v = view{epoch: n.c.Epoch}
		for k := range n.c.Nodes {
			i.v.live = append(i.v.live, k)
		}
	}
	n.views.Store(space, i)
	return i.key, i.v, i.epoched, i.err
}

// place is the transport's placement: which node hosts process id of a
// space.
func (n *Node) place(space string, id proc.ID) (string, bool) {
	if id < 0 {
		return "", false
	}
	if space == ctlSpace {
		if int(id) >= MaxNodes {
			return "", false
		}
		return nodeName(int(id)), true
	}
	_, v, _, err := n.spaceView(space)
	if err != nil {
		return "", false
	}
	return nodeName(n.owner(v, len(v.live)*n.c.Slots, id)), true
}

// Errors of instances.
var (
	errSpace       = errors.New("not an instance of this cluster")
	errRetiredView = errors.New("an instance of a view this node has left")
)

// instance returns the instance of a space, building it on first use. An
// instance of a view older than this node's is not built again.
func (n *Node) instance(space string) (*instance, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if in := n.instances[space]; in != nil {
		return in, nil
	}
	if _, v, epoched, err := n.spaceView(space); err == nil && epoched {
		var cur uint64
		if n.cur != nil {
			cur = n.cur.v.epoch
		}
		// A view behind this node's, or one the control log has but
		// this run did not adopt (it is not in it: a restarted node's
		// old run was), is never built: fresh processes would answer
		// for state they never had.
		if v.epoch < n.adopted || v.epoch <= n.ctl.newest.Load() && v.epoch != cur && v.epoch != n.ctl.member.Load() {
			return nil, errRetiredView
		}
	}
	in, err := n.newInstance(space)
	if err != nil {
		return nil, err
	}
	n.instances[space] = in
	return in, nil
}
