// Package run runs a compiled scenario (package scenario) in the simulator
// and measures it: each algorithm on the same problem and seed, judged by
// the checkers and measured by the metrics, which read only the event
// stream. Result is one algorithm's run in the JSON shape of the CLI
// contract.
//
//	scenario.Plan ──Execute(algo)──> sim.Run ──events──> check, metrics, (trace)
//	                                     └──────────────> Result (JSON / table)
package run

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/metrics"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/scenario"
	"github.com/allot-dev/allot/sim"
)

// BadInput is an error in the input found only when an algorithm is built
// (its process count, say) or a run's output is opened.
type BadInput struct{ Err error }

func (b BadInput) Error() string { return b.Err.Error() }

// Unwrap returns the underlying error.
func (b BadInput) Unwrap() error { return b.Err }

// Result is one algorithm's run, in the JSON shape of the CLI contract.
type Result struct {
	Algorithm        string        `json:"algorithm"`
	Processes        int           `json:"processes"`
	Users            int           `json:"users"`
	Requests         int           `json:"requests"`
	Served           int           `json:"served"`
	Response         metrics.Stats `json:"response"`
	Messages         Messages      `json:"messages"`
	Throughput       float64       `json:"throughput"` // answers per 1000 ticks
	Concurrency      float64       `json:"concurrency"`
	Fairness         float64       `json:"fairness"`
	SafetyViolations int           `json:"safety_violations"`
	Violations       []string      `json:"violations,omitempty"`
	// Open counts requests still unanswered when the run ended; Starved
	// those of them that can never be answered: the run ended quiescent,
	// nothing left to happen. A horizon cut, or a drain that saw no
	// answer for its whole window, leaves requests open, not starved.
	Open            int       `json:"open"`
	Starved         int       `json:"starved"`
	LongestWait     proc.Time `json:"longest_wait"`
	Deadlock        bool      `json:"deadlock"`
	EndTime         proc.Time `json:"end_time"`
	Events          int64     `json:"events"`
	Delivered       int64     `json:"delivered"`
	WallSeconds     float64   `json:"wall_seconds"`
	EventsPerSecond float64   `json:"events_per_second"`
	Units           int       `json:"units,omitempty"`
	// With crashes on an exclusive problem: the processes that crashed
	// (none when every scheduled crash came after the run ended: then the
	// failure fields are absent), the failure set (crashed and starved
	// processes), the failure locality (check.Locality: the farthest hop
	// in the conflict graph from a crashed user to a starved one), and the
	// starved users no crashed user reaches in that graph — all of them
	// when the crashed process is not a user (a coordinator, a resource
	// manager, a granter), which the locality cannot measure.
	Crashed            []proc.ID `json:"crashed,omitempty"`
	FailureLocality    *int      `json:"failure_locality,omitempty"`
	FailureSet         []proc.ID `json:"failure_set,omitempty"`
	FailureUnreachable int       `json:"failure_unreachable,omitempty"`
	*QuotaFields                 // quota runs only: permits, rejects, budget, waste
	// Pool runs only: grants, migrations, migration_per_grant, utilisation.
	*metrics.PoolSummary
}

// Messages counts the messages of a run.
type Messages struct {
	Total     int64            `json:"total"`
	PerServed float64          `json:"per_served"`
	ByKind    map[string]int64 `json:"by_kind"`
}

// QuotaFields holds the quota kind's own fields, inlined in the report.
type QuotaFields struct {
	Permits int `json:"permits"`
	Rejects int `json:"rejects"`
	Budget  int `json:"budget"`
	Waste   int `json:"waste"`
}

// TimingFields are the report fields that vary from run to run of the same
// seed; everything else is determined by the seed.
var TimingFields = []string{"wall_seconds", "events_per_second"}

