package controller

// The claims of §6 that the runs of controller.go do not cover: the
// modified controller as §6.1 states it (iterating MAIN:
// controller-modified-main), against n and against M/(W+1); and the
// message bounds of Lemma 6.2.1 (name assignment) and Lemma 6.3.1 (the
// bank), each judged against the count its proof gives, constants kept.
//
// Readings:
//
//   - Lemma 6.1.1's O(n·log²n·log(M/(W+1))) is judged in two sweeps. Against
//     n, at a fixed M/(W+1) = 64 (so that the stages matter), the nodes
//     joining over time as in main-messages-n: the exponent e of
//     messages/(n·lg²n·(1+lg(M/(W+1)))) ≈ a·(lg n)^e must have its 95 %
//     interval below 1 (one more log factor, n·lg³n, is e = 1). Against
//     M/(W+1), on a line (the deepest tree, where a permit from the root
//     costs most): the exponent e of messages ≈
//     a·(1+lg(M/(W+1)))^e must have its 95 % interval below 1.5, halfway
//     between the bound's linear growth (e ≤ 1) and a quadratic one (e =
//     2); the main controller's messages, which grow like M/W (Theorem
//     5.2), are reported beside.
//   - A finding, not a misreading: on lines the modified controller's
//     exponent is about 1 (1.05 ± 0.32 in the full run, where the main
//     controller at W = M/2 has 0.45 ± 0.39). Its first stage is that main
//     controller and costs the same; the stages after it run with
//     W_s = M_s/2, far below U·lg U, so Λ < 1 and bins of capacity 1 relay
//     requests over long stretches of the line (at n = 256, stage 2
//     hands out about 3,500 permits at some 70 hops each: 4× the first
//     stage's messages). That is within Lemma 4.4.4's count with its
//     constants, but over n = 16..1024 it grows like one more log factor;
//     on sparse random graphs (shallow trees) e is below 0.
//   - "O(n·log²n)" in Lemmas 6.2.1 and 6.3.1 is judged against the count
//     of Lemma 4.4.4's proof, which the two lemmas' proofs refer to
//     ("similar to"), with its constants (basicBound): a run passes when
//     its messages are at most that count. Name assignment runs one basic
//     controller (2n_i, n_i, U = 3n_i) an iteration, n_i at least doubling,
//     plus two waves and a join and a welcome per participant; the bank
//     (on BASIC, U = n, Λ for ⌊W/3⌋: package bank's doc) two controllers,
//     one moving the deposits up and one the withdrawals down, whose
//     counts add up to at most one controller's over 𝓜, the operations.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/bank"
	actrl "github.com/allot-dev/allot/algo/controller"
	"github.com/allot-dev/allot/experiments/study"
	"github.com/allot-dev/allot/experiments/sweep"
)

// Tags of the extensions' runs (controller.go uses 1 to 10).
const (
	tagModN = 20 + iota
	tagModW
	tagNamesN
	tagBankN
)

// modRatio is M/W of the modified controller's n sweep.
const modRatio = 64

// bankOps is the operations each node makes in the bank's n sweep; the
// bank's W is bankW·n.
const bankOps, bankW = 20, 2

// extPlan is every run of the extensions.
type extPlan struct {
	ns     []int // the n sweeps
	seeds  int
	wN, wM int   // the M/(W+1) sweep: n and M
	wShift []int // W = M >> s (-1: W = 0)
}

func extConfigure(quick bool) extPlan {
	if quick {
		return extPlan{ns: []int{16, 23, 32, 45, 64, 91, 128}, seeds: 1, wN: 48, wM: 1 << 13, wShift: []int{1, 2, 4, 6, 8, 10, 12, -1}}
	}
	return extPlan{ns: []int{16, 23, 32, 45, 64, 91, 128, 181, 256, 362, 512, 724, 1024}, seeds: 2, wN: 128, wM: 1 << 15,
		wShift: []int{1, 2, 3, 4, 6, 8, 10, 12, 14, -1}}
}

