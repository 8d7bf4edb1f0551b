// Package rhee reproduces the simulation study of Rhee §6 (see
// Experiment).
package rhee

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"allot/algo"
	"allot/algo/all"
	"allot/algo/modular"
	"allot/app"
	"allot/check"
	"allot/dist"
	"allot/experiments/study"
	"allot/experiments/sweep"
	"allot/metrics"
	"allot/proc"
	"allot/report"
	"allot/sim"
	"allot/workload"
)

// Experiment reproduces the simulation study of Rhee §6: the mean response time
// of Chandy–Misra (CM), Choy–Singh (CS = doorway) and the modular algorithm
// over each (CMR, CSR), against the average number of conflicting users,
// for resource service times S = 25..100 and message delay 50.
//
// Which algorithm is CM: Table 1 lists "Chandy and Misra [3]" as a drinking
// algorithm, [3] is "The drinking philosophers problem", and §6 compares
// algorithms for the drinking and dynamic problems; so CM is Chandy and
// Misra's drinking philosophers, which runs their hygienic dining algorithm
// as a subroutine (drinking-hygienic, in Welch and Lynch's modular form,
// ref. [12]). CMR, "our modular algorithm with Chandy and Misra's algorithm
// as a subroutine", is then the modular algorithm over that same CM
// (modular-drinking-hygienic). The other reading — CM as the bare hygienic
// dining algorithm, CMR as modular-hygienic — is run as reference series
// (hygienic, modular-hygienic), shown in the figures and quoted, not
// judged, in the claims. CS and CSR are Choy and Singh's dining algorithm
// [4] and the modular algorithm over it, as the paper says.
//
// The model, as in the paper: 100 users and 100 resources; each user's
// resource set is drawn uniformly at random once per run (a random conflict
// graph); think time uniform with mean 25; a critical section lasts the sum
// of one service time per resource held, each uniform with mean S; message
// delay uniform with mean 50 on unordered channels (FIFO for algorithms
// that need it); one tick per executed action (the simulator's processing
// cost). The set size k sets the contention: the x-axis is the measured
// average degree of the conflict graphs. Each point averages many random
// graphs, with a 95 % confidence interval over the graphs: at least 16,
// then 8 more at a time until the intervals of mean response and messages
// are within 5 % of the means (the paper's stopping rule), at most 160. The
// graphs, the request times and the service times are the same for every
// algorithm at a point (common random numbers).
//
// Claims, each pass/fail on the shape of the curves with the magnitudes
// next to the paper's: CM is the slowest everywhere; at the highest
// contention and S/d ≥ 1.5 the modular algorithms beat CM (paper: up to
// 80 %) and CS (up to 60 %); CS is the fastest at the lowest contention;
// CS's response grows more steeply than the modular ones'; the modular
// advantage grows with S/d; the modular algorithms send more messages than
// their subroutines by a small factor; the intervals meet the 5 % rule.
//
// hygienic, modular-hygienic, central and modular-central are run for
// reference; the last two are not in the paper. Algorithms missing from
// the catalogue are left out, and the claims that need them say so.
func Experiment() study.Experiment {
	return study.Experiment{
		Name:    "rhee",
		Paper:   "rhee §6",
		Summary: "modular algorithm vs Chandy–Misra and Choy–Singh: response time against conflicting users",
		Run:     runRhee,
	}
}

// rheeConfig is one configuration of the study.
type rheeConfig struct {
	users, resources int
	sizes            []int // set sizes, one x point each
	services         []int // mean resource service times S
	// Random conflict graphs per point: at least minGraphs, then batches
	// until the 95 % intervals are within 5 % of the means, at most
	// maxGraphs.
	minGraphs, batch, maxGraphs int
	requests                    int // answered requests per run
	delay, think                dist.Dist
}

func rheeFull() rheeConfig {
	return rheeConfig{
		users: 100, resources: 100,
		sizes:     []int{1, 2, 3, 4, 5, 6, 8},
		services:  []int{25, 50, 75, 100},
		minGraphs: 16, batch: 8, maxGraphs: 160,
		requests: 2000,
		delay:    dist.Uniform(1, 99), // mean 50
		think:    dist.Uniform(0, 50), // mean 25
	}
}

