package applications

import (
	"context"
	"fmt"
	"math"

	"github.com/allot-dev/allot/algo/bidding"
	"github.com/allot-dev/allot/algo/socialcsp"
	"github.com/allot-dev/allot/experiments/study"
	"github.com/allot-dev/allot/experiments/sweep"
)

// inputRendezvous runs extended inputs (Reif and Spirakis Ex. 2, command
// (2)) over uniform bidding on band(k, v, t): the receivers are the users,
// the partners whose values they gather the granting processes. A
// violation of exclusion or of the rendezvous rules is an error.
func inputRendezvous(k, v, t int, seed uint64, requests int) (rvOut, error) {
	pb, next, err := band(k, v, t)
	if err != nil {
		return rvOut{}, err
	}
	run, err := simulate(socialcsp.InputFor(bidding.Algorithm), pb, next, seed, requests)
	if err != nil {
		return rvOut{}, err
	}
	if run.violations > 0 {
		return rvOut{}, fmt.Errorf("Social-CSP input k=%d v=%d t=%d seed %d: %v", k, v, t, seed, run.first)
	}
	round := roundTicks(pb)
	// The bound of the output's claim: the wait for the k partners, then
	// the two message delays of asking and receiving.
	return rvOut{
		Mean:    mean(waits(run.recs)) / round,
		Bound:   2*math.E*beta(pb)*float64(k*2*v) + 2*delay/round,
		Outputs: run.outputs,
	}, nil
}

// cspInputGrid: a k-way extended input completes in O(kv) mean time, the
// claim of the output side (cspGrid) for §1.6's other command, judged by
// the same rule.
func cspInputGrid(ctx context.Context, o study.Options) ([]study.Claim, error) {
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
	outs, err := sweep.Each(ctx, o.Points, "applications-csp-input-grid", keys, func(i int) (rvOut, error) {
		return inputRendezvous(pts[i].k, pts[i].v, t, seedOf(o.Seed, 6, i), requests)
	})
	if err != nil {
		return nil, err
	}
	var kv, means, bounds []float64
	inputs := 0
	for i, pt := range pts {
		kv, means, bounds = append(kv, float64(pt.k*2*pt.v)), append(means, outs[i].Mean), append(bounds, outs[i].Bound)
		inputs += outs[i].Outputs
	}
	v := linearInKV(kv, means, bounds)
	var vv []int
	for _, x := range vs {
		vv = append(vv, 2*x)
	}
	return []study.Claim{{
		ID: "applications/csp-input-mean-kv", Paper: paper + " Ex. 2",
		Claim: "an extended input from k partners, each wanted by at most v receivers, completes its rendezvous in O(kv) mean time (the receiver the user, its partners the granting processes)",
		Measured: fmt.Sprintf("band networks of %d copies, k ∈ %v × v ∈ %v, partners chosen at run time among 2k neighbours, %d rendezvous each (%d extended inputs, every one receiving its k values, each once): mean ∝ (kv)^e, e = %.2f ± %.2f, largest mean/bound = %.3f (the rule of csp-mean-kv)",
			t, ks, vv, requests, inputs, v.Exponent, v.Half, v.Worst),
		Figures: map[string]float64{"requests": float64(requests), "inputs": float64(inputs), "exponent": v.Exponent, "exponent_ci95": v.Half, "largest_mean_over_bound": v.Worst},
		Pass:    v.Pass,
	}}, nil
}
