package bidding

import (
	"math"

	"github.com/allot-dev/allot/experiments/sweep"
)

// The pass rules of the claims, as functions of the measured series alone,
// so that a test can hand each a series that breaks its claim (rules_test.go:
// a quadratic series for "linear", one twice over for a bound).

// linearInKV judges "the mean grows linearly in k·v" on the fitted
// exponent (sweep.Linear), not on the R² of a line, which a series
// growing like (kv)² passes too on this grid.
func linearInKV(kv, means []float64) sweep.Growth { return sweep.Linear(kv, means) }

// withinBounds is the largest ys[i]/bounds[i] and whether it is at most 1:
// every measured value within its bound.
func withinBounds(ys, bounds []float64) (worst float64, ok bool) {
	for i := range ys {
		worst = max(worst, ys[i]/bounds[i])
	}
	return worst, len(ys) > 0 && worst <= 1
}

// meetsRange reports whether an interval [lo, hi] of a measured rate meets
// the paper's range [lower, upper]: the rate is not shown outside it.
func meetsRange(lo, hi, lower, upper float64) bool { return hi >= lower && lo <= upper }

// atLeastBound reports whether every longest wait reaches its lower bound.
func atLeastBound(longest, bound []float64) bool {
	for i := range longest {
		if longest[i] < bound[i] {
			return false
		}
	}
	return len(longest) > 0
}

// quadraticIn judges "Θ(k²)" on the fitted exponent of the means against
// k: its 95 % interval within [1.5, 2.5], halfway to linear and to cubic.
func quadraticIn(ks, means []float64) sweep.Growth {
	e, h := sweep.Exponent(ks, means)
	return sweep.Growth{E: e, Half: h, Pass: e-h >= 1.5 && e+h <= 2.5}
}

// noViolation is the exclusion claims' rule: not one violation.
func noViolation(violations int) bool { return violations == 0 }

// faster reports whether a wait a is below a wait b.
func faster(a, b float64) bool { return a < b }

// polylogLoss reports whether heavy requests under priority bidding wait at
// most polylog times what they wait under uniform bidding.
func polylogLoss(priority, uniform, polylog float64) bool {
	return !math.IsNaN(priority/uniform) && priority/uniform <= polylog
}
