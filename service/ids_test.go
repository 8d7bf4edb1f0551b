package service

import (
	"errors"
	"fmt"
	"testing"
)

// TestIDs: every id of every node and run is below 2^53; two nodes, or two
// runs of one node (up to 2^15 apart), never issue the same id; a cluster
// of more than MaxNodes is refused.
func TestIDs(t *testing.T) {
	const last = 1<<idCountBits - 1 // the counter's last id of a run
	for _, self := range []int{0, 1, MaxNodes - 1} {
		for _, run := range []uint64{0, 1, 1<<idRunBits - 1, 1 << idRunBits, ^uint64(0)} {
			if id := firstID(self, run) + last; id >= MaxID {
				t.Errorf("node %d run %d: id %d is not below 2^53", self, run, id)
			}
		}
	}
	// Ranges [first+1, first+last] of distinct (node, run mod 2^15) are
	// disjoint: the first ids differ by at least a whole counter.
	seen := map[uint64]string{}
	for _, self := range []int{0, 1, 2, MaxNodes - 1} {
		for _, run := range []uint64{1, 2, 3, 1<<idRunBits - 1} {
			f := firstID(self, run)
			if f%(1<<idCountBits) != 0 {
				t.Fatalf("node %d run %d: first id %d is not at a counter's start", self, run, f)
			}
			who := fmt.Sprintf("node %d run %d", self, run)
			if other, ok := seen[f]; ok {
				t.Errorf("%s and %s issue the same ids", who, other)
			}
			seen[f] = who
		}
	}
	nodes := make([]string, MaxNodes+1)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("127.0.0.1:%d", 1000+i)
	}
	c := Cluster{Nodes: nodes}
	if err := c.Complete(); !errors.Is(err, ErrCluster) {
		t.Errorf("a cluster of %d nodes: %v, want ErrCluster", len(nodes), err)
	}
	c = Cluster{Nodes: nodes[:MaxNodes]}
	if err := c.Complete(); err != nil {
		t.Errorf("a cluster of %d nodes: %v", MaxNodes, err)
	}
}

// TestIDsAcrossRestarts: a node started again on its data directory
// issues other ids than its previous run.
func TestIDsAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	var firsts []uint64
	for range 2 {
		n, err := New(Config{Cluster: Cluster{Nodes: []string{"127.0.0.1:1"}}, DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		firsts = append(firsts, n.ids.Load())
		n.ctl.store.Close()
	}
	if firsts[0] == firsts[1] || firsts[1] >= MaxID {
		t.Errorf("first ids of two runs: %d, %d", firsts[0], firsts[1])
	}
}
