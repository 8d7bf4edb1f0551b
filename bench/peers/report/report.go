// Package report turns one run of the peers benchmark into its outputs:
// the summary table (allot beside etcd, ZooKeeper and Redis, with the
// ratios beside the absolute numbers), the targets judged from
// it, the full Markdown report with every run, the JSON of the run, and
// the README's performance region regenerated from the summary.
//
// A peer's cell carries "allot ×r": allot's advantage on that column,
// r > 1 where allot is better (the peer's latency over allot's, allot's
// rate over the peer's), so that every ratio reads the same way. With
// several runs of a system, a cell shows the range of its runs and the
// ratio uses the medians.
package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/allot-dev/allot/bench/peers/backend"
	"github.com/allot-dev/allot/bench/peers/workload"
)

// Allot is the name of the project's own row; AllotNear is allot again
// with W1's and W2's sessions opened at their key's home node (allot
// bench --near). Peers are compared with Allot.
const (
	Allot     = "allot"
	AllotNear = "allot-near"
)

// IsAllot says whether name is one of the project's own rows.
func IsAllot(name string) bool { return name == Allot || name == AllotNear }

// Run is one system's run of the workloads.
type Run struct {
	Backend   string            `json:"backend"`
	Run       int               `json:"run"`
	Started   time.Time         `json:"started"`
	Info      map[string]string `json:"info,omitempty"`
	Workloads []workload.Stats  `json:"workloads,omitempty"`
	Error     string            `json:"error,omitempty"`
	StopNote  string            `json:"stop_note,omitempty"`
	// CPUSeconds is allot bench's processes' CPU over its whole run (its
	// clients and its nodes, warm-up included); 0 for the others.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
}

// Stats returns the run's named workload, or nil.
func (r Run) Stats(name string) *workload.Stats {
	i := slices.IndexFunc(r.Workloads, func(s workload.Stats) bool { return s.Workload == name })
	if i < 0 {
		return nil
	}
	return &r.Workloads[i]
}

// Skip is a system the run left out, and why.
type Skip struct {
	Backend string `json:"backend"`
	Reason  string `json:"reason"`
}

// Doc is everything one invocation measured.
type Doc struct {
	Date     time.Time         `json:"date"`
	Machine  string            `json:"machine"`  // CPUs, model, kernel, Go
	Load     float64           `json:"load"`     // the 1-minute load average when the run began
	CPUs     int               `json:"cpus"`     // the machine's
	Command  string            `json:"command"`  // that regenerates it
	Settings string            `json:"settings"` // the workloads' shape
	Baseline *backend.Baseline `json:"baseline,omitempty"`
	Runs     []Run             `json:"runs"`
	Skipped  []Skip            `json:"skipped,omitempty"`
}

// Loaded says whether the machine was busy when the run began: a load
// average of half its CPUs or more (other work then shares the cores the
// systems and their clients run on).
func (d Doc) Loaded() bool { return d.CPUs > 0 && d.Load >= 0.5*float64(d.CPUs) }

