package rhee

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/experiments/sweep"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// setModel is how each user's resource set is drawn, once per run.
type setModel int

const (
	// perResource: each user needs each resource independently with
	// probability p (an empty set is drawn again) — §6: "the probability
	// that a user requires a resource a is the same as the probability
	// that it requires a resource b". The x-axis varies p.
	perResource setModel = iota
	// fixedSize: each user needs exactly k resources, uniform among the
	// k-sets. Not the paper's model; a sensitivity series: with equal sets
	// a queue has no gaps for a smaller request to fill.
	fixedSize
)

func (m setModel) String() string {
	if m == perResource {
		return "per-resource"
	}
	return "fixed-size"
}

// draw builds the run's problem: every user's set, its conflict graph,
// and the request generator (a user asks for its whole set every time).
func (m setModel) draw(users, resources int, param float64, rnd *rand.Rand) (*algo.Problem, func(proc.ID, *rand.Rand) proc.Request, error) {
	sets := make([][]proc.ResID, users)
	for u := range sets {
		for len(sets[u]) == 0 {
			switch m {
			case perResource:
				for r := 0; r < resources; r++ {
					if rnd.Float64() < param {
						sets[u] = append(sets[u], proc.ResID(r))
					}
				}
			case fixedSize:
				for _, r := range rnd.Perm(resources)[:int(param)] {
					sets[u] = append(sets[u], proc.ResID(r))
				}
				slices.Sort(sets[u])
			}
		}
	}
	g, err := algo.ConflictGraph(users, sets)
	if err != nil {
		return nil, nil, err
	}
	most := 0
	for _, s := range sets {
		most = max(most, len(s))
	}
	pb := &algo.Problem{Kind: algo.Exclusive, Users: users, Resources: resources, MaxSets: sets, Conflict: g, MaxDemand: most}
	return pb, func(u proc.ID, _ *rand.Rand) proc.Request { return proc.Request{Res: sets[u]} }, nil
}

