package check

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
)

func view(t proc.Time, p proc.ID, epoch uint64, members ...proc.ID) ev {
	return ev{Time: t, Kind: proc.EvView, P: p, Epoch: epoch, Members: members}
}

func fence(t proc.Time, p proc.ID, epoch uint64) ev {
	return ev{Time: t, Kind: proc.EvFence, P: p, Epoch: epoch}
}

func at(t proc.Time, k proc.EventKind, p proc.ID) ev { return ev{Time: t, Kind: k, P: p} }

// TestControl shows each rule rejecting a stream that breaks it, and a
// stream of every fault passing.
func TestControl(t *testing.T) {
	for _, c := range []struct {
		name   string
		nodes  int
		budget int
		events []ev
		want   string // "" for no violation
	}{
		{"a majority moves on after fencing, with a crash, a restart, a pause", 3, 2, []ev{
			view(10, 0, 3, 0, 1, 2), view(10, 1, 3, 0, 1, 2), view(11, 2, 3, 0, 1, 2),
			at(20, proc.EvPermit, 1),
			at(30, proc.EvPause, 2), // stopped while serving 3
			fence(40, 0, 3), fence(41, 1, 3),
			view(60, 0, 7, 0, 1), view(60, 1, 7, 0, 1), // 2 is stopped: not held against epoch 7
			at(61, proc.EvPermit, 0),
			at(70, proc.EvResume, 2), fence(70, 2, 3), // 2 fences first thing
			at(80, proc.EvCrash, 1), at(90, proc.EvRestart, 1),
			view(95, 1, 7, 0, 1), // re-serving the same epoch after a restart
			fence(100, 0, 7), fence(100, 1, 7), view(130, 2, 9, 0, 1, 2), view(131, 1, 9, 0, 1, 2),
		}, ""},
		{"two member sets for one epoch", 3, 0, []ev{
			view(10, 0, 3, 0, 1, 2), fence(20, 0, 3), view(30, 1, 3, 0, 1)}, "another node served it with [0 1 2]"},
		{"a minority view", 5, 0, []ev{view(10, 0, 3, 0, 1)}, "2 of a configuration of 5 is no majority"},
		{"members outside the configuration do not count", 3, 0, []ev{view(10, 0, 3, 0, 7, 8)}, "no majority"},
		{"a view that leaves its server out", 3, 0, []ev{view(10, 2, 3, 0, 1)}, "leave it out"},
		{"epochs back at a node across a restart", 3, 0, []ev{
			view(10, 0, 7, 0, 1, 2), at(20, proc.EvCrash, 0), at(30, proc.EvRestart, 0), view(40, 0, 5, 0, 1, 2)}, "epochs went back"},
		{"a stale view after a newer one served", 3, 0, []ev{
			view(10, 0, 7, 0, 1), fence(20, 0, 7), view(30, 2, 5, 1, 2)}, "serves epoch 5 after epoch 7 has served"},
		{"two views at once (the lease wait skipped)", 3, 0, []ev{
			view(10, 0, 3, 0, 1, 2), view(10, 1, 3, 0, 1, 2), fence(30, 1, 3),
			view(31, 1, 8, 1, 2)}, "p1 serves epoch 8 while p0 still serves epoch 3"},
		{"a stopped node acts on its old view when it resumes", 3, 0, []ev{
			view(10, 0, 3, 0, 1, 2), at(20, proc.EvPause, 0), view(40, 1, 8, 1, 2),
			at(60, proc.EvResume, 0), at(60, proc.EvPermit, 0)}, "after resuming, still serving epoch 3"},
		{"a grant outside any view", 3, 0, []ev{at(5, proc.EvPermit, 1)}, "while serving no view"},
		{"a grant after a fence", 3, 0, []ev{view(10, 1, 3, 0, 1), fence(20, 1, 3), at(25, proc.EvGrant, 1)}, "while serving no view"},
		{"a grant after a crash", 3, 0, []ev{view(10, 1, 3, 0, 1), at(20, proc.EvCrash, 1), at(25, proc.EvEnter, 1)}, "while serving no view"},
		{"a permit over the budget", 3, 2, []ev{
			view(10, 0, 3, 0, 1, 2), at(11, proc.EvPermit, 0), at(12, proc.EvPermit, 0), at(13, proc.EvPermit, 0)},
			"permit 3 issued at p0, the budget is 2"},
		{"a fence of another epoch", 3, 0, []ev{view(10, 0, 3, 0, 1, 2), fence(20, 0, 4)}, "fences epoch 4 while serving epoch 3"},
	} {
		x := Control{Nodes: c.nodes, Budget: c.budget}
		feed(&x, c.events...)
		if c.want == "" && !x.OK() {
			t.Errorf("%s: false alarm %v", c.name, x.First)
		}
		if c.want != "" && (x.OK() || !strings.Contains(x.First[0], c.want)) {
			t.Errorf("%s: got %v, want %q", c.name, x.First, c.want)
		}
	}
}
