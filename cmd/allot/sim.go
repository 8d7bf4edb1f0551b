package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/run"
	"github.com/allot-dev/allot/scenario"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/trace"
	"github.com/allot-dev/allot/workload"
)

var errHelp = errors.New("help shown")

// simFlags binds the flags of `allot sim` to a scenario.
func simFlags(s *scenario.Scenario, o *simOut) *flag.FlagSet {
	fs := flag.NewFlagSet("allot sim", flag.ContinueOnError)
	fs.StringVar(&s.Kind, "kind", s.Kind, "problem kind: exclusive, pool or quota (control and service: allot sim --kind control -h, --kind service -h)")
	fs.Func("algo", "algorithms to run side by side, comma-separated (default: every one of the kind)", func(v string) error {
		s.Algo = nil
		for _, a := range strings.Split(v, ",") {
			if a = strings.TrimSpace(a); a != "" {
				s.Algo = append(s.Algo, a)
			}
		}
		if len(s.Algo) == 0 {
			return errors.New("no algorithm named")
		}
		return nil
	})
	fs.StringVar(&s.Graph, "graph", s.Graph, "graph: "+graph.Specs+"; exclusive also "+workload.MatrixSpecs+
		" (a run needs at least 1 KiB a node and 64 B an edge: a graph this machine's memory, or ulimit -v, cannot hold is refused)")
	fs.Func("users", "dynamic workload: number of users; a comma-separated list (48,80,112) runs each number in turn, one table row per number and algorithm", func(v string) error {
		o.users = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return fmt.Errorf("%q: want a number of users, or a comma-separated list of them", v)
			}
			o.users = append(o.users, n)
		}
		s.Users = o.users[0]
		return nil
	})
	fs.IntVar(&s.Resources, "resources", s.Resources, "dynamic workload: number of resources")
	fs.StringVar(&s.Demand, "demand", s.Demand, "dynamic workload: resources per request, K or K:K2")
	fs.BoolVar(&s.FixedSets, "fixed-sets", s.FixedSets, "dynamic workload: one resource set per user for the whole run")
	fs.Float64Var(&s.Zipf, "zipf", s.Zipf, "dynamic workload: draw resources with Zipf skew S (resource r has weight 1/(r+1)^S; 0: uniform)")
	fs.IntVar(&s.Units, "units", s.Units, "pool size R (kind pool)")
	fs.IntVar(&s.Budget, "budget", s.Budget, "permits M (kind quota)")
	fs.IntVar(&s.Waste, "waste", s.Waste, "allowed waste W (kind quota)")
	fs.IntVar(&s.Requests, "requests", s.Requests, "stop after N answered requests (then drain open ones)")
	fs.StringVar(&s.Think, "think", s.Think, "think time: const:X | uniform:A:B | exp:MEAN (ticks)")
	fs.StringVar(&s.CS, "cs", s.CS, "critical-section time (ticks)")
	fs.StringVar(&s.Delay, "delay", s.Delay, "message delay (ticks)")
	fs.BoolVar(&s.FIFO, "fifo", s.FIFO, "FIFO channels (default: unordered)")
	fs.StringVar(&s.Speeds, "speeds", s.Speeds, "process speeds PATTERN:MIN:MAX[:PERIOD], PATTERN one of "+sim.SpeedPatterns+" (default: all at speed 1)")
	fs.Func("crash", "fail-stop crashes P@T[,P@T...] (repeatable; replaces the scenario file's)", func(v string) error { o.crash = append(o.crash, v); return nil })
	for _, f := range []struct{ name, why string }{
		{"restart", "the papers' algorithms persist nothing: they can only fail-stop (--crash)"},
		{"cut", "the papers' algorithms assume reliable channels: a cut link would lose their messages"},
		{"pause", "only the control plane's runs pause a process so far"},
		{"nodes", "the other kinds take --graph or --users"},
	} {
		fs.Func(f.name, "--kind control only (see allot sim --kind control -h)", func(string) error {
			return fmt.Errorf("--%s is for --kind control: %s", f.name, f.why)
		})
	}
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "random seed")
	fs.Int64Var(&s.Cost, "cost", s.Cost, "ticks a process is busy per handled input")
	fs.Int64Var(&s.Horizon, "horizon", s.Horizon, "stop at this tick (0: none)")
	fs.StringVar(&o.format, "format", "table", "output: table or json")
	fs.StringVar(&o.trace, "trace", "", "write the event stream as JSONL to FILE")
	fs.BoolVar(&o.traceMessages, "trace-messages", false, "include send and deliver events in the trace")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the runs to FILE (go tool pprof)")
	fs.BoolVar(&o.timing, "timing", true, "print what varies from run to run: the table's events/s column, JSON's wall_seconds and events_per_second (false: left out of the table, 0 in JSON, so the same seed gives the same bytes)")
	return fs
}