// pFor is the inclusion probability whose conflict graphs have about x
// conflicting users on average. A user's set, drawn again while empty,
// holds each resource with probability q = p/(1 − (1−p)^R); two users
// conflict unless no resource is in both sets, so x ≈ (U−1)·(1 − (1 −
// q²)^R), which grows with p from (U−1)/R (one resource each): pFor
// solves it by bisection. It only places the x points; the figures and
// claims use the measured average degree.
func pFor(x float64, users, resources int) float64 {
	deg := func(p float64) float64 {
		q := p / (1 - math.Pow(1-p, float64(resources)))
		return float64(users-1) * (1 - math.Pow(1-q*q, float64(resources)))
	}
	lo, hi := 1e-9, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if deg(mid) < x {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// batches is the number of batch means a run's precision is judged from.
const batches = 20

// outcome is one run, measured from its events after the warm-up.
type outcome struct {
	Resp   float64 // mean response time (ticks)
	Msgs   float64 // messages per answered request
	Layer  float64 // of which the modular layer's own (kind modular.*)
	DecAdv float64 // of which dec and advance: positions advanced
	Size   float64 // resources per request
	Degree float64 // average number of conflicting users (static graph)
	// The run's own precision (§6: run lengths adjusted until the 95 %
	// intervals are within 5 %): the half-widths of the batch-means
	// intervals of the mean response and of messages per entry, relative
	// to the means, and the answers measured.
	RespRel, MsgsRel float64
	Answers          int
	// MaxDeg is the static conflict graph's largest degree; Conflicting
	// the mean number of users in their trying or critical region whose
	// sets meet a request's when it is made (§3's "conflicts at time t").
	MaxDeg      int
	Conflicting float64
	// MaxResp and MaxCS are the longest response and critical section
	// measured (ticks): Theorem 5.12's worst case and its c.
	MaxResp, MaxCS float64
}

// meter reads a run's events: it discards the first warm answers, then
// measures response times, messages (by kind) and request sizes, in
// batches of batch answers.
type meter struct {
	warm, batch int
	asked       []proc.Time // per user: request tick + 1, 0 when none is open
	entered     []proc.Time
	size        []int
	open        [][]uint64 // per user: the set of its open request, nil when none
	answered    int
	n           int
	resp        float64
	res         int64
	msgs        int64
	layer       int64
	decAdv      int64
	conflicting int64
	requests    int64
	maxResp     proc.Time
	maxCS       proc.Time
	bResp       [batches]float64
	bMsgs       [batches]int64
	bN          [batches]int
}

func (m *meter) at() int { return min(batches-1, max(0, m.answered-m.warm)/m.batch) }

func (m *meter) Event(e proc.Event) {
	switch e.Kind {
	case proc.EvRequest:
		m.asked[e.P], m.size[e.P] = e.Time+1, len(e.Res)
		set := make([]uint64, 2)
		for _, r := range e.Res {
			for int(r)/64 >= len(set) {
				set = append(set, 0)
			}
			set[r/64] |= 1 << (r % 64)
		}
		if m.answered >= m.warm {
			m.requests++
			for u, o := range m.open {
				if o != nil && proc.ID(u) != e.P && meets(o, set) {
					m.conflicting++
				}
			}
		}
		m.open[e.P] = set
	case proc.EvEnter:
		m.answered++
		m.entered[e.P] = e.Time
		if m.answered > m.warm && m.asked[e.P] > 0 {
			r := e.Time - (m.asked[e.P] - 1)
			m.n++
			m.resp += float64(r)
			m.res += int64(m.size[e.P])
			m.maxResp = max(m.maxResp, r)
			b := min(batches-1, (m.answered-m.warm-1)/m.batch)
			m.bResp[b] += float64(r)
			m.bN[b]++
		}
		m.asked[e.P] = 0
	case proc.EvExit:
		m.open[e.P] = nil
		if m.answered > m.warm {
			m.maxCS = max(m.maxCS, e.Time-m.entered[e.P])
		}
	case proc.EvSend:
		if m.answered < m.warm {
			return
		}
		m.msgs++
		m.bMsgs[m.at()]++
		if len(e.Msg) > 8 && e.Msg[:8] == "modular." {
			m.layer++
			if e.Msg == "modular.dec" || e.Msg == "modular.advance" {
				m.decAdv++
			}
		}
	}
}

func meets(a, b []uint64) bool {
	for i := range min(len(a), len(b)) {
		if a[i]&b[i] != 0 {
			return true
		}
	}
	return false
}

// precision is the relative half-widths of the 95 % batch-means
// intervals of the mean response and of messages per entry.
func (m *meter) precision() (resp, msgs float64) {
	var rs, ms []float64
	for b := range batches {
		if m.bN[b] == 0 {
			continue
		}
		rs = append(rs, m.bResp[b]/float64(m.bN[b]))
		ms = append(ms, float64(m.bMsgs[b])/float64(m.bN[b]))
	}
	mr, hr := sweep.CI95(rs)
	mm, hm := sweep.CI95(ms)
	if len(rs) < 2 || mr == 0 || mm == 0 {
		return 1, 1 // no interval: as wide as the mean
	}
	return hr / mr, hm / mm
}

// simulate runs a on one drawn problem: the §6 model (message delay,
// think time, a critical section the sum of one service time per resource,
// one tick per receive and per send), warm answers discarded, then
// measured answers measured — and, as §6 adjusts run lengths, measured
// again over twice as many answers, up to c.grow times, while the run's
// batch-means intervals are wider than 5 % of its means. cs, when set,
// replaces the critical section by a constant (the subroutine's runs of
// Theorem 5.12).
func simulate(a algo.Algorithm, pb *algo.Problem, next func(proc.ID, *rand.Rand) proc.Request, c config, service int, cs proc.Time, seed uint64) (outcome, error) {
	var out outcome
	var err error
	for measured, i := c.measured, 0; ; measured, i = 2*measured, i+1 {
		out, err = simulateOnce(a, pb, next, c, service, cs, measured, seed)
		if err != nil || i >= c.grow || max(out.RespRel, out.MsgsRel) <= 0.05 {
			return out, err
		}
	}
}

func simulateOnce(a algo.Algorithm, pb *algo.Problem, next func(proc.ID, *rand.Rand) proc.Request, c config, service int, cs proc.Time, measured int, seed uint64) (outcome, error) {
	pb.FIFO = a.NeedsFIFO
	procs, err := a.Build(pb)
	if err != nil {
		return outcome{}, err
	}
	serv := dist.Uniform(1, proc.Time(2*service-1)) // mean S
	m := meter{warm: c.warm, batch: max(1, measured/batches), asked: make([]proc.Time, pb.Users), entered: make([]proc.Time, pb.Users),
		size: make([]int, pb.Users), open: make([][]uint64, pb.Users)}
	var excl check.Exclusion
	res, err := sim.Run(sim.Config{
		Seed:          seed,
		Requests:      c.warm + measured,
		TraceMessages: true,
		Sink:          proc.Sinks{&m, &excl},
		Net:           sim.Network{Delay: c.delay, FIFO: a.NeedsFIFO, Cost: 1, SendCost: 1},
		Work: app.Workload{Think: c.think, Next: next, CSTime: func(_ proc.ID, r proc.Request, rnd *rand.Rand) proc.Time {
			if cs > 0 {
				return cs
			}
			var t proc.Time
			for range r.Res {
				t += serv.Draw(rnd)
			}
			return t
		}},
	}, pb, procs)
	switch {
	case err != nil:
		return outcome{}, err
	case !excl.OK():
		return outcome{}, fmt.Errorf("exclusion violated: %s", excl.First[0])
	case res.Deadlock:
		return outcome{}, fmt.Errorf("deadlock at t=%d", res.End)
	case m.n == 0:
		return outcome{}, fmt.Errorf("nothing answered after the warm-up")
	}
	n := float64(m.n)
	rr, mr := m.precision()
	return outcome{
		Resp: m.resp / n, Msgs: float64(m.msgs) / n, Layer: float64(m.layer) / n, DecAdv: float64(m.decAdv) / n,
		Size: float64(m.res) / n, Degree: 2 * float64(pb.Conflict.M()) / float64(pb.Users),
		RespRel: rr, MsgsRel: mr, Answers: m.n,
		MaxDeg: pb.Conflict.MaxDegree(), Conflicting: float64(m.conflicting) / float64(max(1, m.requests)),
		MaxResp: float64(m.maxResp), MaxCS: float64(m.maxCS),
	}, nil
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x726865)) }
