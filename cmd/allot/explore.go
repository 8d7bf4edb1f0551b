package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/allot-dev/allot/explore"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/run"
	"github.com/allot-dev/allot/scenario"
)

// claimedLocality is the failure locality the papers prove, checked by
// default when processes may crash (Sivilotti, Pike and Sridhar §4, §5).
var claimedLocality = map[string]int{"threshold": 2, "doorway": 3}

type exploreOpts struct {
	s                   scenario.Scenario
	requests, seeds     int
	crash               string
	locality            int
	maxDepth, maxStates int
	timeout             time.Duration
	format, trace       string
	timing              bool
}

func exploreFlags(o *exploreOpts) *flag.FlagSet {
	fs := flag.NewFlagSet("allot explore", flag.ContinueOnError)
	s := &o.s
	fs.StringVar(&s.Kind, "kind", "exclusive", "problem kind: exclusive, pool or quota")
	fs.Func("algo", "the algorithm (one; a broken variant ALGO/VARIANT too)", func(v string) error { s.Algo = []string{v}; return nil })
	fs.StringVar(&s.Graph, "graph", "", "graph: "+graph.Specs+" (default ring:3 without a dynamic workload)")
	fs.IntVar(&s.Users, "users", 0, "dynamic workload: number of users")
	fs.IntVar(&s.Resources, "resources", 0, "dynamic workload: number of resources")
	fs.StringVar(&s.Demand, "demand", "", "dynamic workload: resources per request, K or K:K2")
	fs.BoolVar(&s.FixedSets, "fixed-sets", false, "dynamic workload: one resource set per user")
	fs.IntVar(&s.Units, "units", 0, "pool size R (kind pool)")
	fs.IntVar(&s.Budget, "budget", 0, "permits M (kind quota)")
	fs.IntVar(&s.Waste, "waste", 0, "allowed waste W (kind quota)")
	fs.IntVar(&o.requests, "requests", 1, "requests each user makes")
	fs.BoolVar(&s.FIFO, "fifo", false, "FIFO channels (default: unordered)")
	fs.StringVar(&o.crash, "crash", "", "processes that may crash, each at any step: P[,P...]")
	fs.IntVar(&o.locality, "locality", -1, "with --crash: the failure locality to check (default: the paper's claim, threshold 2, doorway 3; else measured only)")
	fs.Uint64Var(&s.Seed, "seed", 1, "seed of the processes' and users' random draws (the requests' sets of a dynamic workload, bidding's draws)")
	fs.IntVar(&o.seeds, "seeds", 1, "explore seeds --seed, --seed+1, ... this many (each a search of its own; stops at a violation)")
	fs.IntVar(&o.maxDepth, "max-depth", 0, "cut paths at this many steps (0: none)")
	fs.IntVar(&o.maxStates, "max-states", 2_000_000, "stop after this many distinct states (0: none; about 600 bytes each at peak, for the states and the search frontier)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "stop after this long (0: none)")
	fs.StringVar(&o.format, "format", "table", "output: table or json")
	fs.StringVar(&o.trace, "trace", "", "write the counterexample's events as JSONL to FILE")
	fs.BoolVar(&o.timing, "timing", true, "print the search's time and states/s in the table (false: left out, so the same input gives the same bytes)")
	return fs
}

func exploreCmd(args []string, stdout, stderr io.Writer) error {
	if controlKind(args) {
		return controlExploreCmd(args, stdout, stderr)
	}
	if serviceKind(args) {
		return serviceExploreCmd(args, stdout, stderr)
	}
	var o exploreOpts
	fs := exploreFlags(&o)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "usage: allot explore --algo A [flags]: every interleaving of a tiny instance")
			fs.PrintDefaults()
			return errHelp
		}
		return badf("%v", err)
	}
	if fs.NArg() > 0 {
		return badf("explore takes no arguments, got %q", fs.Args())
	}
	s := o.s
	if len(s.Algo) == 0 {
		return badf("--algo is required")
	}
	if o.format != "table" && o.format != "json" {
		return badf("--format %q: want table or json", o.format)
	}
	if o.requests < 1 {
		return badf("--requests must be at least 1, not %d", o.requests)
	}
	if o.seeds < 1 {
		return badf("--seeds must be at least 1, not %d", o.seeds)
	}
	if o.maxDepth < 0 || o.maxStates < 0 || o.timeout < 0 {
		return badf("--max-depth, --max-states and --timeout must not be negative")
	}
	dynamic := s.Users != 0 || s.Resources != 0 || s.Demand != ""
	if s.Graph == "" && !dynamic {
		s.Graph = "ring:3"
	}
	s.Requests = 1 // the simulator's stop rule; the explorer bounds requests per user
	var crash []proc.ID
	if o.crash != "" {
		for _, p := range strings.Split(o.crash, ",") {
			id, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || id < 0 {
				return badf("--crash %q: want process ids P[,P...] (each may crash at any step)", o.crash)
			}
			crash = append(crash, proc.ID(id))
		}
	}
	// Every seed's instance is checked before anything is explored.
	plans := make([]*scenario.Plan, o.seeds)
	for i := range plans {
		s.Seed = o.s.Seed + uint64(i)
		plan, err := scenario.Compile(s)
		if err != nil {
			return badInput(err)
		}
		procs, err := run.Build(plan, plan.Algos[0])
		var bad run.BadInput
		if errors.As(err, &bad) {
			return badInput(bad.Unwrap())
		}
		if err != nil {
			return err
		}
		for _, p := range crash {
			if int(p) >= len(procs) {
				return badf("--crash %d: %s runs processes 0..%d", p, plan.Algos[0].Name, len(procs)-1)
			}
		}
		plan.Scenario.Requests = plan.Problem.Users * o.requests // as the trace header shows it
		plans[i] = plan
	}
	var runs []exploreRun
	var found *exploreRun
	for _, plan := range plans {
		r, err := exploreOne(plan, o, crash, stderr)
		if err != nil {
			return err
		}
		runs = append(runs, r)
		if r.Violations > 0 {
			found = &runs[len(runs)-1]
			break
		}
	}
	if found != nil && o.trace != "" {
		f, err := os.Create(o.trace)
		if err != nil {
			return badf("--trace: %v", err)
		}
		plan := plans[len(runs)-1]
		if err := errors.Join(found.Counterexample.WriteTrace(f, traceHeader(plan, plan.Algos[0], found.Processes), true), f.Close()); err != nil {
			return err
		}
	}
	if o.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Runs []exploreRun `json:"runs"`
		}{runs}); err != nil {
			return err
		}
	} else {
		for i, r := range runs {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			printExplore(stdout, plans[i], o, r)
		}
	}
	if found != nil {
		fmt.Fprintf(stderr, "allot: %s: seed %d: %s: %s\n", found.Algorithm, found.Seed, found.Counterexample.Kind, found.Counterexample.What)
		return errFailed
	}
	return nil
}

