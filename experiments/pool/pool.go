// Package pool reproduces the claims of Carvalho, "Distributed allocation
// of identical resources" (§1, §4), for R-RESOURCES (algo/pool) against
// the two baselines a user would otherwise build: central-pool (one owner,
// arrival order) and broadcast-pool (free-servers style, after Andrews,
// Dobkin and Downey, as §4 describes it).
//
// The model: n = 31 nodes share R = 5 units; each node thinks for an
// exponential time of mean T, asks for a unit, holds it uniform 50..150
// ticks (mean H = 100); messages take uniform 1..9 ticks each, on unordered
// channels. The offered load factor ρ = n·H / ((T+H)·R) (the units
// demanded if nobody waited, over R) runs from 0.2 to 0.99 by choosing T.
// R-RESOURCES runs on three trees of 31 nodes, the second axis: a line
// (diameter 30), a star (2) and a balanced binary tree (8); the baselines
// ignore the graph and run once per load. Every algorithm sees the same
// workload draws at a point. A run stops taking new requests after a fixed
// number of grants and ends when every open request is granted.
//
// Measures, from the event stream only (check.Pool, check.Waits,
// metrics.Recorder, metrics.Pool) and the driver's message count: messages
// per grant, mean and p99 waiting time, migration (the fraction of grants
// that give a unit to another node than its previous user) and utilisation.
//
// Claims and their pass rules (the constants are fixed here, not fitted):
//
//   - safety and no starvation on unordered channels: no violation of the
//     pool checker and no request left open, in every run of R-RESOURCES;
//   - bounded traffic as ρ → 1: R-RESOURCES' messages per grant at ρ = 0.99
//     is at most 1.5 times its value at ρ = 0.2 on every tree, and below the
//     broadcast pool's at ρ = 0.99;
//   - bounded waiting as ρ → 1: on every tree and at every load, the p99
//     wait of R-RESOURCES is at most B = ⌈(n−1)/R⌉·Hmax + 2·diam·Dmax,
//     the wait of a request behind every other node holding a unit once
//     (the longest hold) plus a unit's round trip across the tree (the
//     longest delay per hop); the growth of mean and p99 wait from ρ = 0.2
//     to 0.99 is reported for all three algorithms, and the broadcast
//     pool's p99 against the same bound on its complete graph;
//   - fewer migrations than the broadcast pool: R-RESOURCES' migration per
//     grant is below the broadcast pool's at every load, on every tree.
package pool

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/allot-dev/allot/experiments/study"
	"github.com/allot-dev/allot/experiments/sweep"
	"github.com/allot-dev/allot/report"
)

// Experiment is `allot repro pool`.
func Experiment() study.Experiment {
	return study.Experiment{
		Name:    "pool",
		Paper:   "carvalho",
		Summary: "R-RESOURCES vs central and broadcast pools: messages per grant, waiting, migration against the load factor, on a line, a star and a binary tree",
		Run:     runExperiment,
	}
}

const paper = "carvalho"

// diameters of Shapes, and of the broadcast pool's complete graph.
var diameters = map[string]int{"line:31": 30, "star:31": 2, "tree:31:2": 8, "complete": 1}

// bound is the waiting yardstick B of the package doc for a graph of
// diameter diam.
func bound(diam int) float64 {
	return float64((nodes-1+units-1)/units*holdMax + 2*diam*delayHi)
}

// curve is one series: a value per load, each a mean over seeds with the
// half-width of its 95 % interval.
type curve struct {
	name      string
	mean, err []float64
}

// table gathers the runs of one algorithm (and shape, for R-RESOURCES) by load.
type table struct {
	name string
	diam int
	runs [][]run // by load, then seed
}

func (t table) curve(f func(run) float64) curve {
	c := curve{name: t.name}
	for _, rs := range t.runs {
		xs := make([]float64, len(rs))
		for i, r := range rs {
			xs[i] = f(r)
		}
		m, h := sweep.CI95(xs)
		c.mean, c.err = append(c.mean, m), append(c.err, h)
	}
	return c
}

func perGrant(r run) float64  { return float64(r.Messages) / float64(max(1, r.Grants)) }
func meanWait(r run) float64  { return r.Wait.Mean }
func p99Wait(r run) float64   { return float64(r.Wait.P99) }
func maxWait(r run) float64   { return float64(r.Wait.Max) }
func migration(r run) float64 { return r.Pool.Migration }
func util(r run) float64      { return r.Pool.Utilisation }

// lastOf is f at the highest load for each table, joined.
func lastOf(ts []table, f func(run) float64) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		c := t.curve(f).mean
		s[i] = fmt.Sprintf("%.3f", c[len(c)-1])
	}
	return strings.Join(s, "/")
}

