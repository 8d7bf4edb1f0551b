package service

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport"
)

// A view is a configuration of the cluster: an epoch and the nodes alive
// in it. Every instance of a lock or a semaphore runs in one view, on its
// live nodes only, in the transport space key@EPOCH:LIVE, so a node can
// build it from the name of a message's space alone.
//
// Views change when a node is suspected dead (its link down for longer
// than Config.Suspect) or comes back (its link up again, perhaps with a
// new incarnation after a restart). A view needs a majority of the
// cluster's nodes: two majorities share a node, which adopts at most one
// view of an epoch, so two sides of a partition never both serve a view,
// and a node that sees no majority stops serving (fence). The
// lowest-numbered live node, the leader, proposes the next view with a
// larger epoch to the live nodes; each adopts it (never one whose epoch is
// not above its own):
//
//	leader: view changed ──config{E, live}──> every live node (itself too)
//	node:   adopt E: stop the instances of older epochs (their waiting
//	        requests start over in E), ask again in E for every grant its
//	        sessions hold, then ──ready{E}──> every live node
//	node:   ready{E} from every live node ──> E takes new requests
//
// The grants held when the view changes were held at once in the old
// view, so they do not conflict and are all granted again in E; only then
// does E serve anything new, so nothing new is granted over a grant that
// was held across the change. A dead node's grants are not asked again:
// its sessions died with it, and what it held is free in E (regenerated:
// forks, queue positions and units start afresh in every view). A holder
// whose grant crossed the change keeps its token (epoch, counter) of the
// old view; a grant in E carries E, which is larger, so a resource's
// tokens still only grow.
//
// Quotas move too, with what they have left: permits once issued are
// spent, but those lying in a dead node's bins are regenerated. Each node
// counts the permits it has issued (over all its runs) and, before it
// answers a Take, tells its buddy (the next live node of the view) its new
// count and waits for the acknowledgement; so a dead node's count is known
// to its buddy, and a permit nobody but the dead node knew of was never
// handed out. A node's ready carries every count it knows; once ready in a
// view, every node has the same counts, and each quota's instance in the
// view runs the controller on M minus their sum. Should two runs be lost at
// one change (two nodes dead, or restarted, at once), a dead node and its
// buddy may both be gone: the quotas are refused from then on (Unavailable)
// rather than risk handing out a permit twice.
type view struct {
	epoch uint64
	live  []int // node indices, ascending
}

// suffix is what a space name of the view ends with.
func (v view) suffix() string {
	var b strings.Builder
	b.WriteString("@")
	b.WriteString(strconv.FormatUint(v.epoch, 10))
	b.WriteString(":")
	for i, k := range v.live {
		if i > 0 {
			b.WriteString(".")
		}
		b.WriteString(strconv.Itoa(k))
	}
	return b.String()
}

// rank is node k's place among the live nodes, -1 if it is not live.
func (v view) rank(k int) int {
	if i, ok := slices.BinarySearch(v.live, k); ok {
		return i
	}
	return -1
}

// splitSpace splits a space name into its instance key and view.
func splitSpace(space string) (string, view, error) {
	key, rest, ok := strings.Cut(space, "@")
	if !ok {
		return "", view{}, fmt.Errorf("space %q names no view", space)
	}
	e, live, ok := strings.Cut(rest, ":")
	var v view
	var err error
	if v.epoch, err = strconv.ParseUint(e, 10, 64); !ok || err != nil {
		return "", view{}, fmt.Errorf("space %q: bad epoch", space)
	}
	for _, f := range strings.Split(live, ".") {
		k, err := strconv.Atoi(f)
		if err != nil || (len(v.live) > 0 && k <= v.live[len(v.live)-1]) || k < 0 {
			return "", view{}, fmt.Errorf("space %q: bad node list", space)
		}
		v.live = append(v.live, k)
	}
	return key, v, nil
}