// exploreRun is one seed's search, in the JSON output.
type exploreRun struct {
	Seed     uint64 `json:"seed"`
	Requests int    `json:"requests_per_user"`
	FIFO     bool   `json:"fifo"`
	*explore.Result
	// Replay is the `allot sim` command of the counterexample.
	Replay string `json:"replay,omitempty"`
}

// exploreOne searches one seed's instance.
func exploreOne(plan *scenario.Plan, o exploreOpts, crash []proc.ID, stderr io.Writer) (exploreRun, error) {
	s := plan.Scenario
	a := plan.Algos[0]
	cfg := explore.Config{
		Algorithm: a, Problem: plan.Problem, Next: plan.Next, Requests: o.requests, FIFO: s.FIFO, Crash: crash,
		Seed: s.Seed, MaxDepth: o.maxDepth, MaxStates: o.maxStates, Timeout: o.timeout, Locality: o.locality,
	}
	if len(crash) > 0 && cfg.Locality < 0 {
		if l, ok := claimedLocality[a.Name]; ok {
			cfg.Locality = l
		}
	}
	if p := progressTo(stderr); p != nil {
		cfg.Progress = func(pr explore.Progress) {
			fmt.Fprintf(p, "\r%s, seed %d: %d states, depth %d, %.0f states/s\x1b[K", a.Name, s.Seed, pr.States, pr.Depth, pr.StatesPerSecond)
		}
		defer fmt.Fprint(p, "\r\x1b[K")
	}
	res, err := explore.Run(cfg)
	if err != nil {
		return exploreRun{}, err
	}
	r := exploreRun{Seed: s.Seed, Requests: o.requests, FIFO: s.FIFO, Result: res}
	if ce := res.Counterexample; ce != nil {
		// One more request than the users make: the simulator never stops
		// for the count (and never drains); the horizon ends the replay.
		r.Replay = replayCommand(a.Name, s, plan.Problem.Users*o.requests+1, ce.Sim)
	}
	return r, nil
}

