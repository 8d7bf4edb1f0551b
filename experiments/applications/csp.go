package applications

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/bidding"
	"github.com/allot-dev/allot/algo/socialcsp"
	"github.com/allot-dev/allot/experiments/study"
	"github.com/allot-dev/allot/experiments/sweep"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/report"
)

// band is the Social-CSP network: v·t senders and k·t partners; sender u's
// neighbours are the 2k partners from u·k on (mod k·t), so each partner has
// 2v possible senders. Each communication names k of the sender's 2k
// neighbours, chosen at run time.
func band(k, v, t int) (*algo.Problem, func(proc.ID, *rand.Rand) proc.Request, error) {
	m := k * t
	if 2*k > m {
		return nil, nil, fmt.Errorf("band: %d partners cannot give each sender %d neighbours", m, 2*k)
	}
	sets := make([][]proc.ResID, v*t)
	for u := range sets {
		for j := 0; j < 2*k; j++ {
			sets[u] = append(sets[u], proc.ResID((u*k+j)%m))
		}
		slices.Sort(sets[u])
	}
	g, err := algo.ConflictGraph(len(sets), sets)
	if err != nil {
		return nil, nil, err
	}
	pb := &algo.Problem{Kind: algo.Exclusive, Users: len(sets), Resources: m, MaxSets: sets, Conflict: g, MaxDemand: k}
	next := func(u proc.ID, r *rand.Rand) proc.Request {
		nb := sets[u]
		pick := make([]proc.ResID, 0, k)
		for _, i := range r.Perm(len(nb))[:k] {
			pick = append(pick, nb[i])
		}
		slices.Sort(pick)
		return proc.Request{Res: pick}
	}
	return pb, next, nil
}

// rvOut is one Social-CSP run: the mean rendezvous time in rounds, the
// bound 2eβkv (v the senders a partner may have) plus the two message
// delays of the values and their acknowledgements, and the outputs made.
type rvOut struct {
	Mean, Bound float64 // rounds
	Outputs     int
}

// rendezvous runs extended outputs over uniform bidding on band(k, v, t);
// a violation of exclusion or of the rendezvous rules is an error.
func rendezvous(k, v, t int, seed uint64, requests int) (rvOut, error) {
	pb, next, err := band(k, v, t)
	if err != nil {
		return rvOut{}, err
	}
	run, err := simulate(socialcsp.For(bidding.Algorithm), pb, next, seed, requests)
	if err != nil {
		return rvOut{}, err
	}
	if run.violations > 0 {
		return rvOut{}, fmt.Errorf("Social-CSP k=%d v=%d t=%d seed %d: %v", k, v, t, seed, run.first)
	}
	round := roundTicks(pb)
	return rvOut{
		Mean:    mean(waits(run.recs)) / round,
		Bound:   2*math.E*beta(pb)*float64(k*2*v) + 2*delay/round,
		Outputs: run.outputs,
	}, nil
}

