// Package applications reproduces the applications of Reif and Spirakis
// §1.6 on the resource granting system: static two-phase locking (the
// transactions are users, the data items granting processes) and
// Social-CSP's extended output (the sender a user, its k partners granting
// processes), against the ordered-locking baseline and Rhee's modular
// algorithm. Every measure is read from the event stream: a lock time is a
// request's enter minus its request, a rendezvous is checked by its output
// and input events; only the rounds' length comes from bidding's published
// sizing, to state times in rounds as the paper does.
//
// The paper states the applications' bounds without a proof of their own:
// they are Theorems 4 and 5 read in the applications' terms. Where it is
// silent the choices are these, each said again in the claim it affects:
//
//   - "At most v transactions compete for a lock" is made exact by running
//     v transactions over one database: every one may want every item.
//   - Readsets are drawn at run time, uniformly or with a Zipf skew over
//     the items (hot items), of k items, or of 1..k for mixed sizes.
//   - A transaction holds its locks for its service time of μ steps, then
//     asks again at once (think time 0), so every lock keeps its v
//     competitors, as in the bidding reproduction.
//   - A Social-CSP sender chooses its k partners at run time among 2k
//     neighbours (a band network in which each partner has 2v possible
//     senders: v competitors of the claim is that 2v).
package applications

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/bidding"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/experiments/study"
	"github.com/allot-dev/allot/experiments/sweep"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/report"
	"github.com/allot-dev/allot/sim"
)

// Experiment is `allot repro applications`.
func Experiment() study.Experiment {
	return study.Experiment{
		Name:    "applications",
		Paper:   paper,
		Summary: "§1.6: two-phase locking in O(vk) rounds, priority bidding for mixed readsets, ordered locking's chains; Social-CSP rendezvous in O(kv), whatever the system's size",
		Run: func(ctx context.Context, o study.Options) ([]study.Claim, error) {
			return study.Steps(ctx, o, txnGrid, txnMixed, txnChains, cspGrid, cspSize, cspInputGrid)
		},
	}
}

const paper = "reif-spirakis §1.6"

// The time model of the bidding reproduction: a step of two ticks,
// messages of one tick (a flag write is seen within a step), service
// times of μ = 2 steps.
const (
	step  = 2
	mu    = 2
	cs    = step * mu
	delay = 1
)

// options are bidding's settings for the time model; other algorithms
// take none.
func options(a algo.Algorithm) map[string]string {
	if len(a.Options) == 0 {
		return nil
	}
	return map[string]string{"step": fmt.Sprint(step), "mu": fmt.Sprint(mu), "ratio": "1"}
}

// roundTicks is the length of a uniform-bidding round on pb, the unit the
// paper counts time in.
func roundTicks(pb *algo.Problem) float64 {
	q := *pb
	q.Options = options(bidding.Algorithm)
	p, err := bidding.NewParams(&q, false)
	if err != nil {
		panic(err) // the problems here are sized for bidding
	}
	return float64(p.RoundTicks())
}

// beta is uniform bidding's β on pb.
func beta(pb *algo.Problem) float64 {
	q := *pb
	q.Options = options(bidding.Algorithm)
	p, err := bidding.NewParams(&q, false)
	if err != nil {
		panic(err)
	}
	return p.Beta
}

// answer is one answered request: when it was asked and entered, and its
// size.
type answer struct {
	asked, entered proc.Time
	n              int
}

func (a answer) wait() float64 { return float64(a.entered - a.asked) }

// answers records every answered request from the events.
type answers struct {
	open []answer // per user: the open request (asked+1, 0 when none)
	recs []answer
}

func (l *answers) Event(e proc.Event) {
	p := int(e.P)
	switch e.Kind {
	case proc.EvRequest:
		for len(l.open) <= p {
			l.open = append(l.open, answer{})
		}
		l.open[p] = answer{asked: e.Time + 1, n: len(e.Res)}
	case proc.EvEnter:
		if p < len(l.open) && l.open[p].asked > 0 {
			r := l.open[p]
			r.asked--
			r.entered = e.Time
			l.recs = append(l.recs, r)
			l.open[p] = answer{}
		}
	}
}

// outcome is one measured run.
type outcome struct {
	recs       []answer
	violations int      // exclusion and rendezvous
	first      []string // the first violations
	outputs    int      // Social-CSP rendezvous seen (outputs and extended inputs)
}

// simulate runs a on pb until requests are answered, lets the open ones
// finish, and records every answer with the checkers' verdicts.
func simulate(a algo.Algorithm, pb *algo.Problem, next func(proc.ID, *rand.Rand) proc.Request, seed uint64, requests int) (outcome, error) {
	q := *pb
	q.Options = options(a)
	ps, err := a.Build(&q)
	if err != nil {
		return outcome{}, fmt.Errorf("%s: %w", a.Name, err)
	}
	var log answers
	var excl check.Exclusion
	var rv check.Rendezvous
	res, err := sim.Run(sim.Config{Seed: seed, Requests: requests, Drain: 1 << 40, Sink: proc.Sinks{&log, &excl, &rv},
		Net:  sim.Network{Delay: dist.Const(delay)},
		Work: app.Workload{Think: dist.Const(0), CS: dist.Const(cs), Next: next}}, &q, ps)
	if err != nil {
		return outcome{}, fmt.Errorf("%s: %w", a.Name, err)
	}
	if res.Open > 0 {
		return outcome{}, fmt.Errorf("%s: %d requests still open at the end", a.Name, res.Open)
	}
	return outcome{recs: log.recs, violations: excl.Violations + rv.Violations, first: append(excl.First, rv.First...), outputs: rv.Outputs + rv.ExtInputs}, nil
}

// seedOf is the seed of a run: the stage and its point.
func seedOf(base uint64, stage, i int) uint64 { return sweep.Seed(base, uint64(stage), uint64(i)) }

func figure(o study.Options, name string, f report.Figure) error {
	if o.OutDir == "" {
		return nil
	}
	return f.Write(filepath.Join(o.OutDir, name))
}

func waits(recs []answer) []float64 {
	out := make([]float64, len(recs))
	for i, r := range recs {
		out[i] = r.wait()
	}
	return out
}
