package controller

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// net is a tiny driver: FIFO delivery of every message in send order,
// recording the requests for permits and the events.
type net struct {
	procs  []proc.Process
	queue  []envelope
	reqs   []string // "from>to:level" of every Req delivered
	events []proc.Event
	cur    proc.ID
	log    []envelope // every message delivered
}

type envelope struct {
	from, to proc.ID
	m        proc.Message
}

func (n *net) Self() proc.ID               { return n.cur }
func (n *net) Now() proc.Time              { return 0 }
func (n *net) Rand() *rand.Rand            { return rand.New(rand.NewPCG(1, 1)) }
func (n *net) After(proc.Time, proc.Timer) {}
func (n *net) Send(to proc.ID, m proc.Message) {
	n.queue = append(n.queue, envelope{n.cur, to, m})
}
func (n *net) Emit(e proc.Event) { e.P = n.cur; n.events = append(n.events, e) }

func (n *net) drain() {
	for len(n.queue) > 0 {
		e := n.queue[0]
		n.queue = n.queue[1:]
		if r, ok := e.m.(Req); ok {
			n.reqs = append(n.reqs, fmt.Sprintf("%d>%d:%d", e.from, e.to, r.Level))
		}
		n.log = append(n.log, e)
		n.cur = e.to
		n.procs[e.to].Deliver(n, e.from, e.m)
	}
}

func (n *net) request(p proc.ID) {
	n.cur = p
	n.procs[p].(proc.Allocator).Request(n, proc.Request{})
	n.drain()
}

func line(t *testing.T, nodes, m, w int, iterate bool) *net {
	t.Helper()
	g, err := graph.Parse(fmt.Sprintf("line:%d", nodes), nil)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Build(&algo.Problem{Kind: algo.Quota, Users: nodes, Graph: g, Budget: m, Waste: w}, iterate)
	if err != nil {
		t.Fatal(err)
	}
	n := &net{procs: ps}
	for p := range ps {
		n.cur = proc.ID(p)
		ps[p].Start(n)
	}
	n.drain()
	return n
}

// TestHierarchyOfThePapersExample follows one request from the node at
// depth 52 (binary 110100) on a line, the example of §4.1: its global bin
// is at level 2 and its supervisor at depth 40 (101000). The local bin of
// node 52 asks its parent's level-0 bin (51), which refills from level 1
// (50), which refills from level 2 (44), from level 3 (40), from level 4
// (16), and that from the root (no level-5 bin on the path). Requests pass
// through every node between, one hop at a time.
func TestHierarchyOfThePapersExample(t *testing.T) {
	// U = 60, W = 1000: W/(2U·lg(U+1)) = 1.40, so Λ = 1 and Cap = 2^level.
	n := line(t, 60, 10000, 1000, false)
	if got := n.procs[0].(*Node).lam; got != 0 {
		t.Fatalf("Λ = 2^%d, want 2^0", got)
	}
	if lv := n.procs[52].(*Node).level(); lv != 2 {
		t.Fatalf("level of b_g at depth 52: %d, want 2", lv)
	}
	n.request(52)
	hops := map[string]bool{}
	for _, r := range n.reqs {
		hops[r] = true
	}
	for _, want := range []string{"52>51:-1", "51>50:0", "50>49:1", "45>44:1", "44>43:2", "41>40:2", "40>39:3", "17>16:3", "16>15:4", "1>0:4"} {
		if !hops[want] {
			t.Errorf("no request %s; got %v", want, n.reqs)
		}
	}
	if len(n.reqs) != 52 {
		t.Errorf("%d request hops, want 52 (one per link up to the root)", len(n.reqs))
	}
	// Each supervisor refilled to its capacity 2^level and passed half on.
	for d, want := range map[int]int64{51: 0, 50: 1, 44: 2, 40: 4, 16: 8, 0: 10000 - 16} {
		if got := n.procs[d].(*Node).global; got != want {
			t.Errorf("bin at depth %d holds %d, want %d", d, got, want)
		}
	}
	if len(n.events) != 1 || n.events[0].Kind != proc.EvPermit || n.events[0].P != 52 {
		t.Errorf("events %v, want one permit at 52", n.events)
	}
	// The next request at 51 is served from its parent's bin at 50 with
	// no message beyond the one hop.
	n.reqs = nil
	n.request(51)
	if len(n.reqs) != 1 || n.reqs[0] != "51>50:0" {
		t.Errorf("second request: %v, want only 51>50:0", n.reqs)
	}
}

// TestLambda checks Λ = 2^⌊lg((W/U)·1/(2·lg(U+1)))⌋ at a few points,
// including exact powers of two.
func TestLambda(t *testing.T) {
	for _, c := range []struct {
		w, u int64
		want int
	}{
		{1, 1, -1},        // 1/(2·1) = 0.5
		{2, 1, 0},         // exactly 1
		{3, 1, 0},         // 1.5
		{4, 1, 1},         // exactly 2
		{1000, 60, 0},     // 1.40
		{50000, 256, 3},   // 12.2
		{8, 3, -1},        // 8/(6·lg 4) = 0.67
		{0, 100, lamZero}, // W = 0: Λ = 0
	} {
		if got := Lambda(c.w, c.u); got != c.want {
			t.Errorf("Lambda(W=%d, U=%d) = %d, want %d", c.w, c.u, got, c.want)
		}
	}
}

// TestZeroWasteIsExact: with W = 0 the modified controller's last
// iteration is the naive controller, and a reject comes after exactly M
// permits, whichever nodes ask. With M = 37 every capacity is 1 from the
// start; with M = 5000 the first iterations have Λ ≥ 1 and leave permits
// in the bins, which the collections bring back.
func TestZeroWasteIsExact(t *testing.T) {
	for _, c := range []struct{ m, minIter int }{{37, 2}, {5000, 3}} {
		n := line(t, 20, c.m, 0, true)
		rnd := rand.New(rand.NewPCG(3, 4))
		permits, rejects := 0, 0
		for range c.m + 40 {
			n.events = nil
			n.request(proc.ID(rnd.IntN(20)))
			for _, e := range n.events {
				switch e.Kind {
				case proc.EvPermit:
					permits++
				case proc.EvReject:
					if permits != c.m {
						t.Fatalf("M=%d: reject after %d permits", c.m, permits)
					}
					rejects++
				}
			}
		}
		if permits != c.m || rejects == 0 {
			t.Errorf("M=%d: %d permits, %d rejects", c.m, permits, rejects)
		}
		if it := n.procs[0].(*Node).Iterations; it < c.minIter {
			t.Errorf("M=%d: %d iterations, want at least %d", c.m, it, c.minIter)
		}
	}
}
