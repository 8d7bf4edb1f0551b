package locality

import (
	"context"
	"fmt"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/doorway"
	"github.com/allot-dev/allot/algo/threshold"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/experiments/study"
	"github.com/allot-dev/allot/experiments/sweep"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// overtakes counts, from the events, how often P's neighbours eat while P
// is hungry: the most in one hungry spell, and whether P was still hungry
// when the run ended. It is a proc.Sink.
type overtakes struct {
	P       proc.ID
	Nbr     []proc.ID
	At      proc.Time // a checkpoint: MaxAt is Max as of this tick
	waiting bool
	cur     int
	Max     int  // the most neighbour meals in one hungry spell of P
	MaxAt   int  // the same up to At (a spell still open then counted so far)
	seenAt  bool // MaxAt is taken
	Meals   int  // P's meals
}

// Event implements proc.Sink.
func (o *overtakes) Event(e proc.Event) {
	if !o.seenAt && e.Time >= o.At {
		o.checkpoint()
	}
	switch {
	case e.P == o.P && e.Kind == proc.EvRequest:
		o.waiting, o.cur = true, 0
	case e.P == o.P && e.Kind == proc.EvEnter:
		o.waiting, o.Meals = false, o.Meals+1
		o.Max = max(o.Max, o.cur)
	case e.Kind == proc.EvEnter && o.waiting && slices.Contains(o.Nbr, e.P):
		o.cur++
	}
}

func (o *overtakes) checkpoint() {
	o.seenAt, o.MaxAt = true, o.Max
	if o.waiting {
		o.MaxAt = max(o.MaxAt, o.cur)
	}
}

// close ends the count at the end of the run.
func (o *overtakes) close() {
	if !o.seenAt {
		o.checkpoint()
	}
	if o.waiting {
		o.Max = max(o.Max, o.cur)
	}
}

// overtakeRun runs a on a centre whose every neighbour has static priority
// over it (colour 0 against the centre's 1), every process hungry again at
// once after eating, up to horizon, and counts the centre's overtakes.
func overtakeRun(a algo.Algorithm, seed uint64, at, horizon proc.Time) (overtakes, error) {
	g, x, err := highCentreStar(3, 0)
	if err != nil {
		return overtakes{}, err
	}
	pb := algo.DiningProblem(g)
	pb.FIFO = a.NeedsFIFO
	ps, err := a.Build(pb)
	if err != nil {
		return overtakes{}, err
	}
	o := overtakes{P: x, Nbr: g.Neighbors(x), At: at}
	cfg := sim.Config{Seed: seed, Horizon: horizon, Sink: &o,
		Net:  sim.Network{Delay: dist.Uniform(1, 10), FIFO: a.NeedsFIFO},
		Work: app.Workload{Think: dist.Const(0), CS: dist.Uniform(5, 15)}}
	if _, err := sim.Run(cfg, pb, ps); err != nil {
		return overtakes{}, err
	}
	o.close()
	return o, nil
}

// overtakeClaims: §4.4's unbounded overtaking without the doorway. Each
// run goes to the longer horizon and is read at the shorter one too (the
// simulator is deterministic: the first part of the longer run is the
// shorter run).
func overtakeClaims(ctx context.Context, o study.Options) ([]study.Claim, error) {
	seeds, short, long := 30, proc.Time(2000), proc.Time(8000)
	if o.Quick {
		seeds = 12
	}
	algos := []algo.Algorithm{doorway.NoDoorway, doorway.Algorithm, threshold.Algorithm}
	n := len(algos) * seeds
	outs, err := sweep.Each(ctx, o.Points, "locality-overtake", keys(n), func(i int) (overtakes, error) {
		return overtakeRun(algos[i/seeds], sweep.Seed(o.Seed, uint64(i%seeds), 6), short, long)
	})
	if err != nil {
		return nil, err
	}
	figs := map[string]float64{"seeds": float64(seeds), "short": float64(short), "long": float64(long)}
	var parts []string
	grows := make([]bool, len(algos))
	ratio := float64(long) / float64(short)
	for ai, a := range algos {
		var lo, hi, diff []float64
		meals := 0
		for s := range seeds {
			out := outs[ai*seeds+s]
			lo, hi = append(lo, float64(out.MaxAt)), append(hi, float64(out.Max))
			diff = append(diff, float64(out.Max-out.MaxAt))
			meals += out.Meals
		}
		ml, _ := sweep.MeanSE(lo)
		mh, _ := sweep.MeanSE(hi)
		md, sd := sweep.MeanSE(diff)
		grows[ai] = withTheRun(ml, mh, ratio)
		parts = append(parts, fmt.Sprintf("%s: %.1f by tick %d, %.1f by %d (×%.2f; paired growth %.1f ± %.1f), largest %d, the centre ate %.1f times a run",
			a.Name, ml, short, mh, long, mh/ml, md, sd, int(slices.Max(hi)), float64(meals)/float64(seeds)))
		figs[a.Name+"/short"], figs[a.Name+"/long"], figs[a.Name+"/growth"], figs[a.Name+"/growth_se"] = ml, mh, md, sd
	}
	return []study.Claim{{
		ID: "locality/doorway-overtaking", Paper: paperSPS + " §4.4, §5",
		Claim: "with static priorities and no doorway, neighbours with priority overtake a hungry process without bound; behind the doorway (and with the threshold algorithm's dynamic priorities) they do not",
		Measured: fmt.Sprintf("a centre below its 3 neighbours, everyone hungry again at once after eating, %d seeds; the most neighbour meals during one hungry spell of the centre (mean over seeds) — %s; rule: no doorway's grows at least half as fast as the run (×%.0f ticks, so ×%.0f), the doorway's and threshold's do not",
			seeds, join(parts), ratio, ratio/2),
		Figures: figs,
		Pass:    grows[0] && !grows[1] && !grows[2],
	}}, nil
}

// withTheRun: the most overtakes in one spell grew from lo, by the shorter
// horizon, to hi, by the longer, at least half as fast as the run, ratio
// times longer: a count without bound keeps pace with the run, a bounded
// one levels off (the record of a bounded count creeps up to its bound,
// which is why a paired growth test would not do).
func withTheRun(lo, hi, ratio float64) bool { return lo > 0 && hi >= lo*ratio/2 }

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "; "
		}
		out += x
	}
	return out
}