// extensions runs the extensions' points and judges their claims.
func extensions(ctx context.Context, o study.Options) ([]study.Claim, error) {
	pl := extConfigure(o.Quick)
	var pts []point
	for _, n := range pl.ns {
		m := budget(n)
		for _, g := range families(n) {
			for s := range pl.seeds {
				seed := sweep.Seed(o.Seed, tagModN, uint64(n), uint64(s), uint64(len(g)))
				pts = append(pts, point{a: actrl.ModifiedMain, graph: g, n: n, budget: m, waste: m / modRatio, join: true, seed: seed})
				seed = sweep.Seed(o.Seed, tagNamesN, uint64(n), uint64(s), uint64(len(g)))
				pts = append(pts, point{a: actrl.Names, graph: g, n: n, budget: 1, seed: seed})
				seed = sweep.Seed(o.Seed, tagBankN, uint64(n), uint64(s), uint64(len(g)))
				for _, a := range []algo.Algorithm{bank.Algorithm, actrl.BankMain} {
					pts = append(pts, point{a: a, graph: g, n: n, budget: bankOps, waste: bankW * n, seed: seed})
				}
			}
		}
	}
	g := families(pl.wN)[0]
	for _, sh := range pl.wShift {
		w := 0
		if sh >= 0 {
			w = pl.wM >> sh
		}
		for s := range pl.seeds {
			for _, a := range []algo.Algorithm{actrl.ModifiedMain, actrl.Main} {
				pts = append(pts, point{a: a, graph: g, n: pl.wN, budget: pl.wM, waste: w,
					seed: sweep.Seed(o.Seed, tagModW, uint64(w), uint64(s)), graphSeed: sweep.Seed(o.Seed, tagModW, uint64(s))})
			}
		}
	}
	slices.SortStableFunc(pts, func(a, b point) int { return b.budget*b.n/max(b.waste, 1) - a.budget*a.n/max(a.waste, 1) })
	outs, err := sweep.Map(ctx, len(pts), o.Progress, func(i int) outcome { return measure(pts[i]) })
	if err != nil {
		return nil, err
	}
	for _, r := range outs {
		switch {
		case r.err != nil:
			return nil, fmt.Errorf("%s on %s M=%d W=%d seed %d: %w", r.p.a.Name, r.p.graph, r.p.budget, r.p.waste, r.p.seed, r.err)
		case !r.drained || r.violations > 0 || r.names != nil && !r.names.OK() || r.bank != nil && !r.bank.OK():
			return nil, fmt.Errorf("%s on %s M=%d W=%d seed %d: a violation or an unanswered request", r.p.a.Name, r.p.graph, r.p.budget, r.p.waste, r.p.seed)
		}
	}
	return []study.Claim{modifiedN(outs, pl), modifiedW(outs, pl), namesBoundClaim(outs, pl), bankBoundClaim(outs, pl)}, nil
}

// underLogFactor is the pass rule of a growth judged against a bound f
// with the exponent e of ratio = messages/f ≈ a·(lg n)^e, fitted over
// the runs: the upper end of its 95 % interval below 1. A cost one log
// factor above f (e = 1) fails, f itself (e ≈ 0) passes.
func underLogFactor(ns []int, ratios []float64) (e, half float64, ok bool) {
	e, half = logExponent(ns, ratios)
	return e, half, e+half < 1
}

// linearInLog is the pass rule of a growth like L = 1+lg(M/(W+1)): the
// exponent e of messages ≈ a·L^e, fitted over the runs, has its 95 %
// interval's upper end below 1.5, halfway between linear (e = 1) and
// quadratic (e = 2) growth.
func linearInLog(ls, msgs []float64) (e, half float64, ok bool) {
	var xs, ys []float64
	for i := range ls {
		xs, ys = append(xs, math.Log(ls[i])), append(ys, math.Log(msgs[i]))
	}
	e, half = slopeCI(xs, ys)
	return e, half, e+half < 1.5
}

// withinBound is the pass rule of an explicit bound: every run's
// messages at most its bound. It returns the largest ratio.
func withinBound(msgs, bounds []float64) (worst float64, ok bool) {
	for i := range msgs {
		worst = math.Max(worst, msgs[i]/bounds[i])
	}
	return worst, len(msgs) > 0 && worst <= 1
}