// Build builds algorithm a's processes for plan p and checks what only
// they tell (a crash must name one of them). Its errors are BadInput: the
// scenario asks what a cannot do.
func Build(p *scenario.Plan, a algo.Algorithm) ([]proc.Process, error) {
	if need := Footprint(p.Problem, a); p.Memory > 0 && need > p.Memory {
		return nil, BadInput{Err: algo.TooLarge("%s: a run of %d processes and %d resources needs about %s (≈ %d B a process, %d B a resource, plus the graph and the requests), more than the %s this machine lets it have",
			a.Name, processes(p.Problem, a), p.Problem.Resources, gib(need), bytesPerProcess, a.ResourceBytes, gib(p.Memory))}
	}
	pb := p.Problem
	if len(pb.Options) > 0 { // each algorithm sees only its own options
		own := *pb
		own.Options = maps.Clone(pb.Options)
		maps.DeleteFunc(own.Options, func(k, _ string) bool { return !slices.Contains(a.Options, k) })
		pb = &own
	}
	procs, err := a.Build(pb)
	if err != nil {
		if !strings.HasPrefix(err.Error(), a.Name+":") {
			err = fmt.Errorf("%s: %w", a.Name, err)
		}
		return nil, BadInput{Err: err}
	}
	for _, c := range p.Config.Net.Crashes {
		if int(c.P) >= len(procs) {
			return nil, BadInput{Err: &scenario.FieldError{Fields: []string{"crash"}, Err: fmt.Errorf("%d@%d: %s runs processes 0..%d", c.P, c.At, a.Name, len(procs)-1)}}
		}
	}
	return procs, nil
}

// Execute runs algorithm a on plan p. attach, when set, is called once the
// processes are built, with their number, and returns a sink that sees the
// event stream too (a trace writer). progress, if set, is called now and
// then with the requests answered and made.
func Execute(p *scenario.Plan, a algo.Algorithm, attach func(processes int) (proc.Sink, error), progress func(served, asked int)) (Result, error) {
	procs, err := Build(p, a)
	if err != nil {
		return Result{}, err
	}
	var extra proc.Sink
	if attach != nil {
		if extra, err = attach(len(procs)); err != nil {
			return Result{}, err
		}
	}
	var (
		rec    metrics.Recorder
		waits  check.Waits
		safety interface {
			proc.Sink
			OK() bool
		}
		excl  check.Exclusion
		rv    check.Rendezvous // Social-CSP's rendezvous, on runs that make them
		pool  = check.Pool{Units: p.Problem.Units}
		quota = check.Quota{Budget: p.Problem.Budget, Waste: p.Problem.Waste}
		poolm = metrics.Pool{Units: p.Problem.Units}
	)
	var report *check.Report
	switch p.Kind {
	case algo.Exclusive:
		safety, report = &excl, &excl.Report
	case algo.Pool:
		safety, report = &pool, &pool.Report
	default:
		safety, report = &quota, &quota.Report
	}
	sinks := proc.Sinks{safety, &waits, &rec}
	if p.Kind == algo.Exclusive {
		sinks = append(sinks, &rv)
	}
	if p.Kind == algo.Pool {
		sinks = append(sinks, &poolm)
	}
	var loc *check.Locality
	if len(p.Config.Net.Crashes) > 0 && p.Kind == algo.Exclusive && p.Problem.Conflict != nil {
		loc = &check.Locality{Graph: p.Problem.Conflict}
		sinks = append(sinks, loc)
	}
	if extra != nil {
		sinks = append(sinks, extra)
	}
	cfg := p.Config
	cfg.Sink = sinks
	if progress != nil {
		cfg.Progress = func(served, asked int, _ proc.Time) { progress(served, asked) }
	}
	start := time.Now()
	res, err := sim.Run(cfg, p.Problem, procs)
	wall := time.Since(start).Seconds()
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", a.Name, err)
	}
	if p.Kind == algo.Quota {
		quota.Finish()
	}
	sum := rec.Summary(res.End)
	r := Result{
		Algorithm:        a.Name,
		Processes:        len(procs),
		Users:            p.Problem.Users,
		Requests:         rec.Requests,
		Served:           sum.Served,
		Response:         sum.Response,
		Messages:         Messages{Total: res.Messages, ByKind: res.ByKind},
		Throughput:       sum.Throughput,
		Concurrency:      sum.Concurrency,
		Fairness:         sum.Fairness,
		SafetyViolations: report.Violations + rv.Violations,
		Violations:       append(report.First, rv.First...),
		Open:             waits.Open(),
		LongestWait:      max(waits.Longest, waits.OldestOpen(res.End)),
		Deadlock:         waits.Deadlock(res.Quiescent) && len(p.Config.Net.Crashes) == 0,
		EndTime:          res.End,
		Events:           res.Inputs,
		Delivered:        res.Delivered,
		WallSeconds:      wall,
	}
	if res.Quiescent {
		r.Starved = r.Open
	}
	if sum.Served > 0 {
		r.Messages.PerServed = float64(res.Messages) / float64(sum.Served)
	}
	if wall > 0 {
		r.EventsPerSecond = float64(res.Inputs) / wall
	}
	if loc != nil {
		end := res.End
		if res.Quiescent && cfg.Horizon > end {
			end = cfg.Horizon // observed, silent, up to the horizon
		}
		if lr := loc.Result(end, res.Quiescent); len(lr.Crashed) > 0 {
			r.Crashed, r.FailureSet, r.FailureUnreachable = lr.Crashed, lr.FailureSet, lr.Unreachable
			r.FailureLocality = &lr.FailureLocality
		}
	}
	switch p.Kind {
	case algo.Pool:
		r.Units = p.Problem.Units
		ps := poolm.Summary(res.End)
		r.PoolSummary = &ps
	case algo.Quota:
		r.QuotaFields = &QuotaFields{Permits: quota.Permits, Rejects: quota.Rejects, Budget: quota.Budget, Waste: quota.Waste}
	}
	return r, nil
}

