package bidding

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/allot-dev/allot/algo/bidding"
	"github.com/allot-dev/allot/experiments/study"
	"github.com/allot-dev/allot/experiments/sweep"
	"github.com/allot-dev/allot/report"
)

// The ε-response (Theorem 4), the independence of n (§1.3's "real time")
// and the constants of §3.2: the stages below.

// tailRun is one run of the ε-response stage, in rounds.
type tailRun struct {
	Answers   int
	Mean      float64
	Quantiles []float64 // the (1−ε)-quantile, one per ε
}

// ratios are the run's (1−ε)-quantiles over its mean.
func (t tailRun) ratios() []float64 {
	out := make([]float64, len(t.Quantiles))
	for i, q := range t.Quantiles {
		out[i] = q / t.Mean
	}
	return out
}

// measureTail reads a run's responses (rounds) into its mean and
// quantiles.
func measureTail(rs []float64, epss []float64) tailRun {
	out := tailRun{Answers: len(rs)}
	for _, r := range rs {
		out.Mean += r / float64(len(rs))
	}
	for _, eps := range epss {
		out.Quantiles = append(out.Quantiles, bidQuantile(rs, 1-eps))
	}
	return out
}

// tailShape is how a run's quantile/mean ratios r(ε) grow with ln(1/ε):
// the least-squares slope b of r against ln(1/ε), and the curvature, the
// slope over the upper half of the ε range (smallest ε) over the slope
// over the lower half. A geometric tail — what Theorem 4's proof bounds
// the rounds with — has r(ε) ≈ ln(1/ε): b ≈ 1, curvature ≈ 1. A heavier
// tail (a power law) curves up; a response that does not spread has b ≈ 0.
func tailShape(epss, ratios []float64) (b, curv float64) {
	x := make([]float64, len(epss))
	for i, e := range epss {
		x[i] = math.Log(1 / e)
	}
	_, b, _ = sweep.LineFit(x, ratios)
	mid, last := len(x)/2, len(x)-1
	lo := (ratios[mid] - ratios[0]) / (x[mid] - x[0])
	hi := (ratios[last] - ratios[mid]) / (x[last] - x[mid])
	return b, hi / lo
}

// Theorem 3 bounds a round's success probability p by 1/(2eβkv) ≤ p ≤
// 1/(βkv): the rounds' tail then lies between two geometric tails whose
// rates differ by 2e, and the mean between βkv and 2eβkv, so the slope
// of quantile/mean against ln(1/ε) is at least 1/(2e) and at most 2e.
// The curvature must stay within [2/3, 3/2]: ln(1/ε) is straight.
var (
	tailSlopeLo, tailSlopeHi = 1 / (2 * math.E), 2 * math.E
	tailCurvLo, tailCurvHi   = 2.0 / 3, 1.5
)

// tailVerdict judges one (k, v) from its runs: the slope's 95 % interval
// over the runs within the paper's range, the mean curvature within its
// band.
func tailVerdict(epss []float64, runs []tailRun) (b, bHalf, curv float64, ok bool) {
	var bs, cs []float64
	for _, r := range runs {
		x, c := tailShape(epss, r.ratios())
		bs, cs = append(bs, x), append(cs, c)
	}
	b, bHalf = sweep.CI95(bs)
	curv, _ = sweep.MeanSE(cs)
	ok = len(runs) >= 2 && b-bHalf >= tailSlopeLo && b+bHalf <= tailSlopeHi && curv >= tailCurvLo && curv <= tailCurvHi
	return b, bHalf, curv, ok
}

// epsWithin is the largest (1−ε)-quantile (index ei) over the runs, the
// Remark's bound 2eβkv·ln(2e/ε) on it, and whether it holds.
func epsWithin(runs []tailRun, ei int, eps, beta float64, k, v int) (worst, bound float64, ok bool) {
	for _, r := range runs {
		worst = max(worst, r.Quantiles[ei])
	}
	bound = 2 * math.E * beta * float64(k*v) * math.Log(2*math.E/eps)
	return worst, bound, len(runs) > 0 && worst <= bound
}