// rheeQuick keeps the full model (100 users, 100 resources) and fewer,
// shorter runs.
func rheeQuick() rheeConfig {
	c := rheeFull()
	c.sizes = []int{1, 3, 6}
	c.services = []int{25, 100}
	c.minGraphs, c.batch, c.maxGraphs = 8, 8, 8
	c.requests = 1000
	return c
}

// The algorithms of the study, by the paper's names, then the reference
// series: CM's dining layer alone and the modular algorithm over it (the
// other reading of CM and CMR), and the central coordinator with and
// without the modular algorithm (not in the paper).
var rheeAlgos = []struct{ short, name string }{
	{"CM", "drinking-hygienic"},
	{"CS", "doorway"},
	{"CMR", "modular-drinking-hygienic"},
	{"CSR", "modular-doorway"},
	{"hygienic", "hygienic"},
	{"modular-hygienic", "modular-hygienic"},
	{"central", "central"},
	{"modular-central", "modular-central"},
}

// rheeLookup finds an algorithm in the catalogue, composing modular-<sub>
// for a subroutine the catalogue does not compose itself (the modular
// algorithm over a drinking algorithm).
func rheeLookup(name string) (algo.Algorithm, error) {
	a, err := all.Lookup(name)
	if err != nil && strings.HasPrefix(name, "modular-") {
		if sub, err2 := rheeLookup(strings.TrimPrefix(name, "modular-")); err2 == nil {
			return modular.For(sub), nil
		}
	}
	return a, err
}

// rheeOut is one simulation: an algorithm on one graph at one point.
type rheeOut struct {
	Resp, Msgs, Degree float64
}

// rheeSample is the per-graph results of one algorithm at one point.
type rheeSample struct{ resp, msgs, degree []float64 }

// precise is the paper's stopping rule: both 95 % intervals within 5 % of
// their means.
func (s *rheeSample) precise() bool { return sweep.Precise(0.05, s.resp, s.msgs) }

func runRhee(ctx context.Context, o study.Options) ([]study.Claim, error) {
	cfg := rheeFull()
	if o.Quick {
		cfg = rheeQuick()
	}
	var algs []algo.Algorithm
	var short []string
	var missing []string
	for _, a := range rheeAlgos {
		alg, err := rheeLookup(a.name)
		if err != nil {
			missing = append(missing, a.short+" ("+a.name+")")
			continue
		}
		algs = append(algs, alg)
		short = append(short, a.short)
	}
	// The points: (algorithm, service, size); each runs random conflict
	// graphs until its intervals are within 5 % of the means (the paper's
	// rule) or it reaches maxGraphs.
	type point struct{ alg, service, size int }
	var pts []point
	var keys []string
	for ai := range algs {
		for vi, s := range cfg.services {
			for si, k := range cfg.sizes {
				pts = append(pts, point{ai, vi, si})
				keys = append(keys, fmt.Sprintf("%s-S%d-k%d", algs[ai].Name, s, k))
			}
		}
	}
	rule := sweep.Rule{Min: cfg.minGraphs, Batch: cfg.batch, Max: cfg.maxGraphs}
	reps, err := sweep.Repeat(ctx, o.Points, "rhee", keys, rule, func(i, g int) (rheeOut, error) {
		p := pts[i]
		out, err := rheeSimulate(cfg, algs[p.alg], cfg.sizes[p.size], cfg.services[p.service], o.Seed, g)
		if err != nil {
			return out, fmt.Errorf("rhee: %s, set size %d, S=%d, graph %d: %w", algs[p.alg].Name, cfg.sizes[p.size], cfg.services[p.service], g, err)
		}
		return out, nil
	}, func(_ int, rs []rheeOut) bool {
		s := sample(rs)
		return s.precise()
	})
	if err != nil {
		return nil, err
	}
	// res[alg][service][size] = per-graph samples.
	res := make([][][]rheeSample, len(algs))
	for ai := range res {
		res[ai] = make([][]rheeSample, len(cfg.services))
		for vi := range res[ai] {
			res[ai][vi] = make([]rheeSample, len(cfg.sizes))
		}
	}
	for i, p := range pts {
		res[p.alg][p.service][p.size] = sample(reps[i])
	}
	// The x of a point: the average conflict degree over its first
	// minGraphs graphs, which every algorithm ran.
	xs := make([]float64, len(cfg.sizes))
	for si := range cfg.sizes {
		xs[si], _ = sweep.CI95(res[0][0][si].degree[:cfg.minGraphs])
	}
	st := &rheeStats{cfg: cfg, short: short, xs: xs}
	st.resp = make([][][][2]float64, len(algs))
	st.msgs = make([][][][2]float64, len(algs))
	st.graphs = [2]int{cfg.maxGraphs, 0}
	for ai := range algs {
		st.resp[ai] = make([][][2]float64, len(cfg.services))
		st.msgs[ai] = make([][][2]float64, len(cfg.services))
		for vi := range cfg.services {
			for si := range cfg.sizes {
				s := &res[ai][vi][si]
				m, ci := sweep.CI95(s.resp)
				st.resp[ai][vi] = append(st.resp[ai][vi], [2]float64{m, ci})
				m, ci = sweep.CI95(s.msgs)
				st.msgs[ai][vi] = append(st.msgs[ai][vi], [2]float64{m, ci})
				st.points++
				if s.precise() {
					st.precise++
				}
				st.graphs = [2]int{min(st.graphs[0], len(s.resp)), max(st.graphs[1], len(s.resp))}
			}
		}
	}
	if o.OutDir != "" {
		if err := st.figures(o.OutDir); err != nil {
			return nil, err
		}
	}
	return st.claims(missing), nil
}