func runExperiment(ctx context.Context, o study.Options) ([]study.Claim, error) {
	seeds, requests := 6, 30000
	if o.Quick {
		seeds, requests = 2, 5000
	}
	js, rs, err := sweepAll(ctx, o, seeds, requests)
	if err != nil {
		return nil, err
	}
	// Tables: R-RESOURCES on each shape, then the two baselines.
	var tabs []table
	for _, s := range Shapes {
		tabs = append(tabs, table{name: "pool " + s, diam: diameters[s]})
	}
	tabs = append(tabs, table{name: "central-pool", diam: 1}, table{name: "broadcast-pool", diam: diameters["complete"]})
	for i := range tabs {
		tabs[i].runs = make([][]run, len(Loads))
	}
	for i, j := range js {
		t := j.shape
		if j.a > 0 {
			t = len(Shapes) + j.a - 1
		}
		tabs[t].runs[j.load] = append(tabs[t].runs[j.load], rs[i])
	}
	pools, bc := tabs[:len(Shapes)], tabs[len(tabs)-1]
	last := len(Loads) - 1

	claims := []study.Claim{safety(pools, tabs), traffic(pools, bc, last), waiting(pools, tabs, last), migrations(pools, bc)}
	if o.OutDir != "" {
		if err := figures(o.OutDir, tabs); err != nil {
			return nil, err
		}
	}
	return claims, nil
}

func safety(pools, all []table) study.Claim {
	var b strings.Builder
	pass := true
	figs := map[string]float64{}
	for _, t := range all {
		grants, viol, open := 0, 0, 0
		for _, rs := range t.runs {
			for _, r := range rs {
				grants, viol, open = grants+r.Grants, viol+r.Violations, open+r.Open
			}
		}
		isPool := strings.HasPrefix(t.name, "pool ")
		if isPool && (viol > 0 || open > 0 || grants == 0) {
			pass = false
		}
		fmt.Fprintf(&b, "%s: %d grants, %d violations, %d requests left open; ", t.name, grants, viol, open)
		figs[t.name+"/grants"], figs[t.name+"/violations"], figs[t.name+"/open"] = float64(grants), float64(viol), float64(open)
	}
	return study.Claim{
		ID: "pool/safety", Paper: paper + " §1, §3",
		Claim:    "a unit is never used by two nodes at once, and every request is granted (no deadlock, no starvation), with unordered channels",
		Measured: strings.TrimSuffix(b.String(), "; "),
		Figures:  figs,
		Pass:     pass,
	}
}

func traffic(pools []table, bc table, last int) study.Claim {
	var b strings.Builder
	pass := true
	bcMsgs := bc.curve(perGrant).mean
	figs := map[string]float64{}
	at := func(name string, c []float64, l int) {
		figs[fmt.Sprintf("%s/msgs_per_grant_rho=%.2f", name, Loads[l])] = c[l]
	}
	for _, t := range pools {
		c := t.curve(perGrant).mean
		ratio := c[last] / c[0]
		if ratio > 1.5 || c[last] >= bcMsgs[last] {
			pass = false
		}
		fmt.Fprintf(&b, "%s: %.2f msgs/grant at ρ=%.2f, %.2f at ρ=%.2f (×%.2f); ", t.name, c[0], Loads[0], c[last], Loads[last], ratio)
		at(t.name, c, 0)
		at(t.name, c, last)
		figs[t.name+"/growth"] = ratio
	}
	at(bc.name, bcMsgs, 0)
	at(bc.name, bcMsgs, last)
	figs[bc.name+"/growth"] = bcMsgs[last] / bcMsgs[0]
	fmt.Fprintf(&b, "broadcast-pool: %.1f → %.1f (×%.2f); rule: ×≤1.5 and below broadcast at ρ=%.2f", bcMsgs[0], bcMsgs[last], bcMsgs[last]/bcMsgs[0], Loads[last])
	return study.Claim{
		ID: "pool/traffic-bounded", Paper: paper + " §4",
		Claim:    "message traffic stays bounded as the load factor approaches 1 (it does not in the broadcast scheme)",
		Measured: b.String(),
		Figures:  figs,
		Pass:     pass,
	}
}