// bidEpsilon: the ε-response over several (k, v): every (1−ε)-quantile
// within 2eβkv·ln(2e/ε) rounds (the Remark of Theorem 4), and the
// quantile/mean ratio growing like ln(1/ε) (Theorem 4: ε-response
// O(kv·log(1/ε)), mean O(kv)).
func bidEpsilon(ctx context.Context, o study.Options) ([]study.Claim, error) {
	pairs, seeds, requests := [][2]int{{2, 2}, {3, 4}, {4, 6}}, 4, 30000
	epss := []float64{0.1, 0.03, 0.01, 0.003, 0.001}
	if o.Quick {
		pairs, seeds, requests = [][2]int{{2, 2}, {3, 4}}, 3, 4000
		epss = []float64{0.1, 0.03, 0.01}
	}
	var keys []string
	for _, kv := range pairs {
		for s := range seeds {
			keys = append(keys, fmt.Sprintf("k%d-v%d-s%d", kv[0], kv[1], s))
		}
	}
	outs, err := sweep.Each(ctx, o.Points, "bidding-epsilon", keys, func(i int) (tailRun, error) {
		kv := pairs[i/seeds]
		pb := bidBand(kv[0], kv[1], 3)
		pb.Options = bidOpts(1)
		run, err := bidRunOne(bidding.Algorithm, pb, nil, bidSeed(o.Seed, 2, i), requests, nil)
		if err != nil {
			return tailRun{}, err
		}
		round := float64(bidParams(pb, false).RoundTicks())
		rs := make([]float64, len(run.recs))
		for j, r := range run.recs {
			rs[j] = float64(r.resp()) / round
		}
		return measureTail(rs, epss), nil
	})
	if err != nil {
		return nil, err
	}
	boundOK, shapeOK := true, true
	var boundTxt, shapeTxt []string
	bfigs := map[string]float64{"seeds": float64(seeds), "requests": float64(requests)}
	sfigs := map[string]float64{"seeds": float64(seeds), "requests": float64(requests), "slope_lo": tailSlopeLo, "slope_hi": tailSlopeHi,
		"curvature_lo": tailCurvLo, "curvature_hi": tailCurvHi}
	var ss []report.Series
	for pi, kv := range pairs {
		runs := outs[pi*seeds : (pi+1)*seeds]
		beta := bidParams(bidBand(kv[0], kv[1], 3), false).Beta
		at := fmt.Sprintf("k=%d_v=%d", kv[0], kv[1])
		var qs []string
		for ei, eps := range epss {
			worst, bound, within := epsWithin(runs, ei, eps, beta, kv[0], kv[1])
			boundOK = boundOK && within
			qs = append(qs, fmt.Sprintf("ε=%g %.1f/%.0f", eps, worst, bound))
			bfigs[fmt.Sprintf("%s_eps=%g_quantile", at, eps)], bfigs[fmt.Sprintf("%s_eps=%g_bound", at, eps)] = worst, bound
		}
		boundTxt = append(boundTxt, fmt.Sprintf("k=%d v=%d: %s", kv[0], kv[1], strings.Join(qs, ", ")))
		b, h, curv, ok := tailVerdict(epss, runs)
		shapeOK = shapeOK && ok
		s := report.Series{Name: fmt.Sprintf("k=%d, v=%d", kv[0], kv[1]), Points: true}
		var rs []string
		for ei, eps := range epss {
			var xs []float64
			for _, r := range runs {
				xs = append(xs, r.ratios()[ei])
			}
			m, hh := sweep.CI95(xs)
			rs = append(rs, fmt.Sprintf("%.2f", m))
			s.X, s.Y, s.Err = append(s.X, math.Log(1/eps)), append(s.Y, m), append(s.Err, hh)
		}
		ss = append(ss, s)
		shapeTxt = append(shapeTxt, fmt.Sprintf("k=%d v=%d: quantile/mean %s, slope %.2f ± %.2f, curvature %.2f", kv[0], kv[1], strings.Join(rs, " "), b, h, curv))
		sfigs[at+"_slope"], sfigs[at+"_slope_ci95"], sfigs[at+"_curvature"] = b, h, curv
	}
	var lx []float64
	for _, eps := range epss {
		lx = append(lx, math.Log(1/eps))
	}
	ss = append(ss, report.Series{Name: "ln(1/ε) (a geometric tail)", X: lx, Y: lx, Dashed: true})
	if err := bidFigure(o, "bidding-epsilon.svg", report.Figure{Title: "ε-response: (1−ε)-quantile over the mean, uniform bidding",
		XLabel: "ln(1/ε)", YLabel: "quantile / mean (95% CI over seeds)", Series: ss}); err != nil {
		return nil, err
	}
	setup := fmt.Sprintf("band networks, %d seeds × %d requests per (k, v), ε ∈ %v", seeds, requests, epss)
	return []study.Claim{
		{
			ID: "bidding/eps-response-bound", Paper: bidPaper + " Th. 4 (Remark)",
			Claim:    "with probability ≥ 1−ε a request is answered within u(ε) ≤ 2eβkv·ln(2e/ε) rounds",
			Measured: fmt.Sprintf("%s: largest (1−ε)-quantile over the seeds / bound, rounds: %s (pass: every quantile ≤ its bound)", setup, strings.Join(boundTxt, "; ")),
			Figures:  bfigs,
			Pass:     boundOK,
		},
		{
			ID: "bidding/eps-response-log", Paper: bidPaper + " Th. 3, 4",
			Claim: "the ε-response is O(kv·log(1/ε)) and the mean O(kv): the (1−ε)-quantile over the mean grows like ln(1/ε), at every (k, v)",
			Measured: fmt.Sprintf("%s: %s (pass at every (k, v): the 95%% interval of the slope of quantile/mean against ln(1/ε) within [1/2e, 2e] = [%.2f, %.2f], Theorem 3's bounds on a round's success turned into bounds on the tail; the slope over the smallest ε over that over the largest within [%.2f, %.2f]: straight in ln(1/ε), not a heavier tail)",
				setup, strings.Join(shapeTxt, "; "), tailSlopeLo, tailSlopeHi, tailCurvLo, tailCurvHi),
			Figures: sfigs,
			Pass:    shapeOK,
		},
	}, nil
}

