package bidding

import (
	"container/heap"
	"math/rand/v2"
	"testing"

	"allot/algo"
	"allot/proc"
)

// A small self-contained driver for the package's own tests: unordered
// channels with random delays, per-process speeds that scale timers, and an
// exclusion check on the emitted events. The project's simulator and
// conformance suite check the algorithm again from outside.

type hevent struct {
	at   proc.Time
	seq  int64
	to   proc.ID
	from proc.ID
	msg  proc.Message // nil: a timer or an application call
	tm   proc.Timer
	app  int // 1 request, 2 release
}

type hq []hevent

func (q hq) Len() int { return len(q) }
func (q hq) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q hq) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *hq) Push(x any)   { *q = append(*q, x.(hevent)) }
func (q *hq) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

type harness struct {
	t      testing.TB
	procs  []proc.Process
	users  int
	q      hq
	seq    int64
	now    proc.Time
	rng    *rand.Rand
	rands  []*rand.Rand
	delay  func(r *rand.Rand) proc.Time
	speed  func(p proc.ID, now proc.Time, r *rand.Rand) float64 // timer scale
	cs     func(r *rand.Rand) proc.Time
	think  func(r *rand.Rand) proc.Time
	next   func(u proc.ID, r *rand.Rand) []proc.ResID
	owner  map[proc.ResID]proc.ID
	asked  []proc.Time
	held   [][]proc.ResID
	resp   []proc.Time // response of each served request
	served int
	msgs   int64
	cur    proc.ID

	violations int
	tolerate   bool // count violations instead of failing (broken variants)
}

func (h *harness) push(e hevent) {
	h.seq++
	e.seq = h.seq
	heap.Push(&h.q, e)
}

// env is the Env handed to process h.cur.
type henv struct{ h *harness }

func (e henv) Self() ID         { return e.h.cur }
func (e henv) Now() proc.Time   { return e.h.now }
func (e henv) Rand() *rand.Rand { return e.h.rands[e.h.cur] }
func (e henv) Send(to proc.ID, m proc.Message) {
	e.h.msgs++
	e.h.push(hevent{at: e.h.now + e.h.delay(e.h.rng), to: to, from: e.h.cur, msg: m})
}
func (e henv) After(d proc.Time, t proc.Timer) {
	s := 1.0
	if e.h.speed != nil {
		s = e.h.speed(e.h.cur, e.h.now, e.h.rng)
	}
	e.h.push(hevent{at: e.h.now + proc.Time(float64(d)*s+0.5), to: e.h.cur, tm: t})
}
func (e henv) Emit(ev proc.Event) {
	h := e.h
	if ev.Kind != proc.EvEnter {
		h.t.Fatalf("unexpected event %v", ev.Kind)
	}
	u := h.cur
	for _, r := range ev.Res {
		if o, ok := h.owner[r]; ok && o != u {
			h.violations++
			if !h.tolerate {
				h.t.Fatalf("t=%d: user %d enters holding resource %d, held by %d", h.now, u, r, o)
			}
		}
		h.owner[r] = u
	}
	h.held[u] = ev.Res
	h.served++
	h.resp = append(h.resp, h.now-h.asked[u])
	h.push(hevent{at: h.now + h.cs(h.rng), to: u, app: 2})
}

type ID = proc.ID

func newHarness(t testing.TB, a algo.Algorithm, pb *algo.Problem, seed uint64) *harness {
	procs, err := a.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, procs: procs, users: pb.Users, rng: rand.New(rand.NewPCG(seed, 1)),
		owner: map[proc.ResID]proc.ID{}, asked: make([]proc.Time, pb.Users), held: make([][]proc.ResID, pb.Users)}
	for i := range procs {
		h.rands = append(h.rands, rand.New(rand.NewPCG(seed, uint64(i)+2)))
	}
	h.delay = func(r *rand.Rand) proc.Time { return 1 }
	h.cs = func(r *rand.Rand) proc.Time { return 4 }
	h.think = func(r *rand.Rand) proc.Time { return proc.Time(r.IntN(5)) }
	h.next = func(u proc.ID, r *rand.Rand) []proc.ResID { return pb.MaxSets[u] }
	return h
}

// run drives the processes until n requests are served or the horizon.
func (h *harness) run(n int, horizon proc.Time) {
	for i := range h.procs {
		h.cur = proc.ID(i)
		h.procs[i].Start(henv{h})
	}
	for u := 0; u < h.users; u++ {
		h.push(hevent{at: h.think(h.rng), to: proc.ID(u), app: 1})
	}
	for h.q.Len() > 0 && h.served < n {
		e := heap.Pop(&h.q).(hevent)
		if e.at > horizon {
			break
		}
		h.now = e.at
		h.cur = e.to
		p := h.procs[e.to]
		switch {
		case e.app == 1:
			h.asked[e.to] = h.now
			p.(proc.Allocator).Request(henv{h}, proc.Request{Res: h.next(e.to, h.rng)})
		case e.app == 2:
			for _, r := range h.held[e.to] {
				if h.owner[r] == e.to {
					delete(h.owner, r)
				}
			}
			h.held[e.to] = nil
			p.(proc.Allocator).Release(henv{h})
			h.push(hevent{at: h.now + h.think(h.rng), to: e.to, app: 1})
		case e.msg != nil:
			p.Deliver(henv{h}, e.from, e.msg)
		default:
			p.Fire(henv{h}, e.tm)
		}
	}
}

func (h *harness) meanResp() float64 {
	s := 0.0
	for _, r := range h.resp {
		s += float64(r)
	}
	return s / float64(len(h.resp))
}

func fixedProblem(sets [][]proc.ResID, resources int, opts map[string]string) *algo.Problem {
	return &algo.Problem{Kind: algo.Exclusive, Users: len(sets), Resources: resources, MaxSets: sets, Options: opts}
}

func ringSets(n, k int) [][]proc.ResID {
	sets := make([][]proc.ResID, n)
	for i := range sets {
		for j := 0; j < k; j++ {
			sets[i] = append(sets[i], proc.ResID((i+j)%n))
		}
	}
	return sets
}