type simOut struct {
	crash         []string // --crash, which replaces the file's list
	users         []int    // --users: the numbers of users, each run in turn
	format, trace string
	cpuprofile    string
	traceMessages bool
	timing        bool
}

// parseInterleaved parses flags that may come before or after positional
// arguments, and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func simCmd(args []string, stdout, stderr io.Writer) error {
	if controlKind(args) {
		return controlSimCmd(args, stdout, stderr)
	}
	if serviceKind(args) {
		return serviceSimCmd(args, stdout, stderr)
	}
	s := scenario.Default()
	var o simOut
	// First pass: find a scenario file, so that flags override it.
	probe := simFlags(&scenario.Scenario{}, &simOut{})
	probe.SetOutput(io.Discard)
	pos, err := parseInterleaved(probe, args)
	if err == flag.ErrHelp {
		fs := simFlags(&s, &o)
		fs.SetOutput(stdout)
		fmt.Fprintln(stdout, "usage: allot sim [flags] [scenario.yaml]")
		fs.PrintDefaults()
		return errHelp
	}
	if err != nil {
		return badf("%v", err)
	}
	if len(pos) > 1 {
		return badf("sim takes at most one scenario file, got %q", pos)
	}
	if len(pos) == 1 {
		file, err := scenario.Load(pos[0])
		if err != nil {
			return badf("%v", err)
		}
		s = overlay(s, file)
	}
	fs := simFlags(&s, &o)
	fs.SetOutput(io.Discard)
	if _, err := parseInterleaved(fs, args); err != nil {
		return badf("%v", err)
	}
	// Flags override the file field by field; a workload given on the
	// command line replaces the file's (or the default one) whole: a
	// dynamic workload its graph, a graph its dynamic workload. Both on
	// the command line is Compile's error to report.
	flags := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { flags[f.Name] = true })
	dynamic := flags["users"] || flags["resources"] || flags["demand"]
	switch {
	case dynamic && !flags["graph"]:
		s.Graph = ""
	case flags["graph"] && !dynamic:
		s.Users, s.Resources, s.Demand = 0, 0, ""
		s.FixedSets = s.FixedSets && flags["fixed-sets"]
		if !flags["zipf"] {
			s.Zipf = 0
		}
	}
	if flags["crash"] {
		s.Crash = o.crash
	}
	// W = 0 is a choice (no waste, at a price): --waste is asked for, not
	// defaulted (a scenario file's waste: 0 cannot be told from no waste).
	if s.Kind == "quota" && !flags["waste"] && s.Waste == 0 {
		return badf("--waste is required with --kind quota: the permits that may go unused (0 for none)")
	}
	if o.format != "table" && o.format != "json" {
		return badf("--format %q: want table or json", o.format)
	}
	// A line says what the command is doing from the start: a large
	// graph takes seconds to build, and each algorithm's processes again
	// (ring:50000000 spent half a minute before its first run, in
	// silence). On a terminal it is cleared before anything else is
	// written; elsewhere it comes only once a run is long (statusLine).
	line := newStatusLine(stderr, os.Getenv, plainEvery)
	defer line.close()
	status := func(format string, args ...any) { line.set(fmt.Sprintf(format, args...)) }
	clearLine := line.clear
	memory := machineMemory()
	if err := run.FitsGraph(s.Graph, memory); err != nil {
		return badf("--graph %v", err)
	}
	users := o.users
	if len(users) < 2 {
		users = []int{s.Users}
	} else if o.trace != "" {
		return badf("--trace writes one run's events: give --users one number (--users %s makes %d runs of each algorithm)", joinInts(users, ","), len(users))
	}
	// Every number of users is compiled and every algorithm built for it
	// before anything runs: an input one of them refuses stops the whole
	// command at once.
	var plans []*scenario.Plan
	var tooLarge []string
	var why error
	for _, u := range users {
		s.Users = u
		plan, large, whyLarge, err := prepare(s, o, memory, status)
		if err != nil {
			return err
		}
		for _, a := range large {
			if !slices.Contains(tooLarge, a) {
				tooLarge = append(tooLarge, a)
			}
		}
		if why == nil {
			why = whyLarge
		}
		plans = append(plans, plan)
	}
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return badf("--cpuprofile: %v", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var reports []run.Result
	var same [][2]string
	for _, plan := range plans {
		rs, err := simRuns(plan, o, line, stderr, len(plans) > 1)
		if err != nil {
			return err
		}
		for _, n := range sameRuns(rs) {
			if len(plans) > 1 {
				n[0], n[1] = fmt.Sprintf("%s (%d users)", n[0], plan.Scenario.Users), fmt.Sprintf("%s (%d users)", n[1], plan.Scenario.Users)
			}
			same = append(same, n)
		}
		reports = append(reports, rs...)
	}
	plan := plans[0] // what every plan shares: the kind, timing, seed, channels
	// The note comes after the runs, so that a bad input still gets its
	// one-line error alone.
	clearLine()
	if len(tooLarge) > 0 {
		fmt.Fprintf(stderr, "allot: note: %s left out as too large to run here (the first: %v)\n", strings.Join(tooLarge, ", "), why)
	}
	if len(plan.Skipped) > 0 {
		fmt.Fprintf(stderr, "allot: note: %s left out: needs FIFO channels (--fifo)\n", strings.Join(plan.Skipped, ", "))
	}
	if o.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Seed uint64       `json:"seed"`
			Runs []run.Result `json:"runs"`
		}{plan.Scenario.Seed, reports}); err != nil {
			return err
		}
	} else {
		printTable(stdout, stderr, plan, reports, o.timing, users)
		for _, n := range same {
			fmt.Fprintf(stderr, "allot: note: %s made exactly the same run as %s (same messages, same answers at the same ticks)\n", n[1], n[0])
		}
	}
	for _, r := range reports {
		if r.SafetyViolations > 0 {
			name := r.Algorithm
			if len(plans) > 1 {
				name = fmt.Sprintf("%s (%d users)", name, r.Users)
			}
			fmt.Fprintf(stderr, "allot: %s: %d safety violations (seed %d), first: %s\n", name, r.SafetyViolations, plan.Scenario.Seed, r.Violations[0])
			return errFailed
		}
	}
	return nil
}