func sample(rs []rheeOut) rheeSample {
	var s rheeSample
	for _, r := range rs {
		s.resp = append(s.resp, r.Resp)
		s.msgs = append(s.msgs, r.Msgs)
		s.degree = append(s.degree, r.Degree)
	}
	return s
}

// rheeSimulate runs one algorithm on graph g of a point and returns its
// mean response time and messages per answered request.
func rheeSimulate(cfg rheeConfig, a algo.Algorithm, size, service int, seed uint64, g int) (rheeOut, error) {
	// The graph depends on the point and g only, so every algorithm and
	// every S sees the same graphs.
	gseed := seed*1_000_003 + uint64(size)*7919 + uint64(g)
	rnd := rand.New(rand.NewPCG(gseed, 0x726865))
	d := workload.Dynamic{Users: cfg.users, Resources: cfg.resources, MinDemand: size, MaxDemand: size, FixedSets: true}
	pb, next, err := d.Problem(rnd)
	if err != nil {
		return rheeOut{}, err
	}
	pb.FIFO = a.NeedsFIFO
	procs, err := a.Build(pb)
	if err != nil {
		return rheeOut{}, err
	}
	serv := dist.Uniform(1, proc.Time(2*service-1)) // mean S
	var rec metrics.Recorder
	var excl check.Exclusion
	res, err := sim.Run(sim.Config{Seed: gseed ^ uint64(service)<<40, Requests: cfg.requests, Sink: proc.Sinks{&rec, &excl}, Net: sim.Network{Delay: cfg.delay, FIFO: a.NeedsFIFO, Cost: 1, SendCost: 1}, Work: app.Workload{Think: cfg.think, CSTime: func(_ proc.ID, r proc.Request, rnd *rand.Rand) proc.Time {
		var t proc.Time
		for range r.Res {
			t += serv.Draw(rnd)
		}
		return t
	}, Next: next}}, pb, procs)
	switch {
	case err != nil:
		return rheeOut{}, err
	case !excl.OK():
		return rheeOut{}, fmt.Errorf("exclusion violated: %s", excl.First[0])
	case res.Deadlock:
		return rheeOut{}, fmt.Errorf("deadlock at t=%d", res.End)
	}
	sum := rec.Summary(res.End)
	if sum.Served == 0 {
		return rheeOut{}, fmt.Errorf("nothing served")
	}
	deg := 2 * float64(pb.Conflict.M()) / float64(pb.Users)
	return rheeOut{Resp: sum.Response.Mean, Msgs: float64(res.Messages) / float64(sum.Served), Degree: deg}, nil
}

// rheeStats holds the measured means and CIs.
type rheeStats struct {
	cfg   rheeConfig
	short []string
	xs    []float64
	// [alg][service][size] = {mean, CI half-width}
	resp, msgs [][][][2]float64
	// How many (algorithm, point) pairs met the 5 % rule, of how many; the
	// fewest and most graphs a pair ran.
	precise, points int
	graphs          [2]int
}