// basicBound is the count in Lemma 4.4.4's proof for one basic controller
// (m, w, u), constants kept. At each level L from −1 (the local bins) up
// to ⌊lg u⌋, at most ⌈m/Cap(L)⌉ permit messages (each carries Cap(L)
// permits), and besides, for each of the level's bins (at most 2u/2^L
// of them, u local bins, Lemma 4.1.2), one request answered by a reject
// or a later and one asked again after it; each request and its answer
// travel at most 3·2^max(L,0) links (Lemma 4.1.2).
func basicBound(m, w, u int64) float64 {
	lam := actrl.Lambda(w, u)
	var s float64
	for l := -1; float64(l) <= math.Floor(math.Log2(float64(u))); l++ {
		bins := float64(u)
		if l >= 0 {
			bins = math.Ceil(2 * float64(u) / math.Ldexp(1, l))
		}
		perm := math.Ceil(float64(m) / float64(actrl.Cap(lam, int8(l))))
		s += 2 * (perm + 2*bins) * 3 * math.Ldexp(1, max(l, 0))
	}
	return s
}

// namesBound is Lemma 6.2.1's count for n participants: iteration i runs
// a basic controller (2n_i, n_i, 3n_i), and as n_i at least doubles, the
// iterations before the last have n_i ≤ ⌈n/2^j⌉; each iteration adds two
// waves (a broadcast and an echo per participant, 3n_i of them at most)
// and each participant a join and a welcome.
func namesBound(n int) float64 {
	s := 2 * float64(n)
	for x := int64(n); ; x = (x + 1) / 2 {
		s += basicBound(2*x, x, 3*x) + 4*3*float64(x)
		if x == 1 {
			return s
		}
	}
}

// bankBound is Lemma 6.3.1's count for ops operations on n nodes with
// waste w: the deposit controller (the withdrawal controller run
// backwards) and the withdrawal controller, both with Λ for ⌊w/3⌋ and
// U = n, together at most one controller's count over all operations.
func bankBound(ops, n, w int) float64 { return basicBound(int64(ops), int64(w/3), int64(n)) }

// bankMainBound is the same count for the bank over MAIN (§6.3 as
// written) with n participants: in each iteration, n_i participants at
// most ⌈n/2^j⌉ as they at least double, the two controllers with U = 3n_i
// move at most the operations plus the money collected into the bank
// (below W), CONTROLLER-N and the admissions cost what name assignment
// does (namesBound), and each iteration has a third wave.
func bankMainBound(ops, n, w int) float64 {
	s := namesBound(n)
	for x := int64(n); ; x = (x + 1) / 2 {
		s += basicBound(int64(ops+w), int64(w/3), 3*x) + 2*3*float64(x)
		if x == 1 {
			return s
		}
	}
}

// lg2 is n·lg²n.
func lg2(n int) float64 {
	l := math.Log2(float64(n))
	return float64(n) * l * l
}

func modifiedN(outs []outcome, pl extPlan) study.Claim {
	figs := map[string]float64{"m_over_w": modRatio, "seeds": float64(pl.seeds), "points": float64(len(pl.ns))}
	ok := true
	var txt []string
	for fam := range 2 {
		family := strings.Split(families(pl.ns[0])[fam], ":")[0]
		var ns []int
		var ratios []float64
		var pts []string
		for _, n := range pl.ns {
			g, m := families(n)[fam], budget(n)
			x := f(n, m, m/modRatio)
			var stages float64
			mm, h, k := mean(outs, func(r outcome) bool {
				if r.p.a.Name == actrl.ModifiedMain.Name && r.p.graph == g && r.p.join {
					ns, ratios = append(ns, n), append(ratios, float64(r.msgs)/x)
					stages = math.Max(stages, float64(r.stages))
					return true
				}
				return false
			}, func(r outcome) float64 { return float64(r.msgs) })
			ok = ok && k > 0
			pts = append(pts, fmt.Sprintf("n=%d %.0f±%.0f (ratio %.2f, %.0f stages)", n, mm, h, mm/x, stages))
			figs[fmt.Sprintf("%s_n=%d_messages", family, n)] = mm
		}
		e, half, pass := underLogFactor(ns, ratios)
		ok = ok && pass
		figs[family+"_exponent"], figs[family+"_exponent_ci95"] = e, half
		txt = append(txt, fmt.Sprintf("%s: e = %.2f ± %.2f; %s", family, e, half, strings.Join(pts, ", ")))
	}
	c := study.Claim{
		ID:    "controller/modified-main-messages-n",
		Paper: "afek §6.1 Lemma 6.1.1",
		Claim: "the modified controller, iterating the MAIN CONTROLLER with (M_i, M_i/2), sends O(n·log²n·log(M/(W+1))) messages, n the final participants",
		Measured: fmt.Sprintf("controller-modified-main, M = ⌈4n·lg(n+1)⌉, W = M/%d, first requests spread over %d·n ticks, n = %v, %d seeds; ratio = messages/(n·lg²n·(1+lg(M/(W+1)))) per run, fitted as a·(lg n)^e (pass: the 95%% interval of e below 1 on each family — one more log factor is e = 1): %s",
			modRatio, joinSpan, pl.ns, pl.seeds, strings.Join(txt, "; ")),
		Figures: figs,
		Pass:    ok,
	}
	if !ok {
		// The stages after the first run with W_s far below U·lg U:
		// bins of capacity 1 relay requests along the line. Within the
		// proof's constants at these n, but growing one lg n faster.
		c.Finding = "§6.1: the modified controller sends \"O(n log² n log(M/(W+1)))\" messages; measured, the messages over n·lg²n·log(M/(W+1)) still grow like a power of lg n on at least one family (the stages with a small waste relay requests through bins of capacity 1 along a line): " + strings.Join(txt, "; ")
	}
	return c
}

