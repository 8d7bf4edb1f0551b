package control

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/allot-dev/allot/proc"
)

// The tests run a cluster of Nodes on a model network, one time unit a
// step: every message takes one unit, unless its link is cut. The driver
// each node has adopts a view at once (every grant asked again), and
// stops at once when fenced.
var seedFlag = flag.Uint64("seed", 0, "the seed of the randomized tests (0: a fresh one)")

const (
	lease  = 100
	margin = 5
)

// msg is a message on the model network: a Raft message, or a Reach
// (reach set: m then only names its sender and receiver).
type msg struct {
	at    proc.Time
	m     raftpb.Message
	reach *Reach
}

// span is a node serving a view from start until end (-1: still), in a
// configuration of voters members.
type span struct {
	node       proc.ID
	view       View
	start, end proc.Time
	voters     int
}

type cluster struct {
	t       testing.TB
	now     proc.Time
	rng     *rand.Rand
	nodes   []*Node
	disks   []Disk
	up      []bool
	cut     map[[2]proc.ID]bool // from, to
	paused  []bool
	net     []msg
	runs    []uint64
	broken  Broken
	quotas  []Quota
	counts  [][]uint64 // per node: its persisted counts
	lost    []int      // per node: how often it fenced itself as lost (its lease ran out)
	stopped []error    // per node: the ErrLogLost it was stopped for (nil: none)
	spans   []span
	serving map[proc.ID]int // node -> index in spans
	log     []string

	// views is every view a node adopted or named as an Adopt's Prev, by
	// epoch; prevs counts the Adopts with a Prev, checked against them.
	views map[uint64]View
	prevs int

	// every and keep are the nodes' SnapshotEvery and SnapshotKeep;
	// full is each node's log as it would be uncompacted (the entries
	// of every Update, snapshots left out); snaps counts the MsgSnap
	// delivered; lose is how many MsgSnap are still to be lost.
	every, keep int
	full        []Disk
	snaps, lose int
}

func newCluster(t testing.TB, n int, seed uint64, broken Broken, quotas ...Quota) *cluster {
	var ids []proc.ID
	for i := range n {
		ids = append(ids, proc.ID(i))
	}
	return newClusterOf(t, Bootstrap(ids), n, seed, broken, quotas...)
}

// newClusterOf starts n nodes on the bootstrap disk boot.
func newClusterOf(t testing.TB, boot Disk, n int, seed uint64, broken Broken, quotas ...Quota) *cluster {
	return newCompactingCluster(t, boot, n, seed, 0, 0, broken, quotas...)
}

// newCompactingCluster starts n nodes on the bootstrap disk boot, each
// taking a snapshot every every entries and keeping keep behind it.
func newCompactingCluster(t testing.TB, boot Disk, n int, seed uint64, every, keep int, broken Broken, quotas ...Quota) *cluster {
	c := &cluster{
		t: t, rng: rand.New(rand.NewPCG(seed, 1)), cut: map[[2]proc.ID]bool{}, broken: broken,
		quotas: quotas, serving: map[proc.ID]int{}, every: every, keep: keep, views: map[uint64]View{},
	}
	for range n {
		c.start(c.grow(boot.Clone()))
	}
	return c
}

// grow adds a node, not started, on disk d (empty: a node that joins),
// and returns its id.
func (c *cluster) grow(d Disk) proc.ID {
	c.disks = append(c.disks, d)
	c.full = append(c.full, d.Clone())
	c.nodes = append(c.nodes, nil)
	c.up = append(c.up, false)
	c.paused = append(c.paused, false)
	c.runs = append(c.runs, 0)
	c.counts = append(c.counts, make([]uint64, len(c.quotas)))
	c.lost = append(c.lost, 0)
	c.stopped = append(c.stopped, nil)
	return proc.ID(len(c.nodes) - 1)
}

// start starts node id on its disk, as a new run.
func (c *cluster) start(id proc.ID) {
	c.runs[id]++
	nd, err := New(Config{
		Self: id, Run: c.runs[id], Lease: lease, Margin: margin, Quotas: c.quotas, MaxNodes: 64,
		Counts: c.counts[id], Rand: rand.New(rand.NewPCG(c.rng.Uint64(), uint64(id))), Broken: c.broken,
		SnapshotEvery: c.every, SnapshotKeep: c.keep,
	}, c.disks[id].Clone(), c.now)
	if err != nil {
		c.t.Fatal(err)
	}
	c.nodes[id], c.up[id], c.paused[id] = nd, true, false
	c.logf("start %d run %d", id, c.runs[id])
}