// backends returns the systems that ran, allot first, in the order they ran.
func (d Doc) backends() []string {
	var out []string
	for _, r := range d.Runs {
		if !slices.Contains(out, r.Backend) {
			out = append(out, r.Backend)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int {
		rank := func(s string) int {
			switch s {
			case Allot:
				return 0
			case AllotNear:
				return 1
			case "inproc":
				return 3
			}
			return 2
		}
		return rank(a) - rank(b)
	})
	return out
}

// column is one figure of the summary.
type column struct {
	workload string
	pick     func(workload.Stats) float64
	latency  bool // lower is better
}

var (
	w1p50  = column{"W1", func(s workload.Stats) float64 { return s.P50us }, true}
	w2rate = column{"W2", func(s workload.Stats) float64 { return s.OpsPerSec }, false}
	w2fair = column{"W2", workload.Stats.Fairness, false}
	w3rate = column{"W3", func(s workload.Stats) float64 { return s.OpsPerSec }, false}
	w3p99  = column{"W3", func(s workload.Stats) float64 { return s.P99us }, true}
	w4rate = column{"W4", func(s workload.Stats) float64 { return s.OpsPerSec }, false}
	w4p50  = column{"W4", func(s workload.Stats) float64 { return s.P50us }, true}
)

// values returns the column's figure in each of the system's runs that
// measured it.
func (d Doc) values(name string, c column) []float64 {
	var out []float64
	for _, r := range d.Runs {
		if r.Backend != name {
			continue
		}
		if s := r.Stats(c.workload); s != nil {
			out = append(out, c.pick(*s))
		}
	}
	return out
}

// median returns the median of v, NaN when v is empty.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// Median is a system's median of a column over its runs (NaN when it
// has none).
func (d Doc) median(name string, c column) float64 { return median(d.values(name, c)) }

// advantage is allot's advantage over a peer on c: > 1 where allot is
// better.
func (d Doc) advantage(peer string, c column) float64 { return d.advantageOf(Allot, peer, c) }

// advantageOf is the advantage of one of allot's rows over a peer on c.
func (d Doc) advantageOf(row, peer string, c column) float64 {
	a, p := d.median(row, c), d.median(peer, c)
	if c.latency {
		return p / a
	}
	return a / p
}

// FmtUs writes a latency given in µs the way the README does.
func FmtUs(us float64) string {
	switch {
	case math.IsNaN(us):
		return "–"
	case us >= 1e6:
		return fmt.Sprintf("%.2f s", us/1e6)
	case us >= 1e5:
		return fmt.Sprintf("%.0f ms", us/1e3)
	case us >= 1e4:
		return fmt.Sprintf("%.1f ms", us/1e3)
	case us >= 1e3:
		return fmt.Sprintf("%.2f ms", us/1e3)
	case us < 10:
		return fmt.Sprintf("%.1f µs", us)
	}
	return fmt.Sprintf("%.0f µs", us)
}

// FmtRate writes a rate with thousands separated (1,234), one decimal
// below 100.
func FmtRate(r float64) string {
	if math.IsNaN(r) {
		return "–"
	}
	if r < 100 {
		return fmt.Sprintf("%.1f", r)
	}
	s := fmt.Sprintf("%.0f", r)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func fmtFair(f float64) string { return fmt.Sprintf("%.2f", f) }

// span writes the range of v (one value when they agree once written).
func span(v []float64, f func(float64) string) string {
	if len(v) == 0 {
		return "–"
	}
	lo, hi := f(slices.Min(v)), f(slices.Max(v))
	if lo == hi {
		return lo
	}
	// One unit for both ends: 549–559 µs.
	if i, j := strings.LastIndexByte(lo, ' '), strings.LastIndexByte(hi, ' '); i > 0 && j > 0 && lo[i:] == hi[j:] {
		lo = lo[:i]
	}
	return lo + "–" + hi
}

// label names a system's row, with the server's version where known.
func (d Doc) label(name string) string {
	version := ""
	for _, r := range d.Runs {
		if r.Backend == name {
			if f := strings.Fields(r.Info["server"]); len(f) > 1 {
				version = " " + f[1]
			}
		}
	}
	switch name {
	case Allot:
		return "allot (`allot bench`: 3 nodes)"
	case AllotNear:
		return "allot, sessions at their key's home (`allot bench --near`)"
	case "etcd":
		return "etcd" + version + " (`concurrency.Mutex`)"
	case "etcd-nofsync":
		return "etcd" + version + " (`concurrency.Mutex`, no fsync)"
	case "zk":
		return "ZooKeeper" + version + " (lock recipe)"
	case "zk-nosync":
		return "ZooKeeper" + version + " (lock recipe, no forceSync)"
	case "redis":
		return "Redis" + version + " (redsync)"
	case "redis-fastretry":
		return "Redis" + version + " (redsync, fast retry)"
	case "inproc":
		return "in-process ceiling (not a peer)"
	}
	return name
}

// cell writes a system's figures of c, and allot's advantage beside a
// peer's.
func (d Doc) cell(name string, c column, f func(float64) string, extra string) string {
	v := d.values(name, c)
	s := span(v, f) + extra
	if IsAllot(name) || name == "inproc" || len(v) == 0 || len(d.values(Allot, c)) == 0 {
		return s
	}
	return fmt.Sprintf("%s; allot ×%.2f", s, d.advantage(name, c))
}

// Table is the summary: one row a system, allot first.
func (d Doc) Table() string {
	var b strings.Builder
	b.WriteString("| | W1 p50 (Lock+Unlock) | W2 acquisitions/s (min/max per client) | W3 iterations/s | W3 p99 | W4 operations/s | W4 p50 (Lock) |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, n := range d.backends() {
		fair := ""
		if v := d.values(n, w2fair); len(v) > 0 {
			fair = " (" + span(v, fmtFair) + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", d.label(n),
			d.cell(n, w1p50, FmtUs, ""), d.cell(n, w2rate, FmtRate, fair),
			d.cell(n, w3rate, FmtRate, ""), d.cell(n, w3p99, FmtUs, ""),
			d.cell(n, w4rate, FmtRate, ""), d.cell(n, w4p50, FmtUs, ""))
	}
	return b.String()
}

// allotProtocols is what allot's runs say their client's calls went on,
// each once, in the order first seen; none from a bench that does not
// say.
func (d Doc) allotProtocols() []string {
	var out []string
	for _, r := range d.Runs {
		if p := r.Info["protocol"]; IsAllot(r.Backend) && p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Caption says when, where and how the table was measured.
func (d Doc) Caption() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s", d.Date.UTC().Format("2006-01-02 15:04 MST"), d.Machine)
	if d.Loaded() {
		fmt.Fprintf(&b, ", **measured while the machine was loaded** (load average %.1f on %d CPUs when the run began)", d.Load, d.CPUs)
	} else {
		fmt.Fprintf(&b, " (load average %.1f on %d CPUs when the run began)", d.Load, d.CPUs)
	}
	fmt.Fprintf(&b, ", by `%s` in `bench/peers`: %s, every system in one run. ", d.Command, d.Settings)
	if ps := d.allotProtocols(); len(ps) > 0 {
		fmt.Fprintf(&b, "allot's client called its nodes on the %s protocol (`allot bench`'s `protocol`). ", strings.Join(ps, " and the "))
	}
	b.WriteString("The numbers depend on the machine and on what else runs on it (±20 % between runs): read them as ratios. ")
	b.WriteString("\"allot ×r\" beside a peer's figure is allot's advantage on that column, r > 1 where allot is better (the peer's latency over allot's, allot's rate over the peer's).")
	if bl := d.Baseline; bl != nil {
		fmt.Fprintf(&b, " A loopback TCP round trip between two processes is %s (p50) here", FmtUs(bl.RTTP50us))
		if bl.GRPCP50us > 0 {
			fmt.Fprintf(&b, ", a unary gRPC call with nothing behind it %s", FmtUs(bl.GRPCP50us))
		}
		if bl.StreamP50us > 0 {
			fmt.Fprintf(&b, ", a message answered on an open gRPC stream %s", FmtUs(bl.StreamP50us))
		}
		b.WriteString(".")
	}
	return b.String()
}