// The control messages of views, between nodes (process id = node index,
// in the space ctlSpace).
type (
	// Propose is the leader's next view.
	Propose struct {
		Epoch uint64
		Live  []int32
	}
	// Ready says the sender holds again in Epoch every grant it held, and
	// gives the permit counts it knows: Counts[i] permits of quota
	// Quotas[i] issued by node Nodes[i].
	Ready struct {
		Epoch  uint64
		Quotas []string
		Nodes  []int32
		Counts []uint64
		// QuotaLost: the sender has seen two runs lost since the last
		// view that served; then every node refuses the quotas.
		QuotaLost bool
		// Fresh: the sender is a restarted run that has not been in a
		// view that served: it remembers no count. Two such in a view are
		// two runs lost.
		Fresh bool
	}
	// Issued tells a buddy a node's permit count of a quota; Seq comes back
	// in the Ack.
	Issued struct {
		Quota string
		Count uint64
		Seq   uint64
	}
	// Leaving says the sender is shutting down, its leases given back:
	// the others need not wait for the suspicion timeout once its link
	// drops. Seq comes back in the Ack.
	Leaving struct{ Seq uint64 }
	// Ack acknowledges an Issued or a Leaving.
	Ack struct{ Seq uint64 }
	// Stale answers a proposal whose epoch is not above the receiver's.
	Stale struct{ Epoch uint64 }
)

func (Propose) Kind() string { return "propose" }
func (Ready) Kind() string   { return "ready" }
func (Stale) Kind() string   { return "stale" }
func (Issued) Kind() string  { return "issued" }
func (Leaving) Kind() string { return "leaving" }
func (Ack) Kind() string     { return "ack" }

const ctlSpace = "ctl"

// epochState is a node's current view and how far it is.
type epochState struct {
	v       view
	ready   chan struct{}     // closed once every live node is ready in v
	retired chan struct{}     // closed when a later view replaces v
	from    map[int]bool      // the nodes ready in v
	quotas  map[string]string // quota name -> its instance's space in v (set when ready)
	spent   map[string]bool   // quotas with no permit left when v began
}

// peerView is what the membership loop knows of one other node.
type peerView struct {
	alive bool
	inc   uint64
}

// watch runs the membership loop until ctx ends: it follows the links,
// suspects a node whose link stays down for Config.Suspect, and, on the
// leader, proposes a new view when the live set changes.
func (n *Node) watch(ctx context.Context) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	peers := make([]peerView, len(n.c.Nodes))
	seen := make([]bool, len(n.c.Nodes))
	// The peers' runs when this node last proposed: a node that restarted
	// faster than it could be suspected is in the same live set with
	// fresh processes, and its view must start over too.
	var proposed []uint64
	started := false // the first view needs every node to have been up
	for ticks := 0; ; ticks++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if ticks%10 == 0 {
			// A node killed at once loses at most the last 100ms of its
			// event log.
			n.events.flush()
		}
		if n.draining.Load() {
			continue // shutting down: the views are the others' business now
		}
		live := []int{}
		all := true // every node has been up
		for k, name := range n.names {
			if k == n.self {
				live = append(live, k)
				continue
			}
			st, _ := n.tr.Peer(name)
			n.mu.Lock()
			left := n.leaving[k]
			if st.Up && left && st.Incarnation != peers[k].inc {
				delete(n.leaving, k) // back as a new run
				left = false
			}
			n.mu.Unlock()
			switch {
			case st.Up && !left:
				if peers[k].alive && peers[k].inc != st.Incarnation {
					n.suspected(k, "restarted", true)
				}
				peers[k] = peerView{alive: true, inc: st.Incarnation}
			case peers[k].alive && left && !st.Up:
				peers[k].alive = false
				n.log.Info("node left", "peer", k)
			case peers[k].alive && time.Since(st.Since) > n.cfg.Suspect:
				peers[k].alive = false
				n.suspected(k, "link down for "+n.cfg.Suspect.String(), false)
			}
			if peers[k].alive {
				live = append(live, k)
				seen[k] = true
			}
			all = all && seen[k]
		}
		if !started && !all {
			continue
		}
		started = true
		if 2*len(live) <= len(n.c.Nodes) {
			// Without a majority this node may be the one cut off: the
			// others may move on without it, so it stops serving.
			n.fence()
			continue
		}
		if live[0] != n.self {
			continue // not the leader
		}
		n.mu.Lock()
		cur, heard := n.cur, n.maxEpoch
		n.mu.Unlock()
		runs := make([]uint64, len(peers))
		for _, k := range live {
			runs[k] = peers[k].inc
		}
		if cur != nil && slices.Equal(cur.v.live, live) && heard <= cur.v.epoch && (proposed == nil || slices.Equal(proposed, runs)) {
			continue
		}
		proposed = runs
		n.mu.Lock()
		// The epoch is above every one this node has heard of, and at
		// least the wall clock in milliseconds: nodes that restarted
		// remember no epoch, and a majority of them must still not go
		// back to one the cluster has used (clocks are assumed to agree
		// within the time views take to change, about --suspect).
		e := max(1+max(heard, n.adopted), uint64(time.Now().UnixMilli()), n.c.Epoch)
		n.mu.Unlock()
		n.mu.Lock()
		n.maxEpoch = e
		n.mu.Unlock()
		p := Propose{Epoch: e}
		for _, k := range live {
			p.Live = append(p.Live, int32(k))
		}
		n.log.Info("proposing a view", "epoch", e, "live", live)
		for _, k := range live {
			n.control(k, p)
		}
	}
}

