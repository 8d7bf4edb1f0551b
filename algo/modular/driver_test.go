package modular

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// tnet is a small discrete-event driver for this package's tests: unordered
// channels with random delays (FIFO links for algorithms that need them), users that think, request, hold and
// release, an exclusion check on the events, and hooks that let the
// invariant tests look at the processes after every step. It exists so the
// invariant tests can inspect internal state, which the simulator's sinks
// (events only) cannot.
type tnet struct {
	pb    *algo.Problem
	procs []proc.Process
	now   proc.Time
	seq   uint64
	q     itemHeap
	rng   *rand.Rand
	prand []*rand.Rand

	delay     func(r *rand.Rand) proc.Time
	think, cs func(r *rand.Rand) proc.Time
	// next is user u's next request; nil means its MaxSet.
	next func(u proc.ID, r *rand.Rand) []proc.ResID
	// start is when user u first requests; nil means after one think.
	start func(u proc.ID) proc.Time
	// forever holds these users' critical sections forever.
	forever map[proc.ID]bool
	// waitReleases delays a user's next request until its releases have
	// reached the managers (the invariant checks then tell requests apart).
	waitReleases bool
	requests     int // stop once this many are served in all
	horizon      proc.Time
	// fifo makes every link FIFO: no message overtakes an earlier one.
	fifo     bool
	lastOnLn map[[2]proc.ID]proc.Time

	// Hooks for invariant checks; an error stops the run.
	afterStep func(n *tnet) error
	onSend    func(n *tnet, from, to proc.ID, m proc.Message) error

	// Outcome.
	served   int
	messages int
	byKind   map[string]int
	holder   map[proc.ResID]proc.ID
	want     [][]proc.ResID // the open request of each user, nil when none
	reqAt    []proc.Time
	entered  []int
	resp     []proc.Time
	inflight []int // release messages in flight, per user
	err      error
}

type itemKind uint8

const (
	itDeliver itemKind = iota
	itTimer
	itRequest
	itRelease
)

type item struct {
	at   proc.Time
	seq  uint64
	kind itemKind
	to   proc.ID
	from proc.ID
	m    proc.Message
	t    proc.Timer
}

type itemHeap []item

