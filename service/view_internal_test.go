package service

import (
	"errors"
	"testing"

	"github.com/allot-dev/allot/service/internal/space"
)

// TestFencedViewNotBuiltAgain: once a node has fenced itself in a view,
// a message for an instance of that view (one of its own sent before, on
// its way still) does not build the instance again: its fresh processes
// would answer for state they never had (a quota's controller, given a
// start wave by a node it never joined, panicked so in a chaos run). The
// control plane still has the node in that view until a newer one is
// committed, which the view's own check lets through.
func TestFencedViewNotBuiltAgain(t *testing.T) {
	nodes := inProcess(t, 3, Config{})
	n := nodes[0]
	st := n.views.current()
	if st == nil {
		t.Fatal("no view")
	}
	sp := space.Space{Key: space.Sem("fenced", 2), View: st.v}
	if _, err := n.instance(sp); err != nil {
		t.Fatalf("before the fence: %v", err)
	}
	n.fence(st.v.Epoch)
	if _, err := n.instance(sp); !errors.Is(err, errRetiredView) {
		t.Fatalf("an instance of the view the node was fenced in: %v, want %v", err, errRetiredView)
	}
}