// prepare compiles s into a plan and builds every algorithm of it once,
// so that an input only one of them refuses stops the command before
// anything runs. An algorithm of a default list whose conflict graph is
// too large to build here is left out, not refused: large names them,
// and why is the first one's error.
func prepare(s scenario.Scenario, o simOut, memory int64, status func(string, ...any)) (plan *scenario.Plan, large []string, why error, err error) {
	if s.Graph != "" {
		status("allot sim: building the graph %s", s.Graph)
	}
	plan, err = scenario.Compile(s)
	if err != nil {
		return nil, nil, nil, badInput(err)
	}
	plan.Config.TraceMessages = o.traceMessages
	plan.Memory = memory
	kept := plan.Algos[:0:0]
	checking := time.Now()
	for i, a := range plan.Algos {
		status("allot sim: checking %s (%d of %d) by building its processes%s", a.Name, i+1, len(plan.Algos),
			left(", about %s left before the runs", time.Since(checking), i, len(plan.Algos)))
		_, err := run.Build(plan, a)
		switch {
		case errors.Is(err, algo.ErrTooLarge) && len(plan.Scenario.Algo) == 0:
			large = append(large, a.Name)
			if why == nil {
				why = err
			}
			continue
		case err != nil:
			return nil, nil, nil, badInput(err)
		}
		kept = append(kept, a)
	}
	if len(kept) == 0 {
		return nil, nil, nil, badf("no algorithm can run this workload here: %v", why)
	}
	plan.Algos = kept
	return plan, large, why, nil
}

