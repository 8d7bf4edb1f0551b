package applications

import (
	"math"

	"github.com/allot-dev/allot/experiments/sweep"
)

// The pass rules of the claims, as functions of the measured series alone,
// so that a test can hand each a series that breaks its claim.

// linearVerdict judges "the mean grows as O(kv)": means[i] measured at
// kv[i], bound[i] the paper's bound there (2eβkv rounds).
type linearVerdict struct {
	Exponent, Half float64 // the fitted exponent against kv, 95 % half-width
	Worst          float64 // the largest mean/bound
	Pass           bool
}

// linearInKV passes when the fitted exponent of the means against kv is
// that of linear growth (sweep.Linear: its 95 % interval above 0 and
// below 1.5, so that a series growing like (kv)² is rejected — a rule on
// the R² of a line accepted one, R² 0.92–0.93 on these grids) and none
// exceeds its bound.
func linearInKV(kv, means, bound []float64) linearVerdict {
	g := sweep.Linear(kv, means)
	v := linearVerdict{Exponent: g.E, Half: g.Half}
	for i := range means {
		v.Worst = max(v.Worst, means[i]/bound[i])
	}
	v.Pass = g.Pass && v.Worst <= 1
	return v
}

// meanCI is a mean and the half-width of its 99 % interval (normal: the
// samples are hundreds of lock times), over N samples.
type meanCI struct {
	Mean, Half float64
	N          int
}

func ci99(xs []float64) meanCI {
	c := meanCI{Mean: mean(xs), N: len(xs)}
	if len(xs) < 2 {
		return c
	}
	var ss float64
	for _, x := range xs {
		ss += (x - c.Mean) * (x - c.Mean)
	}
	c.Half = 2.576 * math.Sqrt(ss/float64(len(xs)-1)/float64(len(xs)))
	return c
}

// faster passes when a is below b beyond doubt: a's 99 % interval lies
// wholly below b's (with two samples each at least: one has no interval).
func faster(a, b meanCI) bool { return a.N >= 2 && b.N >= 2 && a.Mean+a.Half < b.Mean-b.Half }

// mean is the mean of xs, 0 for none (a size no request drew).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// chainsVerdict judges "ordered locking's waits chain as k and v grow":
// its mean lock time grows faster in kv than an allocator's that takes a
// readset whole.
type chainsVerdict struct {
	Ordered, Whole float64 // log–log slopes of the means against kv
	Last           float64 // ordered/whole at the largest kv
	Pass           bool
}

// chains passes when ordered's log–log slope exceeds whole's and ordered
// is the slower at the largest kv.
func chains(kv, ordered, whole []float64) chainsVerdict {
	lx, lo, lw := make([]float64, len(kv)), make([]float64, len(kv)), make([]float64, len(kv))
	last := 0
	for i := range kv {
		lx[i], lo[i], lw[i] = math.Log(kv[i]), math.Log(ordered[i]), math.Log(whole[i])
		if kv[i] > kv[last] || kv[i] == kv[last] && ordered[i]/whole[i] < ordered[last]/whole[last] {
			last = i // the largest kv; of several, the least favourable
		}
	}
	_, so, _ := sweep.LineFit(lx, lo)
	_, sw, _ := sweep.LineFit(lx, lw)
	v := chainsVerdict{Ordered: so, Whole: sw, Last: ordered[last] / whole[last]}
	v.Pass = so > sw && v.Last > 1
	return v
}

// sizeTolerance is how far the mean rendezvous time may move over the
// sizes measured for "independent of the system's size": 10 %, while the
// sizes span a factor of 8 (a growth of even log n would move it by 3×).
const sizeTolerance = 0.10

// flatVerdict judges "the mean does not depend on the system's size".
type flatVerdict struct {
	Spread float64 // largest mean / smallest mean − 1
	Pass   bool
}

// flat passes when every mean is within sizeTolerance of every other.
func flat(means []float64) flatVerdict {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range means {
		lo, hi = min(lo, m), max(hi, m)
	}
	v := flatVerdict{Spread: hi/lo - 1}
	v.Pass = v.Spread <= sizeTolerance
	return v
}