// cspGrid: a k-way rendezvous completes in O(kv) mean time.
func cspGrid(ctx context.Context, o study.Options) ([]study.Claim, error) {
	ks, vs, t, requests := []int{2, 3, 4, 6}, []int{1, 2, 3, 4}, 4, 3000
	if o.Quick {
		ks, vs, requests = []int{2, 3, 4}, []int{1, 2}, 400
	}
	type point struct{ k, v int }
	var pts []point
	var keys []string
	for _, k := range ks {
		for _, v := range vs {
			pts = append(pts, point{k, v})
			keys = append(keys, fmt.Sprintf("k%d-v%d", k, 2*v))
		}
	}
	outs, err := sweep.Each(ctx, o.Points, "applications-csp-grid", keys, func(i int) (rvOut, error) {
		return rendezvous(pts[i].k, pts[i].v, t, seedOf(o.Seed, 4, i), requests)
	})
	if err != nil {
		return nil, err
	}
	var kv, means, bounds []float64
	outputs := 0
	for i, pt := range pts {
		kv, means, bounds = append(kv, float64(pt.k*2*pt.v)), append(means, outs[i].Mean), append(bounds, outs[i].Bound)
		outputs += outs[i].Outputs
	}
	v := linearInKV(kv, means, bounds)
	if err := figure(o, "applications-csp-kv.svg", report.Figure{Title: "Social-CSP: k-way rendezvous over uniform bidding", XLabel: "k·v", YLabel: "mean rendezvous time (rounds)",
		Series: sortedAll([]report.Series{{Name: "measured (k, v)", X: kv, Y: means, Points: true}, {Name: "2eβkv + 2 delays", X: kv, Y: bounds, Dashed: true}})}); err != nil {
		return nil, err
	}
	var vv []int
	for _, x := range vs {
		vv = append(vv, 2*x)
	}
	return []study.Claim{{
		ID: "applications/csp-mean-kv", Paper: paper + " Ex. 2",
		Claim: "an extended output to k partners, each wanted by at most v senders, completes its rendezvous in O(kv) mean time",
		Measured: fmt.Sprintf("band networks of %d copies, k ∈ %v × v ∈ %v, partners chosen at run time among 2k neighbours, %d rendezvous each (%d outputs, every one matched by its k inputs, each value delivered once): fitted exponent against kv %.2f ± %.2f, largest mean/bound = %.3f (pass: the exponent's 95%% interval above 0 and below 1.5, halfway to quadratic; every mean ≤ 2eβkv + 2 delays)",
			t, ks, vv, requests, outputs, v.Exponent, v.Half, v.Worst),
		Figures: map[string]float64{"requests": float64(requests), "outputs": float64(outputs), "exponent": v.Exponent, "exponent_ci95": v.Half, "largest_mean_over_bound": v.Worst},
		Pass:    v.Pass,
	}}, nil
}

// cspSize: the rendezvous time does not depend on the system's size.
func cspSize(ctx context.Context, o study.Options) ([]study.Claim, error) {
	k, v, ts, requests := 3, 2, []int{4, 8, 16, 32}, 6000
	if o.Quick {
		requests = 3000
	}
	keys := make([]string, len(ts))
	for i, t := range ts {
		keys[i] = fmt.Sprintf("t%d", t)
	}
	outs, err := sweep.Each(ctx, o.Points, "applications-csp-size", keys, func(i int) (rvOut, error) {
		return rendezvous(k, v, ts[i], seedOf(o.Seed, 5, i), requests)
	})
	if err != nil {
		return nil, err
	}
	var n, means []float64
	figs := map[string]float64{"k": float64(k), "v": float64(2 * v), "requests": float64(requests)}
	var parts []string
	for i, t := range ts {
		procs := float64(v*t + k*t)
		n, means = append(n, procs), append(means, outs[i].Mean)
		figs[fmt.Sprintf("processes_%d_mean_rounds", int(procs))] = outs[i].Mean
		parts = append(parts, fmt.Sprintf("%d processes %.2f", int(procs), outs[i].Mean))
	}
	f := flat(means)
	figs["spread"] = f.Spread
	if err := figure(o, "applications-csp-size.svg", report.Figure{Title: fmt.Sprintf("Social-CSP: rendezvous time against the system's size, k=%d v=%d", k, 2*v),
		XLabel: "processes", YLabel: "mean rendezvous time (rounds)", Series: []report.Series{{Name: "measured", X: n, Y: means, Points: true}}}); err != nil {
		return nil, err
	}
	return []study.Claim{{
		ID: "applications/csp-size-independent", Paper: paper + " Ex. 2",
		Claim: "the mean rendezvous time is independent of the size of the system",
		Measured: fmt.Sprintf("k=%d, v=%d, band networks of %d to %d processes, %d rendezvous each: mean rounds %s; spread (largest/smallest − 1) %.3f (pass: spread ≤ %.2f over a factor %d in size)",
			k, 2*v, int(n[0]), int(n[len(n)-1]), requests, strings.Join(parts, ", "), f.Spread, sizeTolerance, ts[len(ts)-1]/ts[0]),
		Figures: figs,
		Pass:    f.Pass,
	}}, nil
}