// simRuns runs each algorithm of plan in turn, writing its trace when
// asked, its progress on line (named with the plan's users when a list of
// them is run: several).
func simRuns(plan *scenario.Plan, o simOut, line *statusLine, stderr io.Writer, several bool) ([]run.Result, error) {
	reports := make([]run.Result, 0, len(plan.Algos))
	for i, a := range plan.Algos {
		name := a.Name
		if len(plan.Algos) > 1 {
			name = fmt.Sprintf("%s (%d of %d)", a.Name, i+1, len(plan.Algos))
		}
		if several {
			name = fmt.Sprintf("%d users: %s", plan.Scenario.Users, name)
		}
		line.set(name + ": building its processes")
		var tw *trace.Writer
		var tf *os.File
		var attach func(int) (proc.Sink, error)
		if o.trace != "" {
			path := tracePath(o.trace, a.Name, len(plan.Algos))
			attach = func(processes int) (proc.Sink, error) {
				var err error
				if tf, err = os.Create(path); err != nil {
					return nil, run.BadInput{Err: fmt.Errorf("--trace: %w", err)}
				}
				if path != o.trace {
					line.clear()
					fmt.Fprintf(stderr, "allot: %s: trace in %s\n", a.Name, path)
				}
				tw = trace.NewWriter(tf)
				tw.Header(traceHeader(plan, a, processes))
				return tw, nil
			}
		}
		rep, err := run.Execute(plan, a, attach, line.progress(name, plan.Scenario.Requests))
		if tw != nil {
			if err == nil {
				tw.End(rep.EndTime)
			}
			err = errors.Join(err, tw.Flush(), tf.Close())
		}
		var bad run.BadInput
		if errors.As(err, &bad) {
			return nil, badInput(bad.Unwrap())
		}
		if err != nil {
			return nil, err
		}
		if !o.timing {
			rep.WallSeconds, rep.EventsPerSecond = 0, 0
		}
		reports = append(reports, rep)
	}
	return reports, nil
}

// badInput reports an error in the scenario in the CLI's words: a field's
// name is its flag's.
func badInput(err error) error {
	var fe *scenario.FieldError
	if errors.As(err, &fe) {
		flags := simFlags(&scenario.Scenario{}, &simOut{})
		names := make([]string, len(fe.Fields))
		for i, f := range fe.Fields {
			if names[i] = "--" + f; flags.Lookup(f) == nil {
				names[i] = "scenario field " + f // no flag sets it
			}
		}
		return badf("%s: %v", strings.Join(names, ", "), fe.Err)
	}
	return badf("%v", err)
}

// overlay copies the fields file sets onto base.
func overlay(base, file scenario.Scenario) scenario.Scenario {
	if file.Users != 0 || file.Resources != 0 || file.Demand != "" {
		base.Graph = ""
	}
	if file.Kind != "" {
		base.Kind = file.Kind
	}
	if len(file.Algo) > 0 {
		base.Algo = file.Algo
	}
	if file.Graph != "" {
		base.Graph = file.Graph
	}
	for _, f := range []struct {
		from, to *int
	}{{&file.Users, &base.Users}, {&file.Resources, &base.Resources}, {&file.Units, &base.Units},
		{&file.Budget, &base.Budget}, {&file.Waste, &base.Waste}, {&file.Requests, &base.Requests}} {
		if *f.from != 0 {
			*f.to = *f.from
		}
	}
	for _, f := range []struct {
		from, to *string
	}{{&file.Demand, &base.Demand}, {&file.Think, &base.Think}, {&file.CS, &base.CS}, {&file.Delay, &base.Delay},
		{&file.Speeds, &base.Speeds}} {
		if *f.from != "" {
			*f.to = *f.from
		}
	}
	base.FixedSets = base.FixedSets || file.FixedSets
	if file.Zipf != 0 {
		base.Zipf = file.Zipf
	}
	base.FIFO = base.FIFO || file.FIFO
	if file.Crash != nil {
		base.Crash = file.Crash
	}
	if file.Seed != 0 {
		base.Seed = file.Seed
	}
	if file.Cost != 0 {
		base.Cost = file.Cost
	}
	if file.Horizon != 0 {
		base.Horizon = file.Horizon
	}
	if file.Failure != nil {
		base.Failure = file.Failure
	}
	if file.Options != nil {
		base.Options = file.Options
	}
	return base
}

// traceHeader names the run a trace records, so that a program can read
// the trace alone.
func traceHeader(plan *scenario.Plan, a algo.Algorithm, processes int) trace.Header {
	h := trace.Header{Scenario: plan.Scenario, Seed: plan.Scenario.Seed, Algorithm: a.Name, Kind: plan.Kind.String(),
		Processes: processes, Users: plan.Problem.Users}
	if g := plan.Problem.Conflict; plan.Problem.Dining && g != nil {
		h.Edges = make([][2]proc.ID, g.M())
		for e := range h.Edges {
			p, q := g.Ends(proc.ResID(e))
			h.Edges[e] = [2]proc.ID{p, q}
		}
	}
	return h
}