// sizeSlope is the fit of ln(mean) against ln(n) over runs (n, mean):
// the slope and the half-width of its 95 % interval.
func sizeSlope(ns, means []float64) (slope, half float64) {
	x, y := make([]float64, len(ns)), make([]float64, len(ns))
	for i := range ns {
		x[i], y[i] = math.Log(ns[i]), math.Log(means[i])
	}
	a, b, _ := sweep.LineFit(x, y)
	var sxx, mx, res float64
	for i := range x {
		mx += x[i] / float64(len(x))
	}
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		d := y[i] - a - b*x[i]
		res += d * d
	}
	se := math.Sqrt(res / float64(len(x)-2) / sxx)
	return b, sweep.T95(len(x)-2) * se
}

// sizeMargin is how flat "independent of n" must be: the 95 % interval
// of the exponent of mean response against n within ±sizeMargin. A mean
// growing like ln n has exponent 1/ln n̄ ≈ 0.2 over the n swept here.
const sizeMargin = 0.05

// bidSize: "real time": the response bounded independently of any global
// measure of the network (§1.3), swept over n at fixed k = v on the k-fork
// ring (connected, so waiting could chain across it).
func bidSize(ctx context.Context, o study.Options) ([]study.Claim, error) {
	k, ns, seeds, per := 3, []int{12, 24, 48, 96, 192}, 3, 60
	if o.Quick {
		ns, seeds, per = []int{12, 24, 48, 96}, 2, 25
	}
	var keys []string
	for _, n := range ns {
		for s := range seeds {
			keys = append(keys, fmt.Sprintf("n%d-k%d-s%d", n, k, s))
		}
	}
	means, err := sweep.Each(ctx, o.Points, "bidding-size", keys, func(i int) (float64, error) {
		pb := bidRingProblem(ns[i/seeds], k)
		pb.Options = bidOpts(1)
		run, err := bidRunOne(bidding.Algorithm, pb, nil, bidSeed(o.Seed, 7, i), per*pb.Users, nil)
		if err != nil {
			return 0, err
		}
		return bidMeanRounds(run.recs, float64(bidParams(pb, false).RoundTicks())), nil
	})
	if err != nil {
		return nil, err
	}
	var xs, ys []float64
	var txt []string
	figs := map[string]float64{"k": float64(k), "v": float64(k), "seeds": float64(seeds), "requests_per_user": float64(per)}
	beta := bidParams(bidRingProblem(ns[0], k), false).Beta
	bound := 2 * math.E * beta * float64(k*k)
	within := true
	for ni, n := range ns {
		ms := means[ni*seeds : (ni+1)*seeds]
		for _, m := range ms {
			xs, ys = append(xs, float64(n)), append(ys, m)
			within = within && m <= bound
		}
		m, h := sweep.CI95(ms)
		txt = append(txt, fmt.Sprintf("n=%d %.2f±%.2f", n, m, h))
		figs[fmt.Sprintf("n=%d_mean_rounds", n)] = m
	}
	slope, half := sizeSlope(xs, ys)
	figs["exponent"], figs["exponent_ci95"], figs["margin"], figs["bound_rounds"] = slope, half, sizeMargin, bound
	return []study.Claim{{
		ID: "bidding/independent-of-n", Paper: bidPaper + " §1.3, Th. 4",
		Claim: "uniform bidding is real time: its response is bounded by a function of k and v alone, independent of the size of the network",
		Measured: fmt.Sprintf("k-fork philosophers on rings of n (k = v = %d), %d seeds × %d requests a user: mean rounds %s; fitted mean ∝ n^e, e = %.3f ± %.3f (pass: the 95%% interval of e within ±%.2f — ln n would give about 0.2 here — and every mean ≤ 2eβkv = %.0f)",
			k, seeds, per, strings.Join(txt, ", "), slope, half, sizeMargin, bound),
		Figures: figs,
		Pass:    within && slope-half >= -sizeMargin && slope+half <= sizeMargin,
	}}, nil
}

