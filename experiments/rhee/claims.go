package rhee

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/allot-dev/allot/experiments/study"
)

const paper = "rhee §6"

// judgedAlgs are the paper's four algorithms, by their names in §6.
var judgedAlgs = []string{"CM", "CS", "CMR", "CSR"}

// claims states the paper's claims against the measurements, each with
// its own rule (below). A claim that needs an algorithm missing from the
// build fails and says so.
func (st *stats) claims(missing []string) []study.Claim {
	gap := ""
	if len(missing) > 0 {
		gap = "; not in this build, so not run: " + strings.Join(missing, ", ")
	}
	var out []study.Claim
	for _, f := range []func() study.Claim{
		st.csBestLow, st.cmWorst, st.modularBeatsCM, st.modularBeatsCS,
		st.csSteeper, st.advantageGrows, st.messages, st.precision,
	} {
		c := f()
		c.ID, c.Paper = "rhee/"+c.ID, paper
		c.Measured += gap
		out = append(out, c)
	}
	return out
}

// have reports whether every named algorithm was run.
func (st *stats) have(names ...string) bool {
	for _, n := range names {
		if st.alg(n) < 0 {
			return false
		}
	}
	return true
}

func pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }

// lowXs are the per-resource x points where contention is low but not
// nil (target 5 to 10 conflicting users); near1 the x ≈ 1 point.
func (st *stats) lowXs() (low []int, near1 int) {
	near1 = -1
	for i, x := range st.c.xs {
		if x >= 5 && x <= 10 {
			low = append(low, i)
		}
		if x <= 1 {
			near1 = i
		}
	}
	return low, near1
}

func (st *stats) top() int { return len(st.c.xs) - 1 }

// csBestLow: "CS performs better than all other algorithms tested when
// the average number of conflicting users is small" — judged at x ≈ 5–10
// on the paper's set model, every S; x ≈ 1 (nearly every user alone) is
// reported, not judged.
func (st *stats) csBestLow() study.Claim {
	low, near1 := st.lowXs()
	ok := st.have(judgedAlgs...) && len(low) > 0
	figs := map[string]float64{}
	describe := func(xi, s int) (string, bool) {
		cs := st.resp("CS", perResource, xi, s)
		best, who := math.Inf(1), ""
		for _, a := range []string{"CM", "CMR", "CSR"} {
			if r := st.resp(a, perResource, xi, s); st.have(a) && r < best {
				best, who = r, a
			}
		}
		at := fmt.Sprintf("x=%.1f_S=%d", st.x[perResource][xi], s)
		figs["CS_"+at], figs[who+"_"+at] = cs, best
		return fmt.Sprintf("S=%d CS %.0f vs %s %.0f", s, cs, who, best), cs < best
	}
	var parts []string
	for _, xi := range low {
		var ps []string
		for _, s := range st.c.services {
			p, good := describe(xi, s)
			ok = ok && good
			ps = append(ps, p)
		}
		parts = append(parts, fmt.Sprintf("x=%.1f: %s", st.x[perResource][xi], strings.Join(ps, ", ")))
	}
	if near1 >= 0 {
		var ps []string
		for _, s := range st.c.services {
			p, _ := describe(near1, s)
			ps = append(ps, p)
		}
		parts = append(parts, fmt.Sprintf("reported, not judged (nearly every user alone): x=%.1f: %s", st.x[perResource][near1], strings.Join(ps, ", ")))
	}
	return study.Claim{ID: "cs-best-low",
		Claim:    "CS performs better than all other algorithms tested when the average number of conflicting users is small (judged at 5–10 conflicting users: low but not nil)",
		Measured: "mean response, CS vs the best of CM, CMR, CSR: " + strings.Join(parts, "; "),
		Figures:  figs,
		Pass:     ok}
}