// fence stops a node that has lost the majority: its view is retired, its
// sessions end (their holders' keep-alives fail, so their Done closes within
// their lease), and it serves nothing until a view with a majority takes
// it in again. The majority, which may meanwhile move on and hand out what
// these sessions held, thus overlaps them at most for a lease's expiry.
func (n *Node) fence() {
	n.mu.Lock()
	cur := n.cur
	if cur == nil {
		n.mu.Unlock()
		return
	}
	n.cur = nil
	n.fenced = true
	var stop []*instance
	for space, in := range n.instances {
		if in.epoched {
			stop = append(stop, in)
			delete(n.instances, space)
		}
	}
	var sessions []*session
	for _, s := range n.sessions {
		sessions = append(sessions, s)
	}
	n.mu.Unlock()
	n.log.Warn("lost the majority: this node stops serving", "epoch", cur.v.epoch, "sessions", len(sessions))
	close(cur.retired)
	for _, in := range stop {
		in.retire()
	}
	for _, s := range sessions {
		n.end(s, 0, "this node lost the cluster's majority")
	}
}

// suspected logs that node k is thought dead or has restarted; a restart
// is a run lost, for the quotas (see view).
func (n *Node) suspected(k int, why string, restarted bool) {
	n.log.Warn("node suspected", "peer", k, "why", why)
	if restarted {
		n.mu.Lock()
		n.restarts[k] = true
		n.mu.Unlock()
	}
}

// control sends a control message to node k (to this node: handled at
// once).
func (n *Node) control(k int, m proc.Message) {
	if k == n.self {
		n.onControl(proc.ID(k), m)
		return
	}
	if err := n.ctl.Send(proc.ID(n.self), proc.ID(k), m); err != nil && !errors.Is(err, transport.ErrClosed) {
		n.log.Error("control message", "to", k, "kind", m.Kind(), "err", err)
	}
}