func (h itemHeap) Len() int { return len(h) }
func (h itemHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].seq < h[j].seq
}
func (h itemHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *itemHeap) Push(x any)   { *h = append(*h, x.(item)) }
func (h *itemHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

func uniform(a, b int64) func(*rand.Rand) proc.Time {
	return func(r *rand.Rand) proc.Time { return proc.Time(a + r.Int64N(b-a+1)) }
}

func newNet(a algo.Algorithm, pb *algo.Problem, seed uint64) (*tnet, error) {
	procs, err := a.Build(pb)
	if err != nil {
		return nil, err
	}
	n := &tnet{
		pb: pb, procs: procs,
		rng:      rand.New(rand.NewPCG(seed, 0x6e6574)),
		delay:    uniform(1, 20),
		think:    uniform(0, 20),
		cs:       uniform(1, 20),
		requests: 20 * pb.Users,
		horizon:  1 << 40,
		byKind:   map[string]int{},
		holder:   map[proc.ResID]proc.ID{},
		want:     make([][]proc.ResID, pb.Users),
		reqAt:    make([]proc.Time, pb.Users),
		entered:  make([]int, pb.Users),
		inflight: make([]int, pb.Users),
		fifo:     a.NeedsFIFO,
		lastOnLn: map[[2]proc.ID]proc.Time{},
	}
	for i := range procs {
		n.prand = append(n.prand, rand.New(rand.NewPCG(seed, uint64(i)+1)))
	}
	return n, nil
}

func (n *tnet) push(it item) {
	n.seq++
	it.seq = n.seq
	heap.Push(&n.q, it)
}

type tenv struct {
	n    *tnet
	self proc.ID
}

func (e tenv) Self() proc.ID    { return e.self }
func (e tenv) Now() proc.Time   { return e.n.now }
func (e tenv) Rand() *rand.Rand { return e.n.prand[e.self] }
func (e tenv) After(d proc.Time, t proc.Timer) {
	e.n.push(item{at: e.n.now + d, kind: itTimer, to: e.self, t: t})
}

func (e tenv) Send(to proc.ID, m proc.Message) {
	n := e.n
	if to < 0 || int(to) >= len(n.procs) {
		n.fail(fmt.Errorf("%d sends %T to unknown process %d", e.self, m, to))
		return
	}
	n.messages++
	n.byKind[m.Kind()]++
	if _, ok := m.(Release); ok {
		n.inflight[e.self]++
	}
	if n.onSend != nil {
		if err := n.onSend(n, e.self, to, m); err != nil {
			n.fail(err)
		}
	}
	at := n.now + max(1, n.delay(n.rng))
	if n.fifo {
		ln := [2]proc.ID{e.self, to}
		at = max(at, n.lastOnLn[ln])
		n.lastOnLn[ln] = at
	}
	n.push(item{at: at, kind: itDeliver, to: to, from: e.self, m: m})
}

func (e tenv) Emit(ev proc.Event) {
	n := e.n
	if ev.Kind != proc.EvEnter {
		return
	}
	u := e.self
	if int(u) >= n.pb.Users || n.want[u] == nil {
		n.fail(fmt.Errorf("t=%d: process %d enters without a request", n.now, u))
		return
	}
	if !slices.Equal(ev.Res, n.want[u]) {
		n.fail(fmt.Errorf("t=%d: user %d enters with %v, asked %v", n.now, u, ev.Res, n.want[u]))
		return
	}
	for _, r := range ev.Res {
		if h, ok := n.holder[r]; ok {
			n.fail(fmt.Errorf("t=%d: exclusion violated: users %d and %d both hold resource %d", n.now, h, u, r))
			return
		}
		n.holder[r] = u
	}
	n.entered[u]++
	n.resp = append(n.resp, n.now-n.reqAt[u])
	if !n.forever[u] {
		n.push(item{at: n.now + n.cs(n.rng), kind: itRelease, to: u})
	}
}

func (n *tnet) fail(err error) {
	if n.err == nil {
		n.err = err
	}
}

func (n *tnet) request(u proc.ID) {
	if n.waitReleases && n.inflight[u] > 0 {
		n.push(item{at: n.now + 1, kind: itRequest, to: u})
		return
	}
	var res []proc.ResID
	if n.next != nil {
		res = n.next(u, n.rng)
	} else {
		res = n.pb.MaxSets[u]
	}
	res = slices.Clone(res)
	slices.Sort(res)
	n.want[u] = res
	n.reqAt[u] = n.now
	n.procs[u].(proc.Allocator).Request(tenv{n, u}, proc.Request{Res: slices.Clone(res)})
}

func (n *tnet) release(u proc.ID) {
	for _, r := range n.want[u] {
		delete(n.holder, r)
	}
	n.want[u] = nil
	n.served++
	n.procs[u].(proc.Allocator).Release(tenv{n, u})
	if n.served+n.open() < n.requests {
		n.push(item{at: n.now + n.think(n.rng), kind: itRequest, to: u})
	}
}

// open is the number of requests asked and not yet released.
func (n *tnet) open() int {
	c := 0
	for _, w := range n.want {
		if w != nil {
			c++
		}
	}
	return c
}

// run drives the system until every request is served, nothing is left to
// do, or the horizon; a panic in an algorithm becomes the run's error.
func (n *tnet) run() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("t=%d: panic: %v", n.now, r)
		}
	}()
	for i := range n.procs {
		n.procs[i].Start(tenv{n, proc.ID(i)})
	}
	for u := 0; u < n.pb.Users; u++ {
		at := n.think(n.rng)
		if n.start != nil {
			at = n.start(proc.ID(u))
		}
		if at >= 0 {
			n.push(item{at: at, kind: itRequest, to: proc.ID(u)})
		}
	}
	for n.q.Len() > 0 && n.err == nil && n.served < n.requests {
		it := heap.Pop(&n.q).(item)
		if it.at > n.horizon {
			break
		}
		n.now = it.at
		env := tenv{n, it.to}
		switch it.kind {
		case itDeliver:
			if _, ok := it.m.(Release); ok {
				n.inflight[it.from]--
			}
			n.procs[it.to].Deliver(env, it.from, it.m)
		case itTimer:
			n.procs[it.to].Fire(env, it.t)
		case itRequest:
			if n.served+n.open() < n.requests {
				n.request(it.to)
			}
		case itRelease:
			n.release(it.to)
		}
		if n.err == nil && n.afterStep != nil {
			n.fail(n.afterStep(n))
		}
	}
	return n.err
}

// starved lists users with an open request that never entered.
func (n *tnet) starved() []proc.ID {
	var out []proc.ID
	for u, w := range n.want {
		if w != nil && !n.forever[proc.ID(u)] {
			out = append(out, proc.ID(u))
		}
	}
	return out
}

// dynamicProblem is U users over R resources with unknown maximum sets.
func dynamicProblem(users, resources int) *algo.Problem {
	return &algo.Problem{Kind: algo.Exclusive, Users: users, Resources: resources}
}

// randomSets draws each request as k..k2 distinct resources uniformly.
func randomSets(resources, k, k2 int) func(proc.ID, *rand.Rand) []proc.ResID {
	return func(_ proc.ID, r *rand.Rand) []proc.ResID {
		c := k + r.IntN(k2-k+1)
		perm := r.Perm(resources)[:c]
		out := make([]proc.ResID, c)
		for i, x := range perm {
			out[i] = proc.ResID(x)
		}
		return out
	}
}