// crash stops node id: what it did not persist is lost; its clients
// believe in their grants until its lease ends.
func (c *cluster) crash(id proc.ID) {
	if i, ok := c.serving[id]; ok {
		if !c.paused[id] { // a paused node's clients believe until the end set at the pause
			c.spans[i].end = c.now + c.nodes[id].LeaseLeft(c.now)
		}
		delete(c.serving, id)
	}
	c.up[id] = false
	c.logf("crash %d", id)
}

// pause freezes node id (SIGSTOP) or lets it go on; messages to it wait.
func (c *cluster) pause(id proc.ID, p bool) {
	c.paused[id] = p
	if !c.up[id] {
		return
	}
	i, ok := c.serving[id]
	switch {
	case !ok:
	case p:
		// Frozen, it grants nothing; its clients believe until its
		// lease ends, unless it wakes up before.
		c.spans[i].end = c.now + c.nodes[id].LeaseLeft(c.now)
	default:
		if _, still := c.nodes[id].Serving(c.now); still {
			c.spans[i].end = -1
		} else {
			delete(c.serving, id)
		}
	}
	c.logf("pause %d %v", id, p)
}

func (c *cluster) logf(f string, a ...any) {
	c.log = append(c.log, fmt.Sprintf("%5d ", c.now)+fmt.Sprintf(f, a...))
}

// step runs one time unit.
func (c *cluster) step() {
	c.now++
	var due []msg
	keep := c.net[:0]
	for _, m := range c.net {
		if int(procID(m.m.To)) >= len(c.nodes) {
			continue // to a node not started yet: lost
		}
		if m.at <= c.now && !c.paused[procID(m.m.To)] {
			due = append(due, m)
		} else {
			keep = append(keep, m)
		}
	}
	c.net = keep
	for _, m := range due {
		to := procID(m.m.To)
		if !c.up[to] {
			continue
		}
		if m.reach != nil {
			c.nodes[to].Hear(c.now, procID(m.m.From), *m.reach)
			continue
		}
		if m.m.Type == raftpb.MsgSnap {
			if c.lose > 0 {
				c.lose--
				c.logf("lost a snapshot to %d", to)
				continue
			}
			c.snaps++
		}
		err := c.nodes[to].Step(c.now, m.m)
		if errors.Is(err, ErrLogLost) {
			// The driver stops a node whose log went backwards.
			c.stopped[to] = err
			c.crash(to)
			continue
		}
		if err != nil {
			c.t.Fatal(err)
		}
	}
	for i, nd := range c.nodes {
		id := proc.ID(i)
		if !c.up[i] || c.paused[i] {
			continue
		}
		u, err := nd.Next(c.now)
		if err != nil {
			c.t.Fatal(err)
		}
		c.disks[i].Save(u)
		whole := u
		whole.Snapshot, whole.Restored = raftpb.Snapshot{}, false
		c.full[i].Save(whole)
		for _, m := range u.Messages {
			if !c.cut[[2]proc.ID{id, procID(m.To)}] {
				c.net = append(c.net, msg{at: c.now + 1, m: m})
			}
		}
		for _, to := range u.ReachTo {
			if !c.cut[[2]proc.ID{id, to}] {
				c.net = append(c.net, msg{at: c.now + 1, m: raftpb.Message{From: raftID(id), To: raftID(to)}, reach: &u.Reach})
			}
		}
		for _, ch := range u.Changes {
			c.change(id, ch)
		}
	}
}

// change is the model driver taking a node's change.
func (c *cluster) change(id proc.ID, ch Change) {
	c.logf("node %d %s %d %v", id, ch.Kind, ch.View.Epoch, ch.View.Members)
	switch ch.Kind {
	case Adopt:
		if err := c.adopted(ch.View, ch.Prev); err != nil {
			c.t.Fatalf("node %d adopts %v: %v", id, ch.View, err)
		}
		c.nodes[id].Ready(c.now, ch.View.Epoch, c.counts[id])
	case Serve:
		c.serving[id] = len(c.spans)
		c.spans = append(c.spans, span{node: id, view: ch.View, start: c.now, end: -1, voters: len(c.nodes[id].Members())})
	case Fence:
		if i, ok := c.serving[id]; ok {
			c.spans[i].end = c.now
			delete(c.serving, id)
		}
		if ch.Lost {
			c.lost[id]++
			c.nodes[id].Stopped(c.now, c.counts[id])
		}
	}
}

