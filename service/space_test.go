package service

import (
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/space"
)

// TestPeerSpaceNames gives the node's link boundary the names a peer may
// send: its own are placed and parsed to their typed instance, a malformed
// one or one of nodes outside the cluster is refused with a typed error
// and logged, never a panic; a name without a view places on every node.
func TestPeerSpaceNames(t *testing.T) {
	log := &syncBuffer{}
	n, err := New(Config{
		Cluster: Cluster{Nodes: []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}, Slots: 2},
		Log:     slog.New(slog.NewTextHandler(log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.ctl.close(); os.RemoveAll(n.tmpDir) })

	want := space.Space{Key: space.Sem("s", 1), View: space.View{Epoch: 4, Members: space.SetOf(0, 2)}}
	sp, err := n.spaces.parse("sem/s/1@4:0.2")
	if err != nil || sp != want {
		t.Errorf("parse = %+v, %v; want %+v", sp, err, want)
	}
	// Slots 2 (a semaphore of 1 unit is on them): users 0,1 on node 0,
	// users 2,3 on node 2, helpers dealt round the members.
	for id, node := range []string{"0", "0", "2", "2", "0", "2"} {
		if got, ok := n.place("sem/s/1@4:0.2", proc.ID(id)); !ok || got != node {
			t.Errorf("process %d placed on %q, %v; want node %s", id, got, ok, node)
		}
	}
	// A member added after the cluster file (id 3 of a file of 3).
	if got, ok := n.place("sem/s/1@4:0.3", 2); !ok || got != "3" {
		t.Errorf("process 2 of a view with node 3 placed on %q, %v; want node 3", got, ok)
	}
	if MaxNodes != space.MaxNode {
		t.Errorf("MaxNodes = %d, but space names hold %d nodes", MaxNodes, space.MaxNode)
	}
	if got, ok := n.place("", 5); !ok || got != "2" {
		t.Errorf("process 5 of no view placed on %q, %v; want node 2", got, ok)
	}
	// A name without a view is placed, but never built.
	if _, err := n.spaces.parse("quota/q/1/0"); !errors.Is(err, space.ErrName) {
		t.Errorf("parse of a name without a view = %v, want %v", err, space.ErrName)
	}

	for _, c := range []struct {
		name string
		want error
	}{
		{"sem/s/2@4:0.64", space.ErrName}, // beyond the largest cluster
		{"sem/s/2@4:2.0", space.ErrName},  // members out of order
		{"sem/s/x@4:0", space.ErrName},
		{"lock@4:0.1.1", space.ErrName},
		{"lock@", space.ErrName},
	} {
		if _, err := n.spaces.parse(c.name); !errors.Is(err, c.want) {
			t.Errorf("parse(%q) = %v, want %v", c.name, err, c.want)
		}
		if got, ok := n.place(c.name, 0); ok {
			t.Errorf("place(%q) = %q, want refused", c.name, got)
		}
		n.open(c.name, 0)
		if !strings.Contains(log.String(), c.name) {
			t.Errorf("open(%q) logged nothing", c.name)
		}
	}
}