// replayCommand is the `allot sim` run of a counterexample.
func replayCommand(name string, s scenario.Scenario, requests int, r explore.SimReplay) string {
	a := []string{"allot", "sim", "--algo", name}
	if s.Kind != "" && s.Kind != "exclusive" {
		a = append(a, "--kind", s.Kind)
	}
	if s.Graph != "" {
		a = append(a, "--graph", s.Graph)
	} else {
		a = append(a, "--users", strconv.Itoa(s.Users), "--resources", strconv.Itoa(s.Resources), "--demand", s.Demand)
		if s.FixedSets {
			a = append(a, "--fixed-sets")
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"--units", s.Units}, {"--budget", s.Budget}, {"--waste", s.Waste}} {
		if f.v != 0 {
			a = append(a, f.name, strconv.Itoa(f.v))
		}
	}
	if s.FIFO {
		a = append(a, "--fifo")
	}
	a = append(a, "--seed", strconv.FormatUint(s.Seed, 10), "--requests", strconv.Itoa(requests))
	a = append(a, r.Args()...)
	return strings.Join(append(a, "--trace-messages", "--trace", "replay.jsonl"), " ")
}

func printExplore(w io.Writer, plan *scenario.Plan, o exploreOpts, er exploreRun) {
	r, replay := er.Result, er.Replay
	what := plan.Graph
	if what == "" {
		s := plan.Scenario
		what = fmt.Sprintf("%d users, %d resources, demand %s", s.Users, s.Resources, s.Demand)
	}
	ch := "unordered"
	if o.s.FIFO {
		ch = "FIFO"
	}
	fmt.Fprintf(w, "explore %s on %s: %d processes, %d request(s) per user, %s channels, seed %d", r.Algorithm, what, r.Processes, o.requests, ch, er.Seed)
	if o.crash != "" {
		fmt.Fprintf(w, ", may crash: %s", o.crash)
	}
	fmt.Fprintln(w)
	verdict := "complete: every reachable state explored"
	switch {
	case r.Violations > 0:
		verdict = "stopped at the first violation (breadth-first: none is shorter)"
	case !r.Complete:
		verdict = "INCOMPLETE: stopped by the " + r.Cut + " bound; the verdict covers the states reached"
	}
	fmt.Fprintf(w, "%d states, %d transitions, depth %d, %d terminal, %d cycles (%d unfair); %s\n", r.States, r.Edges, r.Depth, r.Terminal, r.Cycles, r.Unfair, verdict)
	if r.FailureLocality >= 0 {
		fmt.Fprintf(w, "failure locality reached: %d\n", r.FailureLocality)
	}
	if o.timing {
		fmt.Fprintf(w, "%d violations; %.2fs, %s states/s\n", r.Violations, r.Seconds, si(r.StatesPerSecond))
	} else {
		fmt.Fprintf(w, "%d violations\n", r.Violations)
	}
	ce := r.Counterexample
	if ce == nil {
		return
	}
	fmt.Fprintf(w, "\nshortest counterexample (%s, %d steps): %s\n", ce.Kind, ce.Length, ce.What)
	for i, st := range ce.Steps {
		if i == ce.Loop {
			fmt.Fprintln(w, "  -- from here the steps repeat for ever --")
		}
		fmt.Fprintf(w, "  %3d. %s\n", st.N, st.Input)
		for _, e := range st.Events {
			fmt.Fprintf(w, "         %s\n", e)
		}
	}
	if o.trace != "" {
		fmt.Fprintf(w, "trace: %s\n", o.trace)
	}
	fmt.Fprintf(w, "\nreplay in the simulator (step k at tick k):\n  %s\n", replay)
	if !ce.Sim.Exact {
		fmt.Fprintln(w, "  (not exact: the path arms timers; the simulator fires a timer when it is due, the explorer at any step after it is armed)")
	}
}

// progressTo returns stderr when it is a terminal.
func progressTo(stderr io.Writer) io.Writer {
	f, ok := stderr.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return f
}
