package rhee

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/allot-dev/allot/experiments/sweep"
	"github.com/allot-dev/allot/report"
)

// cell is one point, measured over its graphs.
type cell struct {
	resp, msgs [2]float64 // mean and 95 % half-width over the graphs
	// Per graph, in graph order (the same graphs at every algorithm and S
	// of an x): mean response, messages per entry, the run's longest
	// response and critical section, and its dynamic conflicting users.
	gResp, gMsgs, gMax, gCS, gConf []float64
	// Means per entry: the modular layer's own messages, of which dec and
	// advance; resources per request.
	layer, decAdv, size float64
	graphs              int
	// The runs' own precision: how many are within 5 % (batch means),
	// the widest relative half-width, and the answers measured.
	precise         int
	widest          float64
	fewest, longest int
}

// stats is the study's measurements.
type stats struct {
	c   config
	run []series
	// x[model][xi] is the measured average number of conflicting users;
	// dynX the conflicting users a request meets (§3) and maxDeg the
	// largest degree δ, both under the first algorithm, averaged over
	// the graphs.
	x, dynX, maxDeg [2][]float64
	cells           map[point]cell
	// The subroutines' runs of Theorem 5.12 (critical section 2d+2).
	subs    []point
	subRuns [][]outcome
}

func newStats(c config, run []series, pts []point, runs [][]outcome) *stats {
	st := &stats{c: c, run: run, cells: map[point]cell{}}
	for m := range 2 {
		n := len(c.xs)
		if setModel(m) == fixedSize {
			n = len(c.ks)
		}
		st.x[m], st.dynX[m], st.maxDeg[m] = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	for i, p := range pts {
		rs := runs[i]
		resp, msgs := columns(rs)
		ce := cell{gResp: resp, gMsgs: msgs, graphs: len(rs), fewest: math.MaxInt}
		ce.resp[0], ce.resp[1] = sweep.CI95(resp)
		ce.msgs[0], ce.msgs[1] = sweep.CI95(msgs)
		for _, r := range rs {
			ce.layer += r.Layer / float64(len(rs))
			ce.decAdv += r.DecAdv / float64(len(rs))
			ce.size += r.Size / float64(len(rs))
			ce.gMax, ce.gCS, ce.gConf = append(ce.gMax, r.MaxResp), append(ce.gCS, r.MaxCS), append(ce.gConf, r.Conflicting)
			if max(r.RespRel, r.MsgsRel) <= 0.05 {
				ce.precise++
			}
			ce.widest = max(ce.widest, r.RespRel, r.MsgsRel)
			ce.fewest, ce.longest = min(ce.fewest, r.Answers), max(ce.longest, r.Answers)
		}
		st.cells[p] = ce
		// The graphs are the same for every algorithm and S at a point:
		// x is their average degree, under the first algorithm at the
		// first S.
		if p.alg == 0 && p.s == st.services(p.model)[0] {
			for _, r := range rs {
				n := float64(len(rs))
				st.x[p.model][p.xi] += r.Degree / n
				st.dynX[p.model][p.xi] += r.Conflicting / n
				st.maxDeg[p.model][p.xi] += float64(r.MaxDeg) / n
			}
		}
	}
	return st
}

// services are the service times a set model ran at.
func (st *stats) services(m setModel) []int {
	if m == perResource {
		return st.c.services
	}
	return st.c.sens
}

func (st *stats) alg(short string) int {
	for i, s := range st.run {
		if s.short == short {
			return i
		}
	}
	return -1
}

// get is the cell of an algorithm (by short name) at a point.
func (st *stats) get(short string, m setModel, xi, s int) (cell, bool) {
	a := st.alg(short)
	if a < 0 {
		return cell{}, false
	}
	ce, ok := st.cells[point{a, m, xi, s}]
	return ce, ok
}

// resp is the mean response of an algorithm at a point (0 if not run).
func (st *stats) resp(short string, m setModel, xi, s int) float64 {
	ce, _ := st.get(short, m, xi, s)
	return ce.resp[0]
}

func (m setModel) title() string {
	if m == perResource {
		return "per-resource sets: each resource with probability p"
	}
	return "fixed-size sets of k resources (sensitivity series)"
}

func (st *stats) figures(dir string) error {
	if err := st.table(filepath.Join(dir, "rhee.csv")); err != nil {
		return err
	}
	d := st.c.delay.Mean()
	for _, m := range []setModel{perResource, fixedSize} {
		for _, s := range st.services(m) {
			path := filepath.Join(dir, fmt.Sprintf("rhee-response-%s-S%d.svg", m, s))
			title := fmt.Sprintf("Mean response, S = %d, delay %.0f; %s", s, d, m.title())
			ss := st.series(m, s, func(c cell) [2]float64 { return c.resp })
			if err := (report.Figure{Title: title, XLabel: "average number of conflicting users", YLabel: "mean response time (ticks, 95% CI)",
				Caption: st.caption(ss), Series: ss}).Write(path); err != nil {
				return err
			}
		}
		s := st.services(m)[len(st.services(m))-1]
		path := filepath.Join(dir, fmt.Sprintf("rhee-messages-%s-S%d.svg", m, s))
		title := fmt.Sprintf("Messages per entry, S = %d, delay %.0f; %s", s, d, m.title())
		ss := st.series(m, s, func(c cell) [2]float64 { return c.msgs })
		if err := (report.Figure{Title: title, XLabel: "average number of conflicting users", YLabel: "messages per critical section (95% CI)",
			Caption: st.caption(ss), Series: ss}).Write(path); err != nil {
			return err
		}
	}
	return nil
}

// caption says what the legend's short names stand for: the paper's four
// algorithms, then the reference series (dashed) the figure has.
func (st *stats) caption(shown []report.Series) string {
	var judged, ref []string
	for _, a := range st.run {
		if !slices.ContainsFunc(shown, func(s report.Series) bool { return s.Name == a.short }) {
			continue
		}
		if a.ref {
			ref = append(ref, a.short+" = "+a.name)
		} else {
			judged = append(judged, a.short+" = "+a.name)
		}
	}
	c := strings.Join(judged, ", ") + " (CMR, CSR: Rhee's modular algorithm over CM, CS)."
	if len(ref) > 0 {
		c += " Dashed, a reference not judged: " + strings.Join(ref, ", ") + "."
	}
	return c + " Bars: 95% confidence intervals."
}

// series is one line per algorithm run on model m at S = s, under its
// short name; the reference series dashed.
func (st *stats) series(m setModel, s int, y func(cell) [2]float64) []report.Series {
	var out []report.Series
	for ai, a := range st.run {
		sr := report.Series{Name: a.short, Dashed: a.ref}
		for xi, x := range st.x[m] {
			ce, ok := st.cells[point{ai, m, xi, s}]
			if !ok {
				continue
			}
			v := y(ce)
			sr.X, sr.Y, sr.Err = append(sr.X, x), append(sr.Y, v[0]), append(sr.Err, v[1])
		}
		if len(sr.X) > 0 {
			out = append(out, sr)
		}
	}
	return out
}

// table writes every measured point as CSV.
func (st *stats) table(path string) error {
	var b strings.Builder
	b.WriteString("algorithm,series,set_model,param,service,conflicting_users,graphs,response_mean,response_ci95,messages_per_entry,messages_ci95,modular_layer_messages,dec_advance_messages,resources_per_request,runs_within_5pct,widest_run_ci\n")
	for ai, a := range st.run {
		for _, m := range []setModel{perResource, fixedSize} {
			ps := st.c.params(m)
			for _, s := range st.services(m) {
				for xi := range ps {
					ce, ok := st.cells[point{ai, m, xi, s}]
					if !ok {
						continue
					}
					fmt.Fprintf(&b, "%s,%s,%s,%.4g,%d,%.2f,%d,%.1f,%.1f,%.2f,%.2f,%.2f,%.2f,%.3f,%d,%.3f\n", a.short, a.name, m, ps[xi], s, st.x[m][xi],
						ce.graphs, ce.resp[0], ce.resp[1], ce.msgs[0], ce.msgs[1], ce.layer, ce.decAdv, ce.size, ce.precise, ce.widest)
				}
			}
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