// onControl handles a control message from node from.
func (n *Node) onControl(from proc.ID, m proc.Message) {
	switch m := m.(type) {
	case Propose:
		v := view{epoch: m.Epoch}
		for _, k := range m.Live {
			v.live = append(v.live, int(k))
		}
		if v.rank(n.self) < 0 {
			return // this node is thought dead; the leader will see it back
		}
		n.mu.Lock()
		n.maxEpoch = max(n.maxEpoch, m.Epoch)
		adopted := n.adopted
		n.mu.Unlock()
		if adopted >= m.Epoch {
			// Never an epoch this node has been in, or below: not even
			// after it fenced itself (a restarted leader starts from
			// the cluster file's epoch and learns better from this).
			n.control(int(from), Stale{Epoch: adopted})
			return
		}
		n.adopt(v)
	case Stale:
		n.mu.Lock()
		n.maxEpoch = max(n.maxEpoch, m.Epoch)
		n.mu.Unlock()
	case Ready:
		n.mu.Lock()
		if n.readyEarly[m.Epoch] == nil {
			n.readyEarly[m.Epoch] = map[int]bool{}
		}
		n.readyEarly[m.Epoch][int(from)] = true
		if m.QuotaLost && !n.quotaLost {
			n.quotaLost = true
			n.log.Warn("quotas refused from now on: a node saw two runs lost", "from", from)
		}
		if m.Fresh {
			if n.fresh[m.Epoch] == nil {
				n.fresh[m.Epoch] = map[int]bool{}
			}
			n.fresh[m.Epoch][int(from)] = true
		}
		for i, q := range m.Quotas {
			if i < len(m.Nodes) && i < len(m.Counts) {
				n.counted(q, int(m.Nodes[i]), m.Counts[i])
			}
		}
		spaces := n.checkReady()
		n.mu.Unlock()
		for _, sp := range spaces {
			if _, err := n.instance(sp); err != nil && !errors.Is(err, errRetiredView) {
				n.log.Error("quota", "instance", sp, "err", err)
			}
		}
	case Issued:
		n.mu.Lock()
		n.counted(m.Quota, int(from), m.Count)
		n.mu.Unlock()
		n.control(int(from), Ack{Seq: m.Seq})
	case Leaving:
		n.mu.Lock()
		n.leaving[int(from)] = true
		n.mu.Unlock()
		n.control(int(from), Ack{Seq: m.Seq})
	case Ack:
		n.mu.Lock()
		ch := n.acks[m.Seq]
		delete(n.acks, m.Seq)
		n.mu.Unlock()
		if ch != nil {
			close(ch)
		}
	}
}

// counted records that node k has issued at least c permits of quota q
// (n.mu held).
func (n *Node) counted(q string, k int, c uint64) {
	if n.counts[q] == nil {
		n.counts[q] = make([]uint64, len(n.c.Nodes))
	}
	if k >= 0 && k < len(n.c.Nodes) {
		n.counts[q][k] = max(n.counts[q][k], c)
	}
}

// checkReady opens the current view once every live node is ready in it,
// and returns the spaces of its quotas (n.mu held). Every live node's
// ready is in by then, so every node has the same counts and gives each
// quota the same permits left.
func (n *Node) checkReady() []string {
	cur := n.cur
	if cur == nil {
		return nil
	}
	for k := range n.readyEarly[cur.v.epoch] {
		cur.from[k] = true
	}
	for _, k := range cur.v.live {
		if !cur.from[k] {
			return nil
		}
	}
	select {
	case <-cur.ready:
		return nil
	default:
	}
	if len(n.fresh[cur.v.epoch]) >= 2 && !n.quotaLost && len(n.c.Quotas) > 0 {
		n.quotaLost = true
		n.log.Warn("quotas refused from now on: two restarted runs remember no count", "epoch", cur.v.epoch)
	}
	for e := range n.fresh {
		if e <= cur.v.epoch {
			delete(n.fresh, e)
		}
	}
	var spaces []string
	cur.quotas, cur.spent = map[string]string{}, map[string]bool{}
	if !n.quotaLost {
		for _, name := range slices.Sorted(maps.Keys(n.c.Quotas)) {
			q := n.c.Quotas[name]
			var issued uint64
			for _, c := range n.counts[name] {
				issued += c
			}
			left := max(0, int64(q.Budget)-int64(issued))
			if left == 0 {
				// Every permit is issued: there is nothing to control
				// (the controller needs a budget), every Take is refused.
				cur.spent[name] = true
				continue
			}
			sp := quotaViewKey(name, q, int(left)) + cur.v.suffix()
			cur.quotas[name] = sp
			spaces = append(spaces, sp)
		}
	}
	n.log.Info("view ready", "epoch", cur.v.epoch, "live", cur.v.live)
	close(cur.ready)
	n.lastReady = &cur.v
	clear(n.restarts)
	for e := range n.readyEarly {
		if e <= cur.v.epoch {
			delete(n.readyEarly, e)
		}
	}
	return spaces
}

