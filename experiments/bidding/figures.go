package bidding

import (
	"fmt"
	"slices"

	"github.com/allot-dev/allot/experiments/sweep"
	"github.com/allot-dev/allot/report"
)

// bidBatches is how many consecutive batches the requests of one run are
// cut into for a batch-means interval: the responses of one run are not
// independent, the means of long batches nearly are.
const bidBatches = 20

// bidBatchHalf is the 95 % half-width of the mean response (in rounds) of
// recs, by batch means over bidBatches consecutive batches.
func bidBatchHalf(recs []bidReq, round float64) float64 {
	size := len(recs) / bidBatches
	if size == 0 {
		return 0
	}
	means := make([]float64, bidBatches)
	for b := range means {
		means[b] = bidMeanRounds(recs[b*size:(b+1)*size], round)
	}
	_, half := sweep.CI95(means)
	return half
}

// kvFigure is bidding-kv.svg: the mean response at each (k, v) against
// k·v, one marker shape and colour per k (so the pairs with the same k·v
// are told apart), 95 % intervals, the least-squares line a + b·kv the
// claim fits, and Theorem 4's bound.
func kvFigure(kOf []int, xs, ys, halves, bounds []float64, a, b, r2 float64) report.Figure {
	var ss []report.Series
	ks := slices.Compact(slices.Sorted(slices.Values(kOf)))
	for _, k := range ks {
		s := report.Series{Name: fmt.Sprintf("measured, k = %d", k), Points: true}
		for i := range xs {
			if kOf[i] == k {
				s.X, s.Y, s.Err = append(s.X, xs[i]), append(s.Y, ys[i]), append(s.Err, halves[i])
			}
		}
		ss = append(ss, s)
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	ss = append(ss,
		report.Series{Name: fmt.Sprintf("fit %.2f + %.3f·kv (R² = %.3f)", a, b, r2), X: []float64{lo, hi}, Y: []float64{a + b*lo, a + b*hi}},
		bidPerX(report.Series{Name: "2eβkv (Theorem 4)", X: xs, Y: bounds, Dashed: true}))
	return report.Figure{
		Title: "uniform bidding: mean response vs k·v", XLabel: "k·v", YLabel: "mean response (rounds)", Series: ss,
		Caption: "Each marker is one (k, v) on a band network: its shape and colour give k, its x is k·v (v = k·v / k). Error bars: 95 % intervals of the mean by batch means within the run. The solid line is the least-squares fit the claim judges; the dashed one Theorem 4's bound 2eβkv.",
	}
}