// tracePath gives each algorithm its own trace when several run:
// t.jsonl becomes t.hygienic.jsonl.
func tracePath(path, algo string, n int) string {
	if n == 1 {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + algo + ext
}

// terminal returns stderr if it is a terminal (or says it is one, as a
// test's does), else nil: progress lines are drawn only there.
func terminal(stderr io.Writer) io.Writer {
	if t, ok := stderr.(interface{ IsTerminal() bool }); ok && t.IsTerminal() {
		return stderr
	}
	f, ok := stderr.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return f
}

// progressAt is a progress callback drawing on the terminal f, reading
// the time from clock.
func progressAt(f io.Writer, name string, target int, clock func() time.Time) func(served, asked int) {
	return runProgress(func(text string) { fmt.Fprintf(f, "\r%s\x1b[K", text) }, name, target, clock)
}

// runProgress is a progress callback that hands draw a run's state at most
// ten times a second, reading the time from clock.
func runProgress(draw func(string), name string, target int, clock func() time.Time) func(served, asked int) {
	// A run that has reached its target serves the requests still open:
	// on a large graph nearly every user's (ring:50000000 --requests 10
	// drains tens of millions), so the line says how many are left and,
	// from the rate so far, about how long that takes.
	// The rate counts from the first answer seen, over the last 2.5 to 5
	// seconds once there are that many: before the first answer a dining
	// algorithm on a dense graph may spend a quarter of its run (hygienic
	// on complete:5000 moves 25 million forks before anyone eats), and its
	// answers come ever faster after (a rate since the first answer
	// estimated 4 minutes with 10 s left).
	type mark struct {
		at     time.Time
		served int
	}
	var begun, drawn time.Time
	var base, recent mark // base: the mark the rate counts from
	var start mark        // the first answer: a slow run's rate (below)
	return func(served, asked int) {
		now := clock()
		switch {
		case begun.IsZero():
			begun = now
		case now.Sub(drawn) < 100*time.Millisecond:
			return
		}
		drawn = now
		switch {
		case served > 0 && base.at.IsZero():
			base = mark{now, served}
			recent, start = base, base
		case served > 0 && now.Sub(recent.at) >= 2500*time.Millisecond:
			base, recent = recent, mark{now, served}
		}
		from := base
		if served-base.served < 50 {
			// Too few answers lately to go on: the whole run's rate
			// (threshold on complete:3000 answers a few a minute, and
			// its line had no estimate at all).
			from = start
		}
		spent, first := now.Sub(from.at), from.served
		switch {
		case target > 0 && served >= target:
			draw(fmt.Sprintf("%s: %d of %d requests made served, draining the open ones%s", name, served, asked, left(", about %s left", spent, served-first, asked-first)))
		case served == 0:
			// No rate to estimate from yet.
			draw(fmt.Sprintf("%s: waiting for the first answer (%s so far)", name, now.Sub(begun).Round(time.Second)))
		case target > 0:
			draw(fmt.Sprintf("%s: %d/%d served (%.0f%%)%s", name, served, target, 100*float64(served)/float64(target), left(", the target in about %s", spent, served-first, target-first)))
		default:
			draw(fmt.Sprintf("%s: %d served", name, served))
		}
	}
}

// left formats (with format's one %s) the time until total requests are
// served, estimated from the rate over spent, in which done were served:
// "" until there is a rate to go on, 50 answers over a second or 10 over
// five. Answers come faster once the first requests are in, so the first
// estimates are long and settle (hygienic on complete:5000 answers twice
// in its first second of answers, then 10000 in 14 s: from 2 answers the
// estimate was 5 hours).
func left(format string, spent time.Duration, done, total int) string {
	if total <= done || !(done >= 50 && spent >= time.Second || done >= 10 && spent >= 5*time.Second) {
		return ""
	}
	rest := time.Duration(float64(spent) * float64(total-done) / float64(done))
	return fmt.Sprintf(format, rest.Round(time.Second))
}

// printTable writes the runs' table: with a list of users (more than
// one), a row per number of users and algorithm, the number first.
func printTable(w, stderr io.Writer, plan *scenario.Plan, reports []run.Result, timing bool, users []int) {
	several := len(users) > 1
	// Clear a progress line, if one was drawn.
	if terminal(stderr) != nil {
		fmt.Fprint(stderr, "\r\x1b[K")
	}
	what := plan.Graph
	if what == "" {
		s := plan.Scenario
		n := fmt.Sprint(s.Users)
		if several {
			n = joinInts(users, ", ")
		}
		what = fmt.Sprintf("%s users, %d resources, demand %s", n, s.Resources, s.Demand)
		if s.FixedSets {
			what += ", fixed sets"
		}
		if s.Zipf != 0 {
			what += fmt.Sprintf(", zipf %g", s.Zipf)
		}
	}
	ch := "unordered"
	if plan.Scenario.FIFO {
		ch = "FIFO"
	}
	fmt.Fprintf(w, "%s on %s; think %s, cs %s, delay %s, %s channels; seed %d\n\n", plan.Kind, what,
		plan.Config.Work.Think, plan.Config.Work.CS, plan.Config.Net.Delay, ch, plan.Scenario.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	crashes := len(plan.Config.Net.Crashes) > 0 && plan.Kind == algo.Exclusive
	// With a cost per input the processes are busy, and how many answers
	// the algorithm gives in a stretch of time is what the cost bounds.
	costly := plan.Config.Net.Cost > 0
	head := "algorithm\tserved\tresp mean\tp50\tp99\tmax\tmsgs/served\tconcurrency\tfairness\tviolations\tstarved\tdeadlock\t"
	if costly {
		head += "served/1000 ticks\t"
	}
	if crashes {
		head += "failure locality\tfailure set\t"
	}
	if timing {
		head += "events/s\t"
	}
	if several {
		head = "users\t" + head
	}
	fmt.Fprintln(tw, head)
	for _, r := range reports {
		if several {
			fmt.Fprintf(tw, "%d\t", r.Users)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%d\t%d\t%d\t%.2f\t%.2f\t%.3f\t%d\t%d\t%v\t",
			r.Algorithm, r.Served, r.Response.Mean, r.Response.P50, r.Response.P99, r.Response.Max,
			r.Messages.PerServed, r.Concurrency, r.Fairness, r.SafetyViolations, r.Starved, r.Deadlock)
		if costly {
			fmt.Fprintf(tw, "%.1f\t", r.Throughput)
		}
		if crashes {
			fl := "no crash happened"
			switch {
			case r.FailureLocality != nil && r.FailureUnreachable > 0:
				fl = fmt.Sprintf("%d (+%d starved out of reach)", *r.FailureLocality, r.FailureUnreachable)
			case r.FailureLocality != nil:
				fl = fmt.Sprint(*r.FailureLocality)
			}
			fmt.Fprintf(tw, "%s\t%d\t", fl, len(r.FailureSet))
		}
		if timing {
			fmt.Fprintf(tw, "%s\t", si(r.EventsPerSecond))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func joinInts(xs []int, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}

// sameRuns finds algorithms whose runs came out identical to an earlier
// one's, so that a table with equal rows says why: unhygienic without a
// failure model, for instance, is the threshold algorithm.
func sameRuns(rs []run.Result) [][2]string {
	var same [][2]string
	key := func(r run.Result) string {
		r.Algorithm, r.WallSeconds, r.EventsPerSecond = "", 0, 0
		b, _ := json.Marshal(r)
		return string(b)
	}
	first := map[string]string{}
	for _, r := range rs {
		k := key(r)
		if f, ok := first[k]; ok {
			same = append(same, [2]string{f, r.Algorithm})
			continue
		}
		first[k] = r.Algorithm
	}
	return same
}

// si formats a rate with an SI suffix.
func si(x float64) string {
	switch {
	case x >= 1e6:
		return fmt.Sprintf("%.2fM", x/1e6)
	case x >= 1e3:
		return fmt.Sprintf("%.1fk", x/1e3)
	}
	return fmt.Sprintf("%.0f", x)
}

// machineMemory is the memory a run may have, in bytes: this machine's
// (MemTotal of /proc/meminfo), or less when the process's address space is
// limited (ulimit -v), or 0 where neither can be read: then no run is
// refused for its size.
func machineMemory() int64 {
	limit := addressLimit()
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return limit
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
				if limit > 0 {
					return min(kb<<10, limit)
				}
				return kb << 10
			}
		}
	}
	return limit
}
