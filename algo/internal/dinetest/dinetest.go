// Package dinetest is a small deterministic driver for unit-testing dining
// algorithms in isolation: random or FIFO channels, think and eat times,
// crashes, and an exclusion check on the event stream. The full simulator
// (package sim) is what runs experiments; this driver keeps the algorithm
// packages' unit tests independent of it.
package dinetest

import (
	"container/heap"
	"fmt"
	"math/rand/v2"

	"allot/algo"
	"allot/graph"
	"allot/proc"
)

// Config is one run.
type Config struct {
	Seed     uint64
	MaxDelay proc.Time // message delay uniform on 1..MaxDelay
	FIFO     bool
	Think    proc.Time // think time uniform on 0..Think
	Eat      proc.Time // eating time uniform on 1..Eat
	Requests int       // stop after this many entries
	Horizon  proc.Time // and never past this time
	Crash    map[proc.ID]proc.Time
	Sink     proc.Sink
}

// Result summarises a run.
type Result struct {
	Served   int
	Messages int
	End      proc.Time
	Hungry   []proc.ID // hungry at the end (not crashed)
	Error    error     // the first exclusion violation
}

type item struct {
	t    proc.Time
	seq  int64
	kind int // 0 deliver, 1 request, 2 release, 3 crash
	to   proc.ID
	from proc.ID
	m    proc.Message
}

type queue []item

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if q[i].t != q[j].t {
		return q[i].t < q[j].t
	}
	return q[i].seq < q[j].seq
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(item)) }
func (q *queue) Pop() any {
	o := *q
	x := o[len(o)-1]
	*q = o[:len(o)-1]
	return x
}

type driver struct {
	cfg     Config
	g       *graph.Graph
	ps      []proc.Process
	q       queue
	seq     int64
	now     proc.Time
	rnd     *rand.Rand
	prnd    []*rand.Rand
	dead    []bool
	state   []uint8 // 0 thinking 1 hungry 2 eating
	holder  []proc.ID
	last    map[[2]proc.ID]proc.Time // FIFO: last arrival per link
	res     Result
	pending int
}

type env struct {
	d *driver
	p proc.ID
}

func (e env) Self() ID         { return e.p }
func (e env) Now() proc.Time   { return e.d.now }
func (e env) Rand() *rand.Rand { return e.d.prnd[e.p] }
func (e env) After(proc.Time, proc.Timer) {
	panic("dinetest: timers are not supported")
}

// ID is proc.ID, named for the method set above.
type ID = proc.ID

func (e env) Send(to proc.ID, m proc.Message) {
	d := e.d
	d.res.Messages++
	t := d.now + 1 + proc.Time(d.rnd.Int64N(int64(max(1, d.cfg.MaxDelay))))
	if d.cfg.FIFO {
		k := [2]proc.ID{e.p, to}
		if t < d.last[k] {
			t = d.last[k]
		}
		d.last[k] = t
	}
	d.push(item{t: t, kind: 0, to: to, from: e.p, m: m})
}

func (e env) Emit(ev proc.Event) {
	d := e.d
	if ev.Kind != proc.EvEnter {
		panic("dinetest: unexpected event " + ev.Kind.String())
	}
	if d.state[e.p] != 1 {
		d.fail(fmt.Errorf("process %d entered while not hungry", e.p))
	}
	d.state[e.p] = 2
	for _, r := range ev.Res {
		if h := d.holder[r]; h != proc.None {
			d.fail(fmt.Errorf("t=%d: process %d entered holding resource %d held by %d", d.now, e.p, r, h))
		}
		d.holder[r] = e.p
	}
	d.emit(proc.Event{Kind: proc.EvEnter, P: e.p, Res: ev.Res})
	d.res.Served++
	d.push(item{t: d.now + 1 + proc.Time(d.rnd.Int64N(int64(max(1, d.cfg.Eat)))), kind: 2, to: e.p})
}

func (d *driver) emit(ev proc.Event) {
	ev.Time = d.now
	if d.cfg.Sink != nil {
		d.cfg.Sink.Event(ev)
	}
}

func (d *driver) fail(err error) {
	if d.res.Error == nil {
		d.res.Error = err
	}
}

func (d *driver) push(it item) {
	d.seq++
	it.seq = d.seq
	heap.Push(&d.q, it)
}

// Run runs the algorithm on the dining problem of g.
func Run(a algo.Algorithm, g *graph.Graph, cfg Config) (Result, error) {
	pb := algo.DiningProblem(g)
	pb.FIFO = cfg.FIFO
	ps, err := a.Build(pb)
	if err != nil {
		return Result{}, err
	}
	return RunProcs(pb, ps, cfg), nil
}

// RunProcs runs already built processes.
func RunProcs(pb *algo.Problem, ps []proc.Process, cfg Config) Result {
	g := pb.Conflict
	n := g.N()
	d := &driver{cfg: cfg, g: g, ps: ps, rnd: rand.New(rand.NewPCG(cfg.Seed, 1)),
		dead: make([]bool, len(ps)), state: make([]uint8, n), holder: make([]proc.ID, g.M()),
		last: map[[2]proc.ID]proc.Time{}}
	for i := range d.holder {
		d.holder[i] = proc.None
	}
	for i := range ps {
		d.prnd = append(d.prnd, rand.New(rand.NewPCG(cfg.Seed, uint64(i)+2)))
	}
	for i, p := range ps {
		p.Start(env{d, proc.ID(i)})
	}
	for u := 0; u < n; u++ {
		d.push(item{t: proc.Time(d.rnd.Int64N(int64(cfg.Think) + 1)), kind: 1, to: proc.ID(u)})
	}
	for p, t := range cfg.Crash {
		d.push(item{t: t, kind: 3, to: p})
	}
	for d.q.Len() > 0 && d.res.Served < cfg.Requests && d.res.Error == nil {
		it := heap.Pop(&d.q).(item)
		if cfg.Horizon > 0 && it.t > cfg.Horizon {
			break
		}
		d.now = it.t
		if d.dead[it.to] {
			continue
		}
		e := env{d, it.to}
		switch it.kind {
		case 0:
			ps[it.to].Deliver(e, it.from, it.m)
		case 1:
			d.state[it.to] = 1
			r := proc.Request{Res: pb.MaxSets[it.to]}
			d.emit(proc.Event{Kind: proc.EvRequest, P: it.to, Res: r.Res})
			ps[it.to].(proc.Allocator).Request(e, r)
		case 2:
			for _, r := range pb.MaxSets[it.to] {
				d.holder[r] = proc.None
			}
			d.state[it.to] = 0
			d.emit(proc.Event{Kind: proc.EvExit, P: it.to})
			ps[it.to].(proc.Allocator).Release(e)
			d.push(item{t: d.now + proc.Time(d.rnd.Int64N(int64(cfg.Think)+1)), kind: 1, to: it.to})
		case 3:
			d.dead[it.to] = true
			d.emit(proc.Event{Kind: proc.EvCrash, P: it.to})
		}
	}
	d.res.End = d.now
	for u := 0; u < n; u++ {
		if d.state[u] == 1 && !d.dead[u] {
			d.res.Hungry = append(d.res.Hungry, proc.ID(u))
		}
	}
	return d.res
}