func waiting(pools, all []table, last int) study.Claim {
	var b strings.Builder
	pass := true
	figs := map[string]float64{}
	for _, t := range pools {
		p99 := t.curve(p99Wait).mean
		worst := 0.0
		for _, x := range p99 {
			worst = math.Max(worst, x)
		}
		if worst > bound(t.diam) {
			pass = false
		}
		fmt.Fprintf(&b, "%s: largest p99 %.0f ≤? B=%.0f; ", t.name, worst, bound(t.diam))
		figs[t.name+"/largest_p99"], figs[t.name+"/bound"] = worst, bound(t.diam)
	}
	for _, t := range all {
		mean, p99, mx := t.curve(meanWait).mean, t.curve(p99Wait).mean, t.curve(maxWait).mean
		fmt.Fprintf(&b, "%s: mean %.0f→%.0f (×%.1f), p99 %.0f→%.0f, max at ρ=%.2f %.0f; ",
			t.name, mean[0], mean[last], mean[last]/math.Max(mean[0], 1), p99[0], p99[last], Loads[last], mx[last])
		lo, hi := fmt.Sprintf("_rho=%.2f", Loads[0]), fmt.Sprintf("_rho=%.2f", Loads[last])
		figs[t.name+"/mean_wait"+lo], figs[t.name+"/mean_wait"+hi] = mean[0], mean[last]
		figs[t.name+"/p99_wait"+lo], figs[t.name+"/p99_wait"+hi] = p99[0], p99[last]
		figs[t.name+"/max_wait"+hi] = mx[last]
	}
	bc := all[len(all)-1]
	figs[bc.name+"/bound"] = bound(bc.diam)
	fmt.Fprintf(&b, "broadcast-pool p99 at ρ=%.2f %.0f against its B=%.0f (ticks, ρ %.2f→%.2f)",
		Loads[last], bc.curve(p99Wait).mean[last], bound(bc.diam), Loads[0], Loads[last])
	return study.Claim{
		ID: "pool/waiting-bounded", Paper: paper + " §4",
		Claim:    "waiting time stays bounded as the load factor approaches 1 (it does not in the broadcast scheme)",
		Measured: b.String(),
		Figures:  figs,
		Pass:     pass,
	}
}

func migrations(pools []table, bc table) study.Claim {
	var b strings.Builder
	pass := true
	bm := bc.curve(migration).mean
	figs := map[string]float64{}
	perLoad := func(name string, m []float64) {
		for l, x := range m {
			figs[fmt.Sprintf("%s/migrations_per_grant_rho=%.2f", name, Loads[l])] = x
		}
	}
	perLoad(bc.name, bm)
	hi := len(Loads) - 1
	figs[fmt.Sprintf("%s/utilisation_rho=%.2f", bc.name, Loads[hi])] = bc.curve(util).mean[hi]
	for _, t := range pools {
		m := t.curve(migration).mean
		perLoad(t.name, m)
		figs[fmt.Sprintf("%s/utilisation_rho=%.2f", t.name, Loads[hi])] = t.curve(util).mean[hi]
		var worse []string
		for l := range Loads {
			if m[l] >= bm[l] {
				pass = false
				worse = append(worse, fmt.Sprintf("%.2f", Loads[l]))
			}
		}
		fmt.Fprintf(&b, "%s: %s", t.name, series(m))
		if len(worse) > 0 {
			fmt.Fprintf(&b, " (not below broadcast at ρ=%s)", strings.Join(worse, ","))
		}
		b.WriteString("; ")
	}
	fmt.Fprintf(&b, "broadcast-pool: %s (migrations per grant at ρ=%s); utilisation at ρ=%.2f: broadcast %.3f, pool %s",
		series(bm), loads(), Loads[len(Loads)-1], bc.curve(util).mean[len(Loads)-1], lastOf(pools, util))
	return study.Claim{
		ID: "pool/migration", Paper: paper + " §1",
		Claim:    "units migrate less than when requests are broadcast",
		Measured: b.String(),
		Figures:  figs,
		Pass:     pass,
	}
}

func series(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%.3f", x)
	}
	return strings.Join(s, "/")
}

func loads() string {
	s := make([]string, len(Loads))
	for i, x := range Loads {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, "/")
}

// figures writes one SVG per measure against the load factor.
func figures(dir string, tabs []table) error {
	for _, f := range []struct {
		file, title, ylabel string
		of                  func(run) float64
	}{
		{"pool-messages.svg", "messages per grant", "messages per grant", perGrant},
		{"pool-wait.svg", "mean waiting time", "mean wait (ticks)", meanWait},
		{"pool-p99.svg", "99th percentile waiting time", "p99 wait (ticks)", p99Wait},
		{"pool-migration.svg", "migration: grants that move a unit to another node", "migrations per grant", migration},
	} {
		var ss []report.Series
		for _, t := range tabs {
			c := t.curve(f.of)
			ss = append(ss, report.Series{Name: t.name, X: Loads, Y: c.mean, Err: c.err})
		}
		title := fmt.Sprintf("Carvalho: %s, n=%d, R=%d", f.title, nodes, units)
		if err := report.LinePlot(filepath.Join(dir, f.file), title, "offered load factor ρ", f.ylabel, ss); err != nil {
			return err
		}
	}
	return nil
}