func (st *rheeStats) alg(short string) int {
	for i, s := range st.short {
		if s == short {
			return i
		}
	}
	return -1
}

func (st *rheeStats) figures(dir string) error {
	if err := st.table(filepath.Join(dir, "rhee.csv")); err != nil {
		return err
	}
	for vi, s := range st.cfg.services {
		var series []report.Series
		for ai, name := range st.short {
			sr := report.Series{Name: name, X: st.xs}
			for _, p := range st.resp[ai][vi] {
				sr.Y = append(sr.Y, p[0])
				sr.Err = append(sr.Err, p[1])
			}
			series = append(series, sr)
		}
		path := filepath.Join(dir, fmt.Sprintf("rhee-response-S%d.svg", s))
		title := fmt.Sprintf("Mean response time, service time %d, message delay %.0f", s, st.cfg.delay.Mean())
		if err := report.LinePlot(path, title, "average number of conflicting users", "mean response time (ticks)", series); err != nil {
			return err
		}
	}
	vi := len(st.cfg.services) - 1
	var series []report.Series
	for ai, name := range st.short {
		sr := report.Series{Name: name, X: st.xs}
		for _, p := range st.msgs[ai][vi] {
			sr.Y = append(sr.Y, p[0])
			sr.Err = append(sr.Err, p[1])
		}
		series = append(series, sr)
	}
	path := filepath.Join(dir, fmt.Sprintf("rhee-messages-S%d.svg", st.cfg.services[vi]))
	title := fmt.Sprintf("Messages per entry, service time %d, message delay %.0f", st.cfg.services[vi], st.cfg.delay.Mean())
	return report.LinePlot(path, title, "average number of conflicting users", "messages per critical section", series)
}