// adopted checks an Adopt's Prev against the views seen so far, and
// keeps both: Prev is the view the log had before v (every node names the
// same one), unless its Epoch is 0.
func (c *cluster) adopted(v, prev View) error {
	same := func(a, b View) bool { return slices.Equal(a.Members, b.Members) && slices.Equal(a.Gens, b.Gens) }
	if w, ok := c.views[v.Epoch]; ok && !same(v, w) {
		return fmt.Errorf("epoch %d was %v", v.Epoch, w)
	}
	c.views[v.Epoch] = v
	if prev.Epoch == 0 {
		return nil
	}
	c.prevs++
	if prev.Epoch >= v.Epoch {
		return fmt.Errorf("prev %v is not older", prev)
	}
	if w, ok := c.views[prev.Epoch]; ok && !same(prev, w) {
		return fmt.Errorf("prev %v: epoch %d was %v", prev, prev.Epoch, w)
	}
	for e := range c.views {
		if prev.Epoch < e && e < v.Epoch {
			return fmt.Errorf("prev %v, but view %v came between", prev, c.views[e])
		}
	}
	c.views[prev.Epoch] = prev
	return nil
}

func (c *cluster) run(d proc.Time) {
	for end := c.now + d; c.now < end; {
		c.step()
	}
}

// isolate cuts every link to and from id.
func (c *cluster) isolate(id proc.ID, cut bool) {
	for k := range c.nodes {
		if proc.ID(k) != id {
			c.cut[[2]proc.ID{id, proc.ID(k)}] = cut
			c.cut[[2]proc.ID{proc.ID(k), id}] = cut
		}
	}
}

// servingNow is the nodes serving now and their epochs.
func (c *cluster) servingNow() map[proc.ID]uint64 {
	out := map[proc.ID]uint64{}
	for id, i := range c.serving {
		out[id] = c.spans[i].view.Epoch
	}
	return out
}

// check judges the spans, and nothing else: no two views serve at the
// same time, every view serving holds a majority of its configuration
// (of n, when the span does not say), and the epochs served only grow.
func check(spans []span, n int, now proc.Time) error {
	end := func(s span) proc.Time {
		if s.end < 0 {
			return now + 1
		}
		return s.end
	}
	for i, a := range spans {
		if v := cmp.Or(a.voters, n); 2*len(a.view.Members) <= v {
			return fmt.Errorf("node %d serves %v, not a majority of %d", a.node, a.view, v)
		}
		if !slices.Contains(a.view.Members, a.node) {
			return fmt.Errorf("node %d serves %v, not a member", a.node, a.view)
		}
		for _, b := range spans[i+1:] {
			if a.view.Epoch == b.view.Epoch {
				if !slices.Equal(a.view.Members, b.view.Members) {
					return fmt.Errorf("epoch %d served as %v and %v", a.view.Epoch, a.view.Members, b.view.Members)
				}
				continue
			}
			if a.start < end(b) && b.start < end(a) {
				return fmt.Errorf("views %d (node %d, %d..%d) and %d (node %d, %d..%d) serve at once",
					a.view.Epoch, a.node, a.start, end(a), b.view.Epoch, b.node, b.start, end(b))
			}
			if b.start > a.start && b.view.Epoch < a.view.Epoch {
				return fmt.Errorf("epoch %d serves at %d after epoch %d at %d", b.view.Epoch, b.start, a.view.Epoch, a.start)
			}
		}
	}
	return nil
}

func (c *cluster) verify() {
	c.t.Helper()
	if err := check(c.spans, len(c.nodes), c.now); err != nil {
		c.t.Fatalf("%v\n%s", err, strings.Join(c.log, "\n"))
	}
}

// settle runs until want nodes serve one view, of an epoch above the
// epochs of views served so far, within d, and returns its epoch.
func (c *cluster) settle(d proc.Time, want int) uint64 {
	var above uint64
	for _, s := range c.spans {
		above = max(above, s.view.Epoch)
	}
	return c.settleAbove(d, want, above)
}

// settleAbove is settle for a view above epoch above.
func (c *cluster) settleAbove(d proc.Time, want int, above uint64) uint64 {
	c.t.Helper()
	for end := c.now + d; c.now < end; {
		c.step()
		s := c.servingNow()
		if len(s) != want {
			continue
		}
		var e uint64
		for _, x := range s {
			e = max(e, x)
		}
		same := true
		for _, x := range s {
			same = same && x == e
		}
		if same && e > above {
			return e
		}
	}
	c.t.Fatalf("no view served by %d nodes within %d: serving %v\n%s", want, d, c.servingNow(), strings.Join(c.log, "\n"))
	return 0
}

// freshSeed draws a seed for this run and prints it.
func freshSeed(t testing.TB) uint64 {
	seed := *seedFlag
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d", seed)
	return seed
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 2)) }
