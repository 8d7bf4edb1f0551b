package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Verdict is a target's state in one run.
type Verdict int

const (
	// Unmeasured: a system the target compares with did not run.
	Unmeasured Verdict = iota
	Met
	NotMet
)

func (v Verdict) String() string {
	return [...]string{"not measured", "met", "not met"}[v]
}

// Target is one of the service's performance targets (issue 24), judged
// from a run: allot's advantage over the reference, and the advantage
// the target asks for.
type Target struct {
	Name      string
	Reference string  // what allot is compared with
	Advantage float64 // allot's, > 1 where allot is better; for fairness, allot's min/max itself
	Want      float64 // at least this much (or more than this, when Strict)
	Strict    bool
	Verdict   Verdict
}

// peers are the systems that ran other than allot and the ceiling.
func (d Doc) peers() []string {
	return slices.DeleteFunc(d.backends(), func(n string) bool { return IsAllot(n) || n == "inproc" })
}

// Targets judges the targets from the medians of the runs (for
// fairness, allot's worst run).
func (d Doc) Targets() []Target {
	judge := func(t Target) Target {
		switch {
		case math.IsNaN(t.Advantage):
			t.Verdict = Unmeasured
		case t.Advantage > t.Want || (!t.Strict && t.Advantage == t.Want):
			t.Verdict = Met
		default:
			t.Verdict = NotMet
		}
		return t
	}
	vsOf := func(row, peer string, c column) float64 {
		if len(d.values(row, c)) == 0 || len(d.values(peer, c)) == 0 {
			return math.NaN()
		}
		return d.advantageOf(row, peer, c)
	}
	vs := func(peer string, c column) float64 { return vsOf(Allot, peer, c) }
	// best returns the peer allot is furthest behind on c.
	best := func(c column) (string, float64) {
		name, adv := "no peer", math.NaN()
		for _, p := range d.peers() {
			if a := vs(p, c); !math.IsNaN(a) && (math.IsNaN(adv) || a < adv) {
				name, adv = p, a
			}
		}
		return name, adv
	}
	fair := math.NaN()
	if v := d.values(Allot, w2fair); len(v) > 0 {
		fair = slices.Min(v)
	}
	w3best, w3adv := best(w3rate)
	p99best, p99adv := best(w3p99)
	ts := []Target{
		judge(Target{Name: "W1 p50 ≤ Redis+redsync's", Reference: "redis", Advantage: vs("redis", w1p50), Want: 1}),
		judge(Target{Name: "W2 ≥ 2× ZooKeeper's", Reference: "zk", Advantage: vs("zk", w2rate), Want: 2}),
		judge(Target{Name: "W2 ≥ Redis with fast retry", Reference: "redis-fastretry", Advantage: vs("redis-fastretry", w2rate), Want: 1}),
		judge(Target{Name: "W2 min/max per client ≥ 0.8", Reference: "allot's fairness, worst run", Advantage: fair, Want: 0.8}),
		judge(Target{Name: "W3 ≥ 2× the best peer's", Reference: w3best, Advantage: w3adv, Want: 2}),
		judge(Target{Name: "W3 p99 below every peer's", Reference: p99best, Advantage: p99adv, Want: 1, Strict: true}),
	}
	// The one-key workloads again with their sessions at their key's
	// home, where a user who locks one name mostly would open them.
	if len(d.values(AllotNear, w1p50)) > 0 {
		nearFair := math.NaN()
		if v := d.values(AllotNear, w2fair); len(v) > 0 {
			nearFair = slices.Min(v)
		}
		ts = append(ts,
			judge(Target{Name: "with --near: W1 p50 ≤ Redis+redsync's", Reference: "redis", Advantage: vsOf(AllotNear, "redis", w1p50), Want: 1}),
			judge(Target{Name: "with --near: W2 ≥ 2× ZooKeeper's", Reference: "zk", Advantage: vsOf(AllotNear, "zk", w2rate), Want: 2}),
			judge(Target{Name: "with --near: W2 ≥ Redis with fast retry", Reference: "redis-fastretry", Advantage: vsOf(AllotNear, "redis-fastretry", w2rate), Want: 1}),
			judge(Target{Name: "with --near: W2 min/max per client ≥ 0.8", Reference: "allot-near's fairness, worst run", Advantage: nearFair, Want: 0.8}),
		)
	}
	return ts
}

// TargetList writes the targets as a Markdown list.
func (d Doc) TargetList() string {
	var b strings.Builder
	for _, t := range d.Targets() {
		adv := "–"
		if !math.IsNaN(t.Advantage) {
			adv = fmt.Sprintf("%.2f", t.Advantage)
		}
		op := "≥"
		if t.Strict {
			op = ">"
		}
		fmt.Fprintf(&b, "- %s: %s (%s against %s; wants %s %.2g)\n", t.Name, t.Verdict, adv, t.Reference, op, t.Want)
	}
	// W1 is a Lock and an Unlock, two calls of allot's gRPC API: what two
	// calls cost with nothing behind them bounds it from below.
	if bl := d.Baseline; bl != nil && bl.GRPCP50us > 0 && len(d.values("redis", w1p50)) > 0 {
		fmt.Fprintf(&b, "- W1's floor for a gRPC API, two unary calls with nothing behind them (the baseline's): %s", FmtUs(2*bl.GRPCP50us))
		if bl.StreamP50us > 0 {
			fmt.Fprintf(&b, "; two messages answered on an open stream, as allot's client sends them: %s", FmtUs(2*bl.StreamP50us))
		}
		fmt.Fprintf(&b, "; against Redis+redsync's W1 p50 %s\n", FmtUs(d.median("redis", w1p50)))
	}
	return b.String()
}