// adopt moves this node to view v: the instances of older views stop,
// the grants its sessions hold are asked for again in v, and once they
// all are, the node tells the live nodes it is ready.
func (n *Node) adopt(v view) {
	st := &epochState{v: v, ready: make(chan struct{}), retired: make(chan struct{}), from: map[int]bool{}}
	n.mu.Lock()
	old := n.cur
	if n.adopted >= v.epoch {
		n.mu.Unlock()
		return // a later view was adopted meanwhile
	}
	n.adopted = v.epoch
	n.cur = st
	n.fenced = false
	// A node left out without saying it was leaving may be alive and cut
	// off, still serving its old view until it finds it has no majority
	// (it fences itself within Suspect of losing its links, as the others
	// noticed it). This view serves nothing new before that.
	var hold time.Duration
	if old != nil {
		for _, k := range old.v.live {
			if v.rank(k) < 0 && !n.leaving[k] {
				hold = n.cfg.Suspect
			}
		}
	}
	if last := n.lastReady; last != nil {
		// The runs lost since the last view that served, whose buddies
		// hold the permit counts: nodes gone, and nodes back as a new run.
		lost := map[int]bool{}
		for _, k := range last.live {
			if v.rank(k) < 0 {
				lost[k] = true
			}
		}
		for k := range n.restarts {
			lost[k] = true
		}
		if len(lost) >= 2 && !n.quotaLost && len(n.c.Quotas) > 0 {
			n.quotaLost = true
			n.log.Warn("quotas refused from now on: two runs lost since the last view", "lost", slices.Sorted(maps.Keys(lost)))
		}
	}
	var stop []*instance
	for space, in := range n.instances {
		if in.epoched && in.view.epoch < v.epoch {
			stop = append(stop, in)
			delete(n.instances, space)
		}
	}
	var held []*grant
	for _, s := range n.sessions {
		s.mu.Lock()
		for _, g := range s.grants {
			if g.held() {
				held = append(held, g)
			}
		}
		s.mu.Unlock()
	}
	n.mu.Unlock()
	n.log.Info("adopting a view", "epoch", v.epoch, "live", v.live, "grants", len(held))
	if old != nil {
		close(old.retired)
	}
	for _, in := range stop {
		in.retire()
	}
	go func() {
		var wg sync.WaitGroup
		for _, g := range held {
			wg.Go(func() { n.regrant(g, st) })
		}
		wg.Wait()
		select {
		case <-st.retired:
			return
		case <-time.After(hold):
		}
		n.mu.Lock()
		r := Ready{Epoch: v.epoch, QuotaLost: n.quotaLost, Fresh: n.lastReady == nil && n.tr.Restarted()}
		for _, q := range slices.Sorted(maps.Keys(n.counts)) {
			for k, c := range n.counts[q] {
				r.Quotas, r.Nodes, r.Counts = append(r.Quotas, q), append(r.Nodes, int32(k)), append(r.Counts, c)
			}
		}
		n.mu.Unlock()
		for _, k := range v.live {
			n.control(k, r)
		}
	}()
}

// current waits until this node's view is ready and returns it.
func (n *Node) current(ctx context.Context, done <-chan struct{}) (*epochState, error) {
	for {
		n.mu.Lock()
		st := n.cur
		n.mu.Unlock()
		if st == nil {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-done:
				return nil, errExpired
			case <-time.After(5 * time.Millisecond):
				continue
			}
		}
		select {
		case <-st.ready:
			return st, nil
		case <-st.retired:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-done:
			return nil, errExpired
		}
	}
}
