package experiments

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"allot/algo"
	"allot/algo/all"
	"allot/check"
	"allot/metrics"
	"allot/proc"
	"allot/report"
	"allot/sim"
	"allot/workload"
)

// Rhee reproduces the simulation study of Rhee §6: the mean response time
// of Chandy–Misra (CM = hygienic), Choy–Singh (CS = doorway) and the modular
// algorithm over each (CMR, CSR), against the average number of conflicting
// users, for resource service times S = 25..100 and message delay 50.
//
// The model, as in the paper: 100 users and 100 resources; each user's
// resource set is drawn uniformly at random once per run (a random conflict
// graph); think time uniform with mean 25; a critical section lasts the sum
// of one service time per resource held, each uniform with mean S; message
// delay uniform with mean 50 on unordered channels (FIFO for algorithms
// that need it); one tick per executed action (the simulator's processing
// cost). The set size k sets the contention: the x-axis is the measured
// average degree of the conflict graphs. Each point averages many random
// graphs, with a 95 % confidence interval over the graphs. The graphs, the
// request times and the service times are the same for every algorithm at
// a point (common random numbers).
//
// central and modular-central are run for reference; they are not in the
// paper. Algorithms missing from the catalogue are left out, and the claims
// that need them say so.
func Rhee() Experiment {
	return Experiment{
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
	graphs           int   // random conflict graphs per point
	requests         int   // answered requests per run
	delay, think     workload.Dist
}

func rheeFull() rheeConfig {
	return rheeConfig{
		users: 100, resources: 100,
		sizes:    []int{1, 2, 3, 4, 5, 6, 8},
		services: []int{25, 50, 75, 100},
		graphs:   24,
		requests: 2000,
		delay:    workload.Uniform(1, 99), // mean 50
		think:    workload.Uniform(0, 50), // mean 25
	}
}

// rheeQuick keeps the full model (100 users, 100 resources) and fewer,
// shorter runs.
func rheeQuick() rheeConfig {
	c := rheeFull()
	c.sizes = []int{1, 3, 6}
	c.services = []int{25, 100}
	c.graphs = 4
	c.requests = 600
	return c
}

// The algorithms of the study, by the paper's names.
var rheeAlgos = []struct{ short, name string }{
	{"CM", "hygienic"},
	{"CS", "doorway"},
	{"CMR", "modular-hygienic"},
	{"CSR", "modular-doorway"},
	{"central", "central"},
	{"modular-central", "modular-central"},
}

// rheeRun is one simulation: an algorithm on one graph at one point.
type rheeRun struct {
	alg, size, service, graph int
}

type rheeOut struct {
	resp, msgs, degree float64
	err                error
}

func runRhee(ctx context.Context, o Options) ([]Claim, error) {
	cfg := rheeFull()
	if o.Quick {
		cfg = rheeQuick()
	}

	var algs []algo.Algorithm
	var short []string
	var missing []string
	for _, a := range rheeAlgos {
		alg, err := all.Lookup(a.name)
		if err != nil {
			missing = append(missing, a.short+" ("+a.name+")")
			continue
		}
		algs = append(algs, alg)
		short = append(short, a.short)
	}
	var runs []rheeRun
	for ai := range algs {
		for si := range cfg.sizes {
			for vi := range cfg.services {
				for g := 0; g < cfg.graphs; g++ {
					runs = append(runs, rheeRun{ai, si, vi, g})
				}
			}
		}
	}
	outs := make([]rheeOut, len(runs))
	if err := rheeParallel(ctx, len(runs), o.Progress, func(i int) {
		r := runs[i]
		outs[i] = rheeSimulate(cfg, algs[r.alg], cfg.sizes[r.size], cfg.services[r.service], o.Seed, r.graph)
	}); err != nil {
		return nil, err
	}
	// res[alg][service][size] = per-graph samples.
	type sample struct{ resp, msgs, degree []float64 }
	res := make([][][]sample, len(algs))
	for ai := range res {
		res[ai] = make([][]sample, len(cfg.services))
		for vi := range res[ai] {
			res[ai][vi] = make([]sample, len(cfg.sizes))
		}
	}
	for i, r := range runs {
		out := outs[i]
		if out.err != nil {
			return nil, fmt.Errorf("rhee: %s, set size %d, S=%d, graph %d: %w", algs[r.alg].Name, cfg.sizes[r.size], cfg.services[r.service], r.graph, out.err)
		}
		s := &res[r.alg][r.service][r.size]
		s.resp = append(s.resp, out.resp)
		s.msgs = append(s.msgs, out.msgs)
		s.degree = append(s.degree, out.degree)
	}
	// The x of a point: the average conflict degree over its graphs (the
	// same graphs for every algorithm and S).
	xs := make([]float64, len(cfg.sizes))
	for si := range cfg.sizes {
		xs[si], _ = rheeMeanCI(res[0][0][si].degree)
	}
	st := &rheeStats{cfg: cfg, short: short, xs: xs}
	st.resp = make([][][][2]float64, len(algs))
	st.msgs = make([][][][2]float64, len(algs))
	for ai := range algs {
		st.resp[ai] = make([][][2]float64, len(cfg.services))
		st.msgs[ai] = make([][][2]float64, len(cfg.services))
		for vi := range cfg.services {
			for si := range cfg.sizes {
				m, ci := rheeMeanCI(res[ai][vi][si].resp)
				st.resp[ai][vi] = append(st.resp[ai][vi], [2]float64{m, ci})
				m, ci = rheeMeanCI(res[ai][vi][si].msgs)
				st.msgs[ai][vi] = append(st.msgs[ai][vi], [2]float64{m, ci})
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

// rheeSimulate runs one algorithm on graph g of a point and returns its
// mean response time and messages per answered request.
func rheeSimulate(cfg rheeConfig, a algo.Algorithm, size, service int, seed uint64, g int) rheeOut {
	// The graph depends on the point and g only, so every algorithm and
	// every S sees the same graphs.
	gseed := seed*1_000_003 + uint64(size)*7919 + uint64(g)
	rnd := rand.New(rand.NewPCG(gseed, 0x726865))
	d := workload.Dynamic{Users: cfg.users, Resources: cfg.resources, MinDemand: size, MaxDemand: size, FixedSets: true}
	pb, next, err := d.Problem(rnd)
	if err != nil {
		return rheeOut{err: err}
	}
	pb.FIFO = a.NeedsFIFO
	procs, err := a.Build(pb)
	if err != nil {
		return rheeOut{err: err}
	}
	serv := workload.Uniform(1, proc.Time(2*service-1)) // mean S
	var rec metrics.Recorder
	var excl check.Exclusion
	res, err := sim.Run(sim.Config{
		Seed:  gseed ^ uint64(service)<<40,
		Delay: cfg.delay,
		FIFO:  a.NeedsFIFO,
		Think: cfg.think,
		CSTime: func(_ proc.ID, r proc.Request, rnd *rand.Rand) proc.Time {
			var t proc.Time
			for range r.Res {
				t += serv.Draw(rnd)
			}
			return t
		},
		Cost:     1,
		Requests: cfg.requests,
		Next:     next,
		Sink:     proc.Sinks{&rec, &excl},
	}, pb, procs)
	switch {
	case err != nil:
		return rheeOut{err: err}
	case !excl.OK():
		return rheeOut{err: fmt.Errorf("exclusion violated: %s", excl.First[0])}
	case res.Deadlock:
		return rheeOut{err: fmt.Errorf("deadlock at t=%d", res.End)}
	}
	sum := rec.Summary(res.End)
	if sum.Served == 0 {
		return rheeOut{err: fmt.Errorf("nothing served")}
	}
	deg := 2 * float64(pb.Conflict.M()) / float64(pb.Users)
	return rheeOut{resp: sum.Response.Mean, msgs: float64(res.Messages) / float64(sum.Served), degree: deg}
}

// rheeParallel runs f(0..n-1) on all cores and reports progress from one
// goroutine. Results must be written by index, so the outcome does not
// depend on scheduling.
func rheeParallel(ctx context.Context, n int, progress func(done, total int), f func(i int)) error {
	work := make(chan int)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				f(i)
				done <- struct{}{}
			}
		}()
	}
	go func() {
		defer close(work)
		for i := 0; i < n; i++ {
			select {
			case work <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(done) }()
	finished := 0
	for range done {
		finished++
		if progress != nil {
			progress(finished, n)
		}
	}
	if finished < n {
		return ctx.Err()
	}
	return nil
}

// rheeMeanCI is the sample mean and the half-width of its 95 % confidence
// interval (Student's t).
func rheeMeanCI(xs []float64) (mean, half float64) {
	n := len(xs)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	if n < 2 {
		return mean, math.Inf(1)
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	return mean, rheeT95(n-1) * sd / math.Sqrt(float64(n))
}

// rheeT95 is the two-sided 95 % quantile of Student's t with df degrees
// of freedom.
func rheeT95(df int) float64 {
	table := []float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df < len(table) {
		return table[df]
	}
	return 1.96 + 2.4/float64(df) // within 0.5 % of the exact value for df > 30
}

// rheeStats holds the measured means and CIs.
type rheeStats struct {
	cfg   rheeConfig
	short []string
	xs    []float64
	// [alg][service][size] = {mean, CI half-width}
	resp, msgs [][][][2]float64
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

// claims states the paper's claims against the measurements.
func (st *rheeStats) claims(missing []string) []Claim {
	var out []Claim
	gap := ""
	if len(missing) > 0 {
		gap = "; not in this build, so not run: " + strings.Join(missing, ", ")
	}
	cm, cs, cmr, csr := st.alg("CM"), st.alg("CS"), st.alg("CMR"), st.alg("CSR")
	paperAlgs := []int{}
	for _, a := range []int{cs, cmr, csr} {
		if a >= 0 {
			paperAlgs = append(paperAlgs, a)
		}
	}
	mean := func(a, vi, si int) float64 { return st.resp[a][vi][si][0] }
	last := len(st.cfg.sizes) - 1
	d := st.cfg.delay.Mean()

	// 1. CM is the slowest in every setting.
	{
		var not []string
		points, bad := 0, 0
		for vi, s := range st.cfg.services {
			var xs []string
			for si := range st.cfg.sizes {
				points++
				for _, a := range paperAlgs {
					if mean(cm, vi, si) <= mean(a, vi, si) {
						xs = append(xs, fmt.Sprintf("x=%.1f (CM %.0f, %s %.0f)", st.xs[si], mean(cm, vi, si), st.short[a], mean(a, vi, si)))
						bad++
						break
					}
				}
			}
			if len(xs) > 0 {
				not = append(not, fmt.Sprintf("S=%d: %s", s, strings.Join(xs, ", ")))
			}
		}
		measured := fmt.Sprintf("CM slowest at %d of %d points", points-bad, points)
		if bad > 0 {
			measured += "; not at " + strings.Join(not, "; ")
		}
		out = append(out, Claim{
			ID: "rhee/cm-slowest", Paper: "rhee §6",
			Claim:    "Chandy and Misra's algorithm (CM) is worst in every case",
			Measured: measured + gap,
			Pass:     len(not) == 0 && len(paperAlgs) > 0,
		})
	}

	// 2. At high contention and S/d ≥ 1.5, CMR and CSR beat CS and CM.
	{
		ok := true
		var parts []string
		for vi, s := range st.cfg.services {
			if float64(s)/d < 1.5 {
				continue
			}
			for _, m := range []int{cmr, csr} {
				if m < 0 {
					continue
				}
				for _, b := range []int{cs, cm} {
					if b < 0 {
						continue
					}
					imp := 1 - mean(m, vi, last)/mean(b, vi, last)
					parts = append(parts, fmt.Sprintf("%s vs %s at S=%d: %.0f%%", st.short[m], st.short[b], s, 100*imp))
					if imp <= 0 {
						ok = false
					}
				}
			}
		}
		out = append(out, Claim{
			ID: "rhee/modular-wins", Paper: "rhee §6",
			Claim:    "with many conflicting users and service time ≥ 1.5 × message delay, CMR and CSR respond faster than CS and CM (up to 60 % over CS, 80 % over CM)",
			Measured: fmt.Sprintf("improvement at x=%.1f: %s%s", st.xs[last], strings.Join(parts, ", "), gap),
			Pass:     ok && len(parts) > 0,
		})
	}

	// 3. CS is best when few users conflict.
	if cs >= 0 {
		ok := true
		var parts []string
		for vi, s := range st.cfg.services {
			best := math.Inf(1)
			for _, a := range []int{cm, cmr, csr} {
				if a >= 0 {
					best = min(best, mean(a, vi, 0))
				}
			}
			parts = append(parts, fmt.Sprintf("S=%d: CS %.0f, best other %.0f", s, mean(cs, vi, 0), best))
			if mean(cs, vi, 0) >= best {
				ok = false
			}
		}
		out = append(out, Claim{
			ID: "rhee/cs-best-low", Paper: "rhee §6",
			Claim:    "CS performs better than all other algorithms tested when the average number of conflicting users is small",
			Measured: fmt.Sprintf("at x=%.1f: %s", st.xs[0], strings.Join(parts, "; ")),
			Pass:     ok,
		})
	} else {
		out = append(out, Claim{
			ID: "rhee/cs-best-low", Paper: "rhee §6",
			Claim:    "CS performs better than all other algorithms tested when the average number of conflicting users is small",
			Measured: "not measured: CS (doorway) is not in this build",
			Pass:     false,
		})
	}

	// 4. The modular advantage grows with S/d.
	{
		ok := true
		var parts []string
		for _, pair := range [][2]int{{cmr, cm}, {csr, cs}} {
			m, b := pair[0], pair[1]
			if m < 0 || b < 0 {
				continue
			}
			var advs []string
			first := 1 - mean(m, 0, last)/mean(b, 0, last)
			lastAdv := 1 - mean(m, len(st.cfg.services)-1, last)/mean(b, len(st.cfg.services)-1, last)
			for vi, s := range st.cfg.services {
				advs = append(advs, fmt.Sprintf("S=%d %.0f%%", s, 100*(1-mean(m, vi, last)/mean(b, vi, last))))
			}
			if lastAdv <= first {
				ok = false
			}
			parts = append(parts, fmt.Sprintf("%s over %s: %s", st.short[m], st.short[b], strings.Join(advs, ", ")))
		}
		out = append(out, Claim{
			ID: "rhee/advantage-grows", Paper: "rhee §6",
			Claim:    "the improvement of the modular algorithm over its subroutine grows with the ratio of service time to message delay",
			Measured: fmt.Sprintf("at x=%.1f: %s%s", st.xs[last], strings.Join(parts, "; "), gap),
			Pass:     ok && len(parts) > 0,
		})
	}

	// 5. The modular algorithms send more messages than their subroutines,
	// by a small factor (here: at most 4).
	{
		const small = 4.0
		ok := true
		var parts []string
		vi := len(st.cfg.services) - 1
		for _, pair := range [][2]int{{cmr, cm}, {csr, cs}} {
			m, b := pair[0], pair[1]
			if m < 0 || b < 0 {
				continue
			}
			lo, hi := math.Inf(1), 0.0
			for si := range st.cfg.sizes {
				r := st.msgs[m][vi][si][0] / st.msgs[b][vi][si][0]
				lo, hi = min(lo, r), max(hi, r)
			}
			if lo <= 1 || hi > small {
				ok = false
			}
			parts = append(parts, fmt.Sprintf("%s/%s %.2f–%.2f", st.short[m], st.short[b], lo, hi))
		}
		if a, b := st.alg("modular-central"), st.alg("central"); a >= 0 && b >= 0 {
			lo, hi := math.Inf(1), 0.0
			for si := range st.cfg.sizes {
				r := st.msgs[a][vi][si][0] / st.msgs[b][vi][si][0]
				lo, hi = min(lo, r), max(hi, r)
			}
			parts = append(parts, fmt.Sprintf("(reference, not judged: modular-central/central %.1f–%.1f)", lo, hi))
		}
		out = append(out, Claim{
			ID: "rhee/messages", Paper: "rhee §6",
			Claim:    "the combined algorithms require more messages than their subroutines, with a small increase (here: a factor above 1 and at most 4)",
			Measured: fmt.Sprintf("messages per entry at S=%d, over x: %s%s", st.cfg.services[vi], strings.Join(parts, ", "), gap),
			Pass:     ok && len(parts) > 0,
		})
	}
	return out
}
