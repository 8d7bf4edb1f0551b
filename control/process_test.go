package control

import (
	"container/heap"
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// A minimal driver for Process: every message takes 1 unit, timers fire
// on time, events are collected.
type item struct {
	at       proc.Time
	seq      int
	to, from proc.ID
	m        proc.Message
	t        proc.Timer
	run      int // the run of to the item is for (timers die with a crash)
}

type items []item

func (h items) Len() int { return len(h) }
func (h items) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].seq < h[j].seq
}
func (h items) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *items) Push(x any)   { *h = append(*h, x.(item)) }
func (h *items) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type driver struct {
	now    proc.Time
	seq    int
	q      items
	procs  []*Process
	disks  []*Disk
	runs   []int
	up     []bool
	rngs   []*rand.Rand
	events []proc.Event
	cur    proc.ID
}

func (d *driver) Self() proc.ID     { return d.cur }
func (d *driver) Now() proc.Time    { return d.now }
func (d *driver) Rand() *rand.Rand  { return d.rngs[d.cur] }
func (d *driver) Emit(e proc.Event) { e.P, e.Time = d.cur, d.now; d.events = append(d.events, e) }
func (d *driver) Send(to proc.ID, m proc.Message) {
	d.seq++
	heap.Push(&d.q, item{at: d.now + 1, seq: d.seq, to: to, from: d.cur, m: m, run: -1})
}
func (d *driver) After(t proc.Time, tm proc.Timer) {
	d.seq++
	heap.Push(&d.q, item{at: d.now + t, seq: d.seq, to: d.cur, t: tm, run: d.runs[d.cur]})
}

func (d *driver) start(id proc.ID) {
	d.runs[id]++
	d.up[id] = true
	d.procs[id] = NewProcess(Config{Self: id, Lease: lease, Margin: margin}, d.disks[id])
	d.cur = id
	d.procs[id].Start(d)
}

func (d *driver) until(end proc.Time) {
	for len(d.q) > 0 && d.q[0].at <= end {
		it := heap.Pop(&d.q).(item)
		d.now = it.at
		if !d.up[it.to] || it.run >= 0 && it.run != d.runs[it.to] {
			continue
		}
		d.cur = it.to
		if it.t != nil {
			d.procs[it.to].Fire(d, it.t)
		} else {
			d.procs[it.to].Deliver(d, it.from, it.m)
		}
	}
	d.now = end
}

// serving is each node's view by the events: the last EvView not followed
// by an EvFence of it.
func (d *driver) serving() map[proc.ID]uint64 {
	out := map[proc.ID]uint64{}
	for _, e := range d.events {
		switch e.Kind {
		case proc.EvView:
			out[e.P] = e.Epoch
		case proc.EvFence:
			if out[e.P] == e.Epoch {
				delete(out, e.P)
			}
		}
	}
	return out
}

func TestProcess(t *testing.T) {
	d := &driver{}
	ids := []proc.ID{0, 1, 2}
	for i := range ids {
		disk := Bootstrap(ids)
		d.disks = append(d.disks, &disk)
		d.procs = append(d.procs, nil)
		d.runs = append(d.runs, 0)
		d.up = append(d.up, false)
		d.rngs = append(d.rngs, rand.New(rand.NewPCG(uint64(i), 7)))
	}
	for _, id := range ids {
		d.start(id)
	}
	d.until(20 * lease)
	s := d.serving()
	if len(s) != 3 || s[0] != s[1] || s[1] != s[2] {
		t.Fatalf("serving %v, want one view on all three", s)
	}
	first := s[0]
	// All three crash and restart on their disks: the epochs go on.
	for _, id := range ids {
		d.up[id] = false
		d.events = append(d.events, proc.Event{Kind: proc.EvFence, P: id, Epoch: first})
	}
	for _, id := range ids {
		d.start(id)
	}
	d.until(d.now + 20*lease)
	s = d.serving()
	if len(s) != 3 || s[0] != s[1] || s[1] != s[2] || s[0] <= first {
		t.Fatalf("after a full restart: serving %v, want one view above %d on all three", s, first)
	}
	for _, e := range d.events {
		if e.Kind == proc.EvView && len(e.Members) != 3 {
			t.Fatalf("event %+v: want three members", e)
		}
	}
}
