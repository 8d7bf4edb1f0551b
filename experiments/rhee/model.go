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

// outcome is one run, measured from its events after the warm-up.
type outcome struct {
	Resp   float64 // mean response time (ticks)
	Msgs   float64 // messages per answered request
	Layer  float64 // of which the modular layer's own (kind modular.*)
	DecAdv float64 // of which dec and advance: positions advanced
	Size   float64 // resources per request
	Degree float64 // average number of conflicting users
}

// meter reads a run's events: it discards the first warm answers, then
// measures response times, messages (by kind) and request sizes.
type meter struct {
	warm     int
	asked    []proc.Time // per user: request tick + 1, 0 when none is open
	size     []int
	answered int
	n        int
	resp     float64
	res      int64
	msgs     int64
	layer    int64
	decAdv   int64
}

func (m *meter) Event(e proc.Event) {
	switch e.Kind {
	case proc.EvRequest:
		m.asked[e.P], m.size[e.P] = e.Time+1, len(e.Res)
	case proc.EvEnter:
		m.answered++
		if m.answered > m.warm && m.asked[e.P] > 0 {
			m.n++
			m.resp += float64(e.Time - (m.asked[e.P] - 1))
			m.res += int64(m.size[e.P])
		}
		m.asked[e.P] = 0
	case proc.EvSend:
		if m.answered < m.warm {
			return
		}
		m.msgs++
		if len(e.Msg) > 8 && e.Msg[:8] == "modular." {
			m.layer++
			if e.Msg == "modular.dec" || e.Msg == "modular.advance" {
				m.decAdv++
			}
		}
	}
}

// simulate runs a on one drawn problem: the §6 model (message delay,
// think time, a critical section the sum of one service time per resource,
// one tick per receive and per send), warm answers discarded, then
// measured answers measured.
func simulate(a algo.Algorithm, pb *algo.Problem, next func(proc.ID, *rand.Rand) proc.Request, c config, service int, seed uint64) (outcome, error) {
	pb.FIFO = a.NeedsFIFO
	procs, err := a.Build(pb)
	if err != nil {
		return outcome{}, err
	}
	serv := dist.Uniform(1, proc.Time(2*service-1)) // mean S
	m := meter{warm: c.warm, asked: make([]proc.Time, pb.Users), size: make([]int, pb.Users)}
	var excl check.Exclusion
	res, err := sim.Run(sim.Config{
		Seed:          seed,
		Requests:      c.warm + c.measured,
		TraceMessages: true,
		Sink:          proc.Sinks{&m, &excl},
		Net:           sim.Network{Delay: c.delay, FIFO: a.NeedsFIFO, Cost: 1, SendCost: 1},
		Work: app.Workload{Think: c.think, Next: next, CSTime: func(_ proc.ID, r proc.Request, rnd *rand.Rand) proc.Time {
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
	return outcome{
		Resp: m.resp / n, Msgs: float64(m.msgs) / n, Layer: float64(m.layer) / n, DecAdv: float64(m.decAdv) / n,
		Size: float64(m.res) / n, Degree: 2 * float64(pb.Conflict.M()) / float64(pb.Users),
	}, nil
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x726865)) }