// cmWorst: "Chandy and Misra's algorithm is worst in every case" — judged
// where the curves separate: where every algorithm's response exceeds the
// modular algorithms' uncontended response at that S (their floor of
// four message delays plus a subroutine entry, measured at x ≈ 1). Below
// it the modular algorithms pay mostly that fixed floor; §6 itself says
// that at the smallest S/d "all the algorithms except CM performed
// comparably". Every point where CM is not the worst is reported with the
// gap.
func (st *stats) cmWorst() study.Claim {
	ok := st.have(judgedAlgs...)
	_, near1 := st.lowXs()
	judged, worst := 0, 0
	var not []string
	figs := map[string]float64{}
	for _, s := range st.c.services {
		floor := 0.0
		if near1 >= 0 {
			floor = max(st.resp("CMR", perResource, near1, s), st.resp("CSR", perResource, near1, s))
		}
		for xi := range st.c.xs {
			cm := st.resp("CM", perResource, xi, s)
			slowest, who, fastest := 0.0, "", math.Inf(1)
			for _, a := range judgedAlgs {
				r := st.resp(a, perResource, xi, s)
				fastest = min(fastest, r)
				if a != "CM" && r > slowest {
					slowest, who = r, a
				}
			}
			isJudged := near1 >= 0 && xi != near1 && fastest > floor
			if isJudged {
				judged++
			}
			if cm > slowest {
				if isJudged {
					worst++
				}
				continue
			}
			tag := "not judged, under the modular floor"
			if isJudged {
				tag = "judged"
				ok = false
			}
			not = append(not, fmt.Sprintf("S=%d x=%.1f: CM %.0f, %s %.0f (%s %s faster; %s)", s, st.x[perResource][xi], cm, who, slowest, "CM", pct(1-cm/slowest), tag))
			at := fmt.Sprintf("x=%.1f_S=%d", st.x[perResource][xi], s)
			figs["CM_"+at], figs[who+"_"+at] = cm, slowest
		}
	}
	m := fmt.Sprintf("CM the slowest at %d of the %d points where every response exceeds the modular floor (the modular algorithms' response at x≈1: four message delays and a subroutine entry)", worst, judged)
	if len(not) > 0 {
		m += "; CM not the slowest at " + strings.Join(not, "; ") +
			" — a modular user pays four message delays per entry (report, marked, select, grant) and three per queue hand-over (dec, advance, grant) where a fork hand-over costs one, so while hygienic's waiting chains are short CM is faster"
	}
	figs["cm_slowest_points"], figs["judged_points"] = float64(worst), float64(judged)
	m += st.referenceNote(func(xi, s int) string {
		r := st.resp("CM-drinking", perResource, xi, s)
		figs[fmt.Sprintf("CM-drinking_x=%.1f_S=%d", st.x[perResource][xi], s)] = r
		return fmt.Sprintf("%.0f", r)
	}, "CM-drinking (drinking-hygienic)")
	return study.Claim{ID: "cm-worst",
		Claim:    "Chandy and Misra's algorithm (CM, their dining algorithm: hygienic) is worst in every case (judged where the curves separate: every response above the modular algorithms' uncontended floor)",
		Measured: m, Figures: figs, Pass: ok && judged > 0}
}

// referenceNote quotes a reference series at the highest contention, for
// every S.
func (st *stats) referenceNote(v func(xi, s int) string, name string) string {
	if !st.have(strings.Fields(name)[0]) {
		return ""
	}
	var ps []string
	for _, s := range st.c.services {
		ps = append(ps, fmt.Sprintf("S=%d %s", s, v(st.top(), s)))
	}
	return fmt.Sprintf("; reference, not judged: %s at x=%.1f: %s", name, st.x[perResource][st.top()], strings.Join(ps, ", "))
}

// beats: at the highest contention and S/d ≥ 1.5, CMR and CSR respond
// faster than base; the improvement is reported against the paper's "up
// to" figure.
func (st *stats) beats(id, base, paperPct, note string) study.Claim {
	ok := st.have(judgedAlgs...)
	d := st.c.delay.Mean()
	top := st.top()
	var parts []string
	figs := map[string]float64{}
	for _, s := range st.c.services {
		if float64(s)/d < 1.5 {
			continue
		}
		for _, m := range []string{"CMR", "CSR"} {
			imp := 1 - st.resp(m, perResource, top, s)/st.resp(base, perResource, top, s)
			parts = append(parts, fmt.Sprintf("%s at S=%d: %s", m, s, pct(imp)))
			figs[fmt.Sprintf("%s_improvement_S=%d", m, s)] = imp
			ok = ok && imp > 0
		}
	}
	return study.Claim{ID: id,
		Claim: fmt.Sprintf("with many conflicting users and service time ≥ 1.5 × message delay, CMR and CSR respond faster than %s (paper: up to %s better)%s", base, paperPct, note),
		Measured: fmt.Sprintf("improvement over %s at x=%.1f (paper: up to %s): %s%s", base, st.x[perResource][top], paperPct, strings.Join(parts, ", "),
			st.fixedNote(base, figs)),
		Figures: figs,
		Pass:    ok && len(parts) > 0}
}