// bidConstants: λ1 and c as §3.2 prints them against the package's (one
// step more per exchange): the rounds a request takes are the same.
func bidConstants(ctx context.Context, o study.Options) ([]study.Claim, error) {
	pairs, seeds, requests := [][2]int{{2, 2}, {3, 4}, {4, 6}}, 4, 6000
	if o.Quick {
		pairs, seeds, requests = [][2]int{{2, 2}, {3, 4}}, 3, 1200
	}
	consts := []string{"allot", "paper"}
	var keys []string
	for _, kv := range pairs {
		for _, c := range consts {
			for s := range seeds {
				keys = append(keys, fmt.Sprintf("k%d-v%d-%s-s%d", kv[0], kv[1], c, s))
			}
		}
	}
	type res struct{ Rounds, Ticks float64 }
	outs, err := sweep.Each(ctx, o.Points, "bidding-constants", keys, func(i int) (res, error) {
		kv, c := pairs[i/(2*seeds)], consts[i/seeds%2]
		pb := bidBand(kv[0], kv[1], 3)
		pb.Options = bidOpts(1)
		pb.Options["constants"] = c
		// The same seed for both constants: the same problem and draws
		// of the simulator where the rounds allow.
		run, err := bidRunOne(bidding.Algorithm, pb, nil, bidSeed(o.Seed, 8, i/(2*seeds)*seeds+i%seeds), requests, nil)
		if err != nil {
			return res{}, err
		}
		return res{bidMeanRounds(run.recs, float64(bidParams(pb, false).RoundTicks())), bidMeanRounds(run.recs, 1)}, nil
	})
	if err != nil {
		return nil, err
	}
	ok := true
	var txt []string
	figs := map[string]float64{"seeds": float64(seeds), "requests": float64(requests), "margin": constMargin}
	for pi, kv := range pairs {
		var ours, paper, oursT, paperT []float64
		for s := range seeds {
			a, p := outs[pi*2*seeds+s], outs[pi*2*seeds+seeds+s]
			ours, paper = append(ours, a.Rounds), append(paper, p.Rounds)
			oursT, paperT = append(oursT, a.Ticks), append(paperT, p.Ticks)
		}
		r, lo, hi := ratioCI(paper, ours)
		ok = ok && lo >= 1-constMargin && hi <= 1+constMargin
		pb := bidBand(kv[0], kv[1], 3)
		pb.Options = bidOpts(1)
		pa := bidParams(pb, false)
		pb.Options["constants"] = "paper"
		pp := bidParams(pb, false)
		mo, _ := sweep.MeanSE(ours)
		mp, _ := sweep.MeanSE(paper)
		to, _ := sweep.MeanSE(oursT)
		tp, _ := sweep.MeanSE(paperT)
		txt = append(txt, fmt.Sprintf("k=%d v=%d: %.2f rounds (λ1=%d, c=%d) vs %.2f (λ1=%d, c=%d), paper/ours %.3f [%.3f, %.3f]; in ticks %.0f vs %.0f",
			kv[0], kv[1], mo, pa.Lambda1, pa.C, mp, pp.Lambda1, pp.C, r, lo, hi, to, tp))
		at := fmt.Sprintf("k=%d_v=%d", kv[0], kv[1])
		figs[at+"_rounds_allot"], figs[at+"_rounds_paper"], figs[at+"_ratio"], figs[at+"_ratio_lo"], figs[at+"_ratio_hi"] = mo, mp, r, lo, hi
	}
	return []study.Claim{{
		ID: "bidding/constants-paper", Paper: bidPaper + " §3.2",
		Claim: "with β = 1+ρ, λ1 = 2ρ, λ2 = μ, c = (2(2+μ)+1)ρ² (§3.2) a request takes the same number of rounds as with this package's λ1 = ⌈2ρ⌉+1 and c sized with it (package doc: one step more per message exchange)",
		Measured: fmt.Sprintf("band networks, ρ = 1, μ = %d, %d seeds × %d requests: %s (pass: the 95%% interval of the ratio of mean rounds within [%.2f, %.2f] at every (k, v))",
			bMu, seeds, requests, strings.Join(txt, "; "), 1-constMargin, 1+constMargin),
		Figures: figs,
		Pass:    ok,
	}}, nil
}

// constMargin is how close "the same number of rounds" must be: the
// ratio's 95 % interval within 1 ± constMargin.
const constMargin = 0.1

// ratioCI is the ratio of the means of a and b with its 95 % interval, from
// the log-ratio's standard error (delta method, Welch's degrees of freedom
// rounded down).
func ratioCI(a, b []float64) (r, lo, hi float64) {
	ma, sa := sweep.MeanSE(a)
	mb, sb := sweep.MeanSE(b)
	va, vb := (sa/ma)*(sa/ma), (sb/mb)*(sb/mb)
	se := math.Sqrt(va + vb)
	df := 1
	if va+vb > 0 {
		df = max(1, int((va+vb)*(va+vb)/(va*va/float64(len(a)-1)+vb*vb/float64(len(b)-1))))
	}
	r = ma / mb
	h := sweep.T95(df) * se
	return r, r * math.Exp(-h), r * math.Exp(h)
}