// table writes every measured point as CSV.
func (st *rheeStats) table(path string) error {
	var b strings.Builder
	b.WriteString("algorithm,service,set_size,conflicting_users,response_mean,response_ci95,messages_per_entry,messages_ci95\n")
	for ai, name := range st.short {
		for vi, s := range st.cfg.services {
			for si, k := range st.cfg.sizes {
				r, m := st.resp[ai][vi][si], st.msgs[ai][vi][si]
				fmt.Fprintf(&b, "%s,%d,%d,%.2f,%.1f,%.1f,%.2f,%.2f\n", name, s, k, st.xs[si], r[0], r[1], m[0], m[1])
			}
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// claims states the paper's claims against the measurements. A claim that
// needs an algorithm missing from the build fails and says so.
func (st *rheeStats) claims(missing []string) []study.Claim {
	gap := ""
	if len(missing) > 0 {
		gap = "; not in this build, so not run: " + strings.Join(missing, ", ")
	}
	cm, cs, cmr, csr := st.alg("CM"), st.alg("CS"), st.alg("CMR"), st.alg("CSR")
	have := func(as ...int) bool {
		for _, a := range as {
			if a < 0 {
				return false
			}
		}
		return true
	}
	mean := func(a, vi, si int) float64 { return st.resp[a][vi][si][0] }
	pct := func(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }
	last := len(st.cfg.sizes) - 1
	top := len(st.cfg.services) - 1
	d := st.cfg.delay.Mean()
	var out []study.Claim
	add := func(id, claim, measured string, pass bool) {
		if strings.HasSuffix(measured, ": ") {
			measured += "not measured"
		}
		out = append(out, study.Claim{ID: "rhee/" + id, Paper: "rhee §6", Claim: claim, Measured: measured + gap, Pass: pass})
	}

	// CM is the slowest in every setting. The same count for CM's dining
	// layer alone (hygienic) is reported for reference.
	slowest := func(cm int) (points, bad int, not []string) {
		for vi, s := range st.cfg.services {
			var xs []string
			for si := range st.cfg.sizes {
				points++
				for _, a := range []int{cs, cmr, csr} {
					if a >= 0 && cm >= 0 && mean(cm, vi, si) <= mean(a, vi, si) {
						xs = append(xs, fmt.Sprintf("x=%.1f (%s %.0f, %s %.0f)", st.xs[si], st.short[cm], mean(cm, vi, si), st.short[a], mean(a, vi, si)))
						bad++
						break
					}
				}
			}
			if len(xs) > 0 {
				not = append(not, fmt.Sprintf("S=%d: %s", s, strings.Join(xs, ", ")))
			}
		}
		return points, bad, not
	}
	{
		points, bad, not := slowest(cm)
		measured := fmt.Sprintf("CM slowest at %d of %d points", points-bad, points)
		if bad > 0 {
			measured += "; not at " + strings.Join(not, "; ")
		}
		if h := st.alg("hygienic"); h >= 0 {
			p, b, _ := slowest(h)
			measured += fmt.Sprintf("; reference, not judged: hygienic (CM's dining layer alone) slowest at %d of %d points", p-b, p)
		}
		add("cm-slowest", "Chandy and Misra's algorithm (CM: their drinking philosophers, Table 1 and ref. [3]; here drinking-hygienic) is worst in every case",
			measured, bad == 0 && have(cm) && (cs >= 0 || cmr >= 0 || csr >= 0))
	}

	// At high contention and S/d ≥ 1.5, CMR and CSR beat CM (up to 80 %)
	// and CS (up to 60 %).
	beats := func(id string, base int, baseName, paper, note string) {
		ok := have(base) && (cmr >= 0 || csr >= 0)
		var parts []string
		for vi, s := range st.cfg.services {
			if float64(s)/d < 1.5 {
				continue
			}
			for _, m := range []int{cmr, csr} {
				if m < 0 || base < 0 {
					continue
				}
				imp := 1 - mean(m, vi, last)/mean(base, vi, last)
				parts = append(parts, fmt.Sprintf("%s at S=%d: %s", st.short[m], s, pct(imp)))
				if imp <= 0 {
					ok = false
				}
			}
		}
		if h := st.alg("hygienic"); base == cm && h >= 0 {
			var refs []string
			for vi, s := range st.cfg.services {
				for _, m := range []int{cmr, csr, st.alg("modular-hygienic")} {
					if m >= 0 && float64(s)/d >= 1.5 {
						refs = append(refs, fmt.Sprintf("%s at S=%d: %s", st.short[m], s, pct(1-mean(m, vi, last)/mean(h, vi, last))))
					}
				}
			}
			parts = append(parts, "(reference, not judged: over hygienic, CM's dining layer alone: "+strings.Join(refs, ", ")+")")
		}
		add(id, fmt.Sprintf("with many conflicting users and service time ≥ 1.5 × message delay, CMR and CSR respond faster than %s (paper: up to %s better)%s", baseName, paper, note),
			fmt.Sprintf("improvement over %s at x=%.1f (paper: up to %s): %s", baseName, st.xs[last], paper, strings.Join(parts, ", ")), ok && len(parts) > 0)
	}
	beats("modular-beats-cm", cm, "CM", "80%", " (CM: Chandy–Misra's drinking philosophers, drinking-hygienic; CMR: the modular algorithm over it)")
	beats("modular-beats-cs", cs, "CS", "60%", "")

	// CS is the fastest when few users conflict.
	{
		ok := have(cs)
		var parts []string
		for vi, s := range st.cfg.services {
			if !have(cs) {
				break
			}
			best, who := math.Inf(1), ""
			for _, a := range []int{cm, cmr, csr} {
				if a >= 0 && mean(a, vi, 0) < best {
					best, who = mean(a, vi, 0), st.short[a]
				}
			}
			part := fmt.Sprintf("S=%d: CS %.0f, best other %s %.0f", s, mean(cs, vi, 0), who, best)
			if h := st.alg("hygienic"); h >= 0 {
				part += fmt.Sprintf(" (reference, not judged: hygienic %.0f)", mean(h, vi, 0))
			}
			parts = append(parts, part)
			if mean(cs, vi, 0) >= best {
				ok = false
			}
		}
		add("cs-best-low", "CS performs better than all other algorithms tested when the average number of conflicting users is small",
			fmt.Sprintf("at x=%.1f: %s", st.xs[0], strings.Join(parts, "; ")), ok)
	}

	// CS grows more steeply than CMR and CSR as contention rises: the
	// ratio of CS's response to theirs increases over the upper half of
	// the x range, at every S.
	{
		ok := have(cs) && (cmr >= 0 || csr >= 0)
		var parts []string
		for vi, s := range st.cfg.services {
			for _, m := range []int{cmr, csr} {
				if m < 0 || cs < 0 {
					continue
				}
				var rs []string
				prev := 0.0
				for si := len(st.cfg.sizes) / 2; si <= last; si++ {
					r := mean(cs, vi, si) / mean(m, vi, si)
					rs = append(rs, fmt.Sprintf("%.2f", r))
					if r <= prev {
						ok = false
					}
					prev = r
				}
				parts = append(parts, fmt.Sprintf("S=%d CS/%s %s", s, st.short[m], strings.Join(rs, "→")))
			}
		}
		add("cs-steeper", "as the number of conflicting users grows, the response time of CS grows more steeply than those of CSR and CMR",
			fmt.Sprintf("over x=%.1f..%.1f: %s", st.xs[len(st.cfg.sizes)/2], st.xs[last], strings.Join(parts, "; ")), ok && len(parts) > 0)
	}

	// The modular advantage grows with S/d, at the highest contention.
	{
		ok := true
		var parts []string
		for _, pair := range [][2]int{{cmr, cm}, {csr, cs}} {
			m, b := pair[0], pair[1]
			if m < 0 || b < 0 {
				ok = false
				continue
			}
			var advs []string
			for vi, s := range st.cfg.services {
				advs = append(advs, fmt.Sprintf("S=%d %s", s, pct(1-mean(m, vi, last)/mean(b, vi, last))))
			}
			if 1-mean(m, top, last)/mean(b, top, last) <= 1-mean(m, 0, last)/mean(b, 0, last) {
				ok = false
			}
			parts = append(parts, fmt.Sprintf("%s over %s: %s", st.short[m], st.short[b], strings.Join(advs, ", ")))
		}
		if m, b := st.alg("modular-hygienic"), st.alg("hygienic"); m >= 0 && b >= 0 {
			var advs []string
			for vi, s := range st.cfg.services {
				advs = append(advs, fmt.Sprintf("S=%d %s", s, pct(1-mean(m, vi, last)/mean(b, vi, last))))
			}
			parts = append(parts, "(reference, not judged: modular-hygienic over hygienic: "+strings.Join(advs, ", ")+")")
		}
		add("advantage-grows", "the improvement of the modular algorithm over its subroutine grows with the ratio of service time to message delay",
			fmt.Sprintf("at x=%.1f: %s", st.xs[last], strings.Join(parts, "; ")), ok)
	}

	// The modular algorithms send more messages than their subroutines,
	// by a small factor (here: at most 4).
	{
		const small = 4.0
		ok := true
		var parts []string
		ratios := func(a, b int) (lo, hi float64) {
			lo = math.Inf(1)
			for si := range st.cfg.sizes {
				r := st.msgs[a][top][si][0] / st.msgs[b][top][si][0]
				lo, hi = min(lo, r), max(hi, r)
			}
			return lo, hi
		}
		for _, pair := range [][2]int{{cmr, cm}, {csr, cs}} {
			m, b := pair[0], pair[1]
			if m < 0 || b < 0 {
				ok = false
				continue
			}
			lo, hi := ratios(m, b)
			if lo <= 1 || hi > small {
				ok = false
			}
			parts = append(parts, fmt.Sprintf("%s/%s %.2f–%.2f", st.short[m], st.short[b], lo, hi))
		}
		for _, pair := range [][2]string{{"modular-hygienic", "hygienic"}, {"modular-central", "central"}} {
			if a, b := st.alg(pair[0]), st.alg(pair[1]); a >= 0 && b >= 0 {
				lo, hi := ratios(a, b)
				parts = append(parts, fmt.Sprintf("(reference, not judged: %s/%s %.1f–%.1f)", pair[0], pair[1], lo, hi))
			}
		}
		add("messages", "the combined algorithms require more messages than their subroutines, a small increase (here: a factor above 1 and at most 4)",
			fmt.Sprintf("messages per entry at S=%d, over x=%.1f..%.1f: %s", st.cfg.services[top], st.xs[0], st.xs[last], strings.Join(parts, ", ")), ok)
	}

	// The paper's precision: 95 % intervals within 5 % of the means.
	add("precision", "simulation runs long enough that the 95 % confidence intervals of mean response time and messages are within 5 % of the measured values",
		fmt.Sprintf("%d of %d (algorithm, point) pairs within 5 %% after %d–%d random conflict graphs each", st.precise, st.points, st.graphs[0], st.graphs[1]),
		st.precise == st.points)
	return out
}