// fixedNote quotes the sensitivity series (fixed-size sets) at its
// largest k: the modular improvement over base there.
func (st *stats) fixedNote(base string, figs map[string]float64) string {
	if len(st.c.ks) == 0 {
		return ""
	}
	k := len(st.c.ks) - 1
	var ps []string
	for _, s := range st.c.sens {
		for _, m := range []string{"CMR", "CSR"} {
			imp := 1 - st.resp(m, fixedSize, k, s)/st.resp(base, fixedSize, k, s)
			ps = append(ps, fmt.Sprintf("%s at S=%d %s", m, s, pct(imp)))
			figs[fmt.Sprintf("fixed_k=%d_%s_improvement_S=%d", st.c.ks[k], m, s)] = imp
		}
	}
	return fmt.Sprintf("; sensitivity, not judged: fixed-size sets of %d (x=%.1f): %s", st.c.ks[k], st.x[fixedSize][k], strings.Join(ps, ", "))
}

func (st *stats) modularBeatsCM() study.Claim {
	return st.beats("modular-beats-cm", "CM", "80%", "")
}

func (st *stats) modularBeatsCS() study.Claim {
	return st.beats("modular-beats-cs", "CS", "60%", " (the comparison with AS, up to 40 %, is not reproduced: AS is not implemented)")
}

// csSteeper: "as the average number of conflicting users gets bigger, the
// average response time of CS grows more steeply than those of CSR, CMR"
// — judged as the growth factor of each curve from the top of the low
// range (x ≈ 10) to the highest x: CS's must exceed CMR's and CSR's, at
// every S.
func (st *stats) csSteeper() study.Claim {
	low, _ := st.lowXs()
	ok := st.have(judgedAlgs...) && len(low) > 0
	if !ok {
		return study.Claim{ID: "cs-steeper", Claim: "CS grows more steeply than CSR and CMR", Measured: "not measured"}
	}
	from, top := low[len(low)-1], st.top()
	var parts []string
	figs := map[string]float64{}
	for _, s := range st.c.services {
		g := func(a string) float64 {
			return st.resp(a, perResource, top, s) / st.resp(a, perResource, from, s)
		}
		cs, cmr, csr := g("CS"), g("CMR"), g("CSR")
		ok = ok && cs > cmr && cs > csr
		parts = append(parts, fmt.Sprintf("S=%d CS ×%.2f, CMR ×%.2f, CSR ×%.2f", s, cs, cmr, csr))
		figs[fmt.Sprintf("CS_growth_S=%d", s)], figs[fmt.Sprintf("CMR_growth_S=%d", s)], figs[fmt.Sprintf("CSR_growth_S=%d", s)] = cs, cmr, csr
	}
	return study.Claim{ID: "cs-steeper",
		Claim:    "as the average number of conflicting users grows, the response time of CS grows more steeply than those of CSR and CMR (and AS: not reproduced, AS is not implemented)",
		Measured: fmt.Sprintf("growth of the mean response from x=%.1f to x=%.1f: %s", st.x[perResource][from], st.x[perResource][top], strings.Join(parts, "; ")),
		Figures:  figs,
		Pass:     ok}
}

// advantageGrows: "the modular algorithm can improve the average response
// time of its subroutine … especially when … the message delay is smaller
// than the resource service time" — judged at the highest contention: the
// improvement of CMR over CM and of CSR over CS is larger at the largest S
// than at the smallest.
func (st *stats) advantageGrows() study.Claim {
	ok := st.have(judgedAlgs...)
	top := st.top()
	svc := st.c.services
	var parts []string
	figs := map[string]float64{}
	for _, pair := range [][2]string{{"CMR", "CM"}, {"CSR", "CS"}} {
		adv := func(s int) float64 {
			return 1 - st.resp(pair[0], perResource, top, s)/st.resp(pair[1], perResource, top, s)
		}
		var as []string
		for _, s := range svc {
			as = append(as, fmt.Sprintf("S=%d %s", s, pct(adv(s))))
			figs[fmt.Sprintf("%s_over_%s_S=%d", pair[0], pair[1], s)] = adv(s)
		}
		ok = ok && adv(svc[len(svc)-1]) > adv(svc[0])
		parts = append(parts, fmt.Sprintf("%s over %s: %s", pair[0], pair[1], strings.Join(as, ", ")))
	}
	return study.Claim{ID: "advantage-grows",
		Claim:    "the improvement of the modular algorithm over its subroutine grows with the ratio of service time to message delay",
		Measured: fmt.Sprintf("at x=%.1f: %s", st.x[perResource][top], strings.Join(parts, "; ")),
		Figures:  figs,
		Pass:     ok}
}