func modifiedW(outs []outcome, pl extPlan) study.Claim {
	g := families(pl.wN)[0]
	figs := map[string]float64{"n": float64(pl.wN), "m": float64(pl.wM), "seeds": float64(pl.seeds)}
	var ls, msgs []float64
	var pts []string
	var first, last [2]float64
	for i, sh := range pl.wShift {
		w := 0
		if sh >= 0 {
			w = pl.wM >> sh
		}
		l := 1 + math.Log2(float64(pl.wM)/float64(w+1))
		var ms [2]float64
		for k, a := range []algo.Algorithm{actrl.ModifiedMain, actrl.Main} {
			ms[k], _, _ = mean(outs, func(r outcome) bool {
				if r.p.a.Name == a.Name && r.p.graph == g && r.p.budget == pl.wM && r.p.waste == w && !r.p.join {
					if k == 0 {
						ls, msgs = append(ls, l), append(msgs, float64(r.msgs))
					}
					return true
				}
				return false
			}, func(r outcome) float64 { return float64(r.msgs) })
			if i == 0 {
				first[k] = ms[k]
			}
			last[k] = ms[k]
		}
		pts = append(pts, fmt.Sprintf("W=%d: %.0f (main %.0f)", w, ms[0], ms[1]))
		figs[fmt.Sprintf("modified_w=%d", w)], figs[fmt.Sprintf("main_w=%d", w)] = ms[0], ms[1]
	}
	e, half, ok := linearInLog(ls, msgs)
	figs["exponent"], figs["exponent_ci95"] = e, half
	figs["modified_growth"], figs["main_growth"] = last[0]/first[0], last[1]/first[1]
	return study.Claim{
		ID:    "controller/modified-main-messages-w",
		Paper: "afek §6.1 Lemma 6.1.1, Theorem 5.2",
		Claim: "iterating MAIN pays for small W: the modified controller's messages grow like log(M/(W+1)), where the main controller's grow like M/W",
		Measured: fmt.Sprintf("%s, M=%d, W from M/2 down to 0, every node asking, %d seeds; messages fitted as a·(1+lg(M/(W+1)))^e: e = %.2f ± %.2f (pass: the 95%% interval below 1.5 — linear is 1, quadratic 2); from W = M/2 to W = 0 the modified controller's messages grow ×%.1f, the main controller's ×%.1f: %s",
			g, pl.wM, pl.seeds, e, half, last[0]/first[0], last[1]/first[1], strings.Join(pts, ", ")),
		Figures: figs,
		Pass:    ok,
	}
}