// bytesPerProcess is what a simulated process costs, its share of the
// event queue and the metrics included: 500–850 B measured for hygienic on
// rings of 10^5 to 10^6 processes, rounded up for heavier algorithms.
const bytesPerProcess = 1024

// processes is how many processes a builds for pb.
func processes(pb *algo.Problem, a algo.Algorithm) int64 {
	n := int64(pb.Users) + 1 // a coordinator, an owner
	if a.PerResource {
		n += int64(pb.Resources)
	}
	return n
}

// Footprint estimates the memory a run of a on pb needs, in bytes, before
// anything is built: its processes, their per-resource tables, the graphs'
// edges and the resource sets.
func Footprint(pb *algo.Problem, a algo.Algorithm) int64 {
	b := processes(pb, a) * bytesPerProcess
	b += int64(pb.Resources) * a.ResourceBytes
	if a.PerShared != nil {
		b += a.PerShared(pb) * 32 // a bottle's state, kept at both ends
	}
	for _, g := range []*graph.Graph{pb.Conflict, pb.Graph} {
		if g != nil {
			b += int64(g.M()) * 64
		}
	}
	// Without fixed sets every user shares one set of every resource.
	var first *proc.ResID
	for _, set := range pb.MaxSets {
		if len(set) > 0 && &set[0] != first {
			first = &set[0]
			b += int64(len(set)) * 4
		}
	}
	return b
}

// GraphFootprint is the least memory a run on a graph of nodes and edges
// needs, whatever the algorithm and the kind: Footprint before the
// algorithm's own tables, a process a node and the graph's edges.
func GraphFootprint(nodes int, edges float64) int64 {
	return int64(nodes)*bytesPerProcess + int64(edges)*64
}

// FitsGraph refuses a graph spec on which no run can fit in memory bytes
// (GraphFootprint), before the graph is built: building ring:50000000
// took half a minute only to find every algorithm too large. Specs
// graph.Size does not know, and a memory of 0, pass.
func FitsGraph(spec string, memory int64) error {
	nodes, edges, err := graph.Size(spec)
	if err != nil || memory <= 0 {
		return nil
	}
	if need := GraphFootprint(nodes, edges); need > memory {
		return algo.TooLarge("%s: a run of its %d processes and %.0f edges needs at least %s (%d B a process, 64 B an edge, before the algorithm's own tables), more than the %s this machine lets it have",
			spec, nodes, edges, gib(need), bytesPerProcess, gib(memory))
	}
	return nil
}

func gib(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