// messages: "our combined algorithms naturally require more messages than
// the subroutines" — judged as stated (more, at every point of the paper's
// set model), with the factor reported against the protocol's arithmetic:
// per entry the modular layer sends five messages per resource (report,
// marked, select, grant, release) plus a dec and an advance per resource
// per position advanced, and its subroutine's messages besides.
func (st *stats) messages() study.Claim {
	ok := st.have(judgedAlgs...)
	var parts []string
	figs := map[string]float64{}
	for _, pair := range [][2]string{{"CMR", "CM"}, {"CSR", "CS"}} {
		lo, hi := math.Inf(1), 0.0
		for _, s := range st.c.services {
			for xi := range st.c.xs {
				m, _ := st.get(pair[0], perResource, xi, s)
				b, _ := st.get(pair[1], perResource, xi, s)
				r := m.msgs[0] / b.msgs[0]
				lo, hi = min(lo, r), max(hi, r)
				ok = ok && r > 1
			}
		}
		parts = append(parts, fmt.Sprintf("%s/%s %.1f–%.1f", pair[0], pair[1], lo, hi))
		figs[pair[0]+"/"+pair[1]+"_min"], figs[pair[0]+"/"+pair[1]+"_max"] = lo, hi
	}
	// The arithmetic at the highest contention, S largest.
	top, s := st.top(), st.c.services[len(st.c.services)-1]
	var arith []string
	for _, a := range []string{"CMR", "CSR"} {
		c, _ := st.get(a, perResource, top, s)
		arith = append(arith, fmt.Sprintf("%s %.0f per entry = modular layer %.0f (5r = 5×%.2f = %.0f, dec+advance %.0f: %.1f positions advanced per resource) + subroutine %.0f",
			a, c.msgs[0], c.layer, c.size, 5*c.size, c.decAdv, c.decAdv/(2*c.size), c.msgs[0]-c.layer))
		figs[a+"_per_entry"], figs[a+"_layer"], figs[a+"_set_size"] = c.msgs[0], c.layer, c.size
		figs[a+"_dec_advance"], figs[a+"_subroutine"] = c.decAdv, c.msgs[0]-c.layer
	}
	return study.Claim{ID: "messages",
		Claim:    "the combined algorithms require more messages than their subroutines (the paper's summary calls it a small increase, and says they need fewer than AS: not reproduced, AS is not implemented)",
		Measured: fmt.Sprintf("messages per entry, every S and x=%.1f..%.1f: %s; at x=%.1f, S=%d: %s", st.x[perResource][0], st.x[perResource][top], strings.Join(parts, ", "), st.x[perResource][top], s, strings.Join(arith, "; ")),
		Figures:  figs,
		Pass:     ok}
}

// precision: the paper's rule, for every judged point.
func (st *stats) precision() study.Claim {
	precise, points, fewest, most := 0, 0, math.MaxInt, 0
	widest, wideN := 0.0, 0
	var short []string
	for p, c := range st.cells {
		if st.run[p.alg].ref {
			continue
		}
		points++
		fewest, most = min(fewest, c.graphs), max(most, c.graphs)
		if c.precise {
			precise++
		} else {
			if w := max(c.resp[1]/c.resp[0], c.msgs[1]/c.msgs[0]); w > widest {
				widest, wideN = w, c.graphs
			}
			short = append(short, fmt.Sprintf("%s %s x=%.1f S=%d (±%s, ±%s)", st.run[p.alg].short, p.model, st.x[p.model][p.xi], p.s,
				pct(c.resp[1]/c.resp[0]), pct(c.msgs[1]/c.msgs[0])))
		}
	}
	slices.Sort(short)
	// Distinct graphs: every point at one x shares them.
	distinct := map[[2]int]int{}
	for p, c := range st.cells {
		k := [2]int{int(p.model), p.xi}
		distinct[k] = max(distinct[k], c.graphs)
	}
	graphs := 0
	for _, n := range distinct {
		graphs += n
	}
	m := fmt.Sprintf("%d of %d judged points within 5 %% after %d–%d random conflict graphs each, %d distinct graphs in all (%d answers a run after a warm-up of %d)",
		precise, points, fewest, most, graphs, st.c.measured, st.c.warm)
	if len(short) > 0 {
		m += fmt.Sprintf("; not within 5 %% at the cap: %s — the response varies from graph to graph, so the widest (±%s after %d graphs) would need about %d graphs",
			strings.Join(short, ", "), pct(widest), wideN, int(math.Ceil(float64(wideN)*(widest/0.05)*(widest/0.05))))
	}
	return study.Claim{ID: "precision",
		Claim:    "simulation runs long enough that the 95 % confidence intervals of mean response time and messages are within 5 % of the measured values",
		Measured: m, Pass: precise == points && points > 0,
		Figures: map[string]float64{"precise_points": float64(precise), "judged_points": float64(points), "fewest_graphs": float64(fewest),
			"most_graphs": float64(most), "distinct_graphs": float64(graphs), "answers_per_run": float64(st.c.measured), "warm_up": float64(st.c.warm)}}
}