func namesBoundClaim(outs []outcome, pl extPlan) study.Claim {
	var msgs, bounds []float64
	var pts []string
	figs := map[string]float64{"seeds": float64(pl.seeds)}
	for _, n := range pl.ns {
		for fam, g := range families(n) {
			mm, _, _ := mean(outs, func(r outcome) bool {
				if r.names != nil && r.p.graph == g {
					msgs, bounds = append(msgs, float64(r.msgs)), append(bounds, namesBound(r.names.Given))
					return true
				}
				return false
			}, func(r outcome) float64 { return float64(r.msgs) })
			family := strings.Split(g, ":")[0]
			figs[fmt.Sprintf("%s_n=%d_messages", family, n)] = mm
			if fam == 0 {
				pts = append(pts, fmt.Sprintf("n=%d %.0f (%.2f·n·lg²n; bound %.0f)", n, mm, mm/lg2(n), namesBound(n)))
			}
		}
	}
	worst, ok := withinBound(msgs, bounds)
	figs["largest_over_bound"] = worst
	return study.Claim{
		ID:    "controller/names-messages",
		Paper: "afek §6.2 Lemma 6.2.1",
		Claim: "dynamic name assignment sends O(n·log²n) messages, n the final number of participants",
		Measured: fmt.Sprintf("every node of a line or a sparse random graph of n = %v joining once, %d seeds; messages (without the tree's construction) against the count of Lemma 4.4.4's proof summed over the iterations, constants kept (pass: every run at most its bound): largest messages/bound %.3f; on lines: %s",
			pl.ns, pl.seeds, worst, strings.Join(pts, ", ")),
		Figures: figs,
		Pass:    ok,
	}
}

func bankBoundClaim(outs []outcome, pl extPlan) study.Claim {
	figs := map[string]float64{"seeds": float64(pl.seeds), "ops_per_node": bankOps, "w_per_node": bankW}
	ok := true
	var txt []string
	for _, b := range []struct {
		a     algo.Algorithm
		name  string
		bound func(ops, n, w int) float64
	}{{bank.Algorithm, "bank (BASIC)", bankBound}, {actrl.BankMain, "bank-main (MAIN)", bankMainBound}} {
		var msgs, bounds []float64
		var pts []string
		for _, n := range pl.ns {
			for fam, g := range families(n) {
				var ops float64
				mm, _, _ := mean(outs, func(r outcome) bool {
					if r.bank != nil && r.p.a.Name == b.a.Name && r.p.graph == g {
						o := r.bank.Deposits + r.bank.Withdrawals + r.waiting
						ops = float64(o)
						msgs, bounds = append(msgs, float64(r.msgs)), append(bounds, b.bound(o, n, r.p.waste))
						return true
					}
					return false
				}, func(r outcome) float64 { return float64(r.msgs) })
				family := strings.Split(g, ":")[0]
				figs[fmt.Sprintf("%s_%s_n=%d_messages", b.a.Name, family, n)] = mm
				if fam == 0 {
					pts = append(pts, fmt.Sprintf("n=%d %.0f (%.2f·(𝓜/W)·n·lg²n; bound %.0f)", n, mm, mm/(ops/float64(bankW*n)*lg2(n)), b.bound(int(ops), n, bankW*n)))
				}
			}
		}
		worst, pass := withinBound(msgs, bounds)
		ok = ok && pass
		figs[b.a.Name+"_largest_over_bound"] = worst
		txt = append(txt, fmt.Sprintf("%s: largest messages/bound %.3f; on lines: %s", b.name, worst, strings.Join(pts, ", ")))
	}
	return study.Claim{
		ID:    "controller/bank-messages",
		Paper: "afek §6.3 Lemma 6.3.1",
		Claim: "the distributed bank sends O((𝓜/W)·n·log²n) messages for 𝓜 deposit and withdraw requests",
		Measured: fmt.Sprintf("the bank on BASIC (U = n) and as §6.3 builds it, on two MAIN controllers (bank-main: U = 3n_i, the participants joining as they first operate), on lines and sparse random graphs of n = %v, every node making %d operations (deposit or withdraw, even odds), W = %d·n, %d seeds; messages (without the tree's construction) against the count of Lemma 4.4.4's proof with Λ for ⌊W/3⌋, constants kept, for one controller over 𝓜 operations (BASIC) or summed over the iterations with CONTROLLER-N's admissions and the waves (MAIN) (pass: every run at most its bound): %s",
			pl.ns, bankOps, bankW, pl.seeds, strings.Join(txt, "; ")),
		Figures: figs,
		Pass:    ok,
	}
}
