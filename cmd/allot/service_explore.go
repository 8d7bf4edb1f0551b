package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/allot-dev/allot/ctlsim"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/explore"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/svcsim"
)

// The search's start for --from adopt and serve: fromBefore ticks before
// (a few steps: the ticks around a view change are crowded with events)
// the event, found in the warm-up's schedule up to tick locateLimit.
const (
	fromBefore  = 2
	locateLimit = 100_000
)

// faultList reads a --crash or --restart list: P (at any step of the
// search) or P@T (at tick T, in the warm-up), mixed.
func faultList(flagName, v string, n int) ([]proc.ID, []sim.Crash, error) {
	var any []string
	var at []sim.Crash
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !strings.Contains(s, "@") {
			any = append(any, s)
			continue
		}
		f, err := ctlsim.ParseFaults([]string{s}, nil, nil, nil)
		if err == nil {
			err = f.Validate(n)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("--%s %q: want P or P@T, nodes of 0..%d", flagName, s, n-1)
		}
		at = append(at, f.Crashes...)
	}
	ids, err := nodeList(flagName, strings.Join(any, ","), n)
	return ids, at, err
}

// serviceExploreCmd is `allot explore --kind service`: the data path (a
// few nodes, a client) under the timed explorer, from the first tick every
// node serves and every client holds a session.
func serviceExploreCmd(args []string, stdout, stderr io.Writer) error {
	var (
		nodes, clients      int
		semaphores, units   int
		slots               int
		quotas, budget      int
		waste, take         int
		maxSess, maxLocks   int
		mismatch            int
		refreshEvery        int64
		try                 int
		seed                uint64
		delay               string
		crash, restart      string
		maxDepth, maxStates int
		timeout             time.Duration
		variant, format     string
		from                string
	)
	fs := flag.NewFlagSet("allot explore --kind service", flag.ContinueOnError)
	fs.Func("kind", "service: the data path (control plane, sessions, backups, the lock) with clients", func(v string) error {
		if v != "service" {
			return fmt.Errorf("not service")
		}
		return nil
	})
	fs.IntVar(&nodes, "nodes", 3, "nodes")
	fs.IntVar(&clients, "clients", 1, "clients")
	fs.IntVar(&semaphores, "semaphores", 0, "semaphores: with N > 0, one request of the clients' in two acquires a unit of one of N semaphores instead of locking; 0: locks only")
	fs.IntVar(&units, "units", 2, "with --semaphores: each semaphore's units, R")
	fs.IntVar(&slots, "slots", svcsim.Slots, "each node's slots of an instance of a small semaphore or a quota (the service's --slots)")
	quotaFlags(fs, &quotas, &budget, &waste)
	takeFlag(fs, &take)
	limitFlags(fs, &maxSess, &maxLocks)
	mismatchFlag(fs, &mismatch)
	refreshFlag(fs, &refreshEvery)
	tryFlag(fs, &try)
	fs.Uint64Var(&seed, "seed", 1, "seed of the processes' random draws")
	fs.StringVar(&delay, "delay", "uniform:1:3", "every message takes between A and B ticks: uniform:A:B or const:X")
	fs.StringVar(&crash, "crash", "", "nodes that may crash, each at any step (once): P[,P...]; P@T: node P crashes at tick T, in the warm-up")
	fs.StringVar(&restart, "restart", "", "nodes that, once crashed, may restart at any later step (once) from what they persisted: P[,P...]; P@T: at tick T, in the warm-up")
	fs.StringVar(&from, "from", "", "start the search at this tick (the warm-up runs on to it, its faults at their ticks); adopt or serve: 2 ticks before the warm-up's schedule first adopts a session, or serves a view, after its faults (default: when every node serves and every client holds a session)")
	fs.IntVar(&maxDepth, "max-depth", 12, "cut paths at this many steps after the warm-up (0: none)")
	fs.IntVar(&maxStates, "max-states", 200_000, "stop after this many distinct states (0: none)")
	fs.DurationVar(&timeout, "timeout", 10*time.Minute, "stop after this long (0: none)")
	fs.StringVar(&variant, "variant", "", "a deliberately broken data plane: "+strings.Join(svcsim.VariantNames(), ", "))
	fs.StringVar(&format, "format", "table", "output: table or json")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "usage: allot explore --kind service [flags]: every order of events the data path's timing allows, with crashes and restarts (at any step, or at a tick before the search: --crash P@T), judged by check.Service's safety rules and the liveness rules an event decides")
			fs.PrintDefaults()
			return errHelp
		}
		return badf("%v", err)
	}
	switch {
	case fs.NArg() > 0:
		return badf("explore takes no arguments, got %q", fs.Args())
	case nodes < 1 || nodes > 64 || clients < 1:
		return badf("--nodes must be 1 to 64 and --clients at least 1, not %d and %d", nodes, clients)
	case format != "table" && format != "json":
		return badf("--format %q: want table or json", format)
	case maxDepth < 0 || maxStates < 0 || timeout < 0:
		return badf("--max-depth, --max-states and --timeout must not be negative")
	case maxDepth == 0 && maxStates == 0 && timeout == 0:
		return badf("a service's time never ends: give --max-depth, --max-states or --timeout")
	case variant != "" && !slices.Contains(svcsim.VariantNames(), variant):
		return badf("--variant %q: want one of %s", variant, strings.Join(svcsim.VariantNames(), ", "))
	case semaphores < 0 || semaphores > 1<<20:
		return badf("--semaphores must be 0 to %d, not %d", 1<<20, semaphores)
	case units < 1 || units > math.MaxInt32:
		return badf("--units must be 1 to %d, not %d", math.MaxInt32, units)
	case slots < 1 || slots > svcsim.MaxSlots:
		return badf("--slots must be 1 to %d, not %d", svcsim.MaxSlots, slots)
	case semaphores == 0 && svcsim.SemVariant(variant):
		return badf("--variant %s breaks the semaphores: it needs --semaphores", variant)
	}
	if err := checkQuotaFlags(quotas, budget, waste, variant); err != nil {
		return err
	}
	if err := checkTakeFlag(take, quotas, budget, variant); err != nil {
		return err
	}
	if err := checkLimitFlags(maxSess, maxLocks, variant); err != nil {
		return err
	}
	if err := checkMismatchFlag(mismatch, semaphores, variant); err != nil {
		return err
	}
	if err := checkRefreshFlag(refreshEvery, variant); err != nil {
		return err
	}
	if err := checkTryFlag(try, variant); err != nil {
		return err
	}
	d, err := dist.Parse(delay)
	if err != nil {
		return badf("--delay: %v", err)
	}
	hi, ok := d.Max()
	if !ok {
		return badf("--delay %s: the explorer needs bounded delays, uniform:A:B or const:X", delay)
	}
	cr, crAt, err := faultList("crash", crash, nodes)
	if err != nil {
		return badf("%v", err)
	}
	re, reTicks, err := faultList("restart", restart, nodes)
	if err != nil {
		return badf("%v", err)
	}
	var reAt []sim.Restart
	for _, r := range reTicks {
		reAt = append(reAt, sim.Restart(r))
	}
	for _, c := range crAt {
		if slices.Contains(cr, c.P) || slices.ContainsFunc(crAt, func(o sim.Crash) bool { return o.P == c.P && o != c }) {
			return badf("--crash %d: a node crashes once", c.P)
		}
	}
	crashes := func(p proc.ID) bool {
		return slices.Contains(cr, p) || slices.ContainsFunc(crAt, func(c sim.Crash) bool { return c.P == p })
	}
	for _, r := range re {
		if !crashes(r) {
			return badf("--restart %d: a node restarts after it crashes: add it to --crash", r)
		}
	}
	for _, r := range reAt {
		i := slices.IndexFunc(crAt, func(c sim.Crash) bool { return c.P == r.P })
		if i < 0 || crAt[i].At >= r.At || slices.Contains(re, r.P) || slices.ContainsFunc(reAt, func(o sim.Restart) bool { return o.P == r.P && o != r }) {
			return badf("--restart %d@%d: a node restarts at a tick once, after its --crash %d@T at an earlier tick", r.P, r.At, r.P)
		}
	}
	cfg := svcsim.ExploreConfig{Nodes: nodes, Clients: clients, Seed: seed, MinDelay: d.Min(), MaxDelay: hi,
		Crash: cr, Restart: re, CrashAt: crAt, RestartAt: reAt, MaxDepth: maxDepth, MaxStates: maxStates, Timeout: timeout, Variant: variant,
		Semaphores: semaphores, Units: units, Quotas: quotas, Budget: budget, Waste: waste, TakeMost: take, Slots: slots, MaxSessions: maxSess, MaxLocks: maxLocks,
		Mismatch: mismatch, RefreshEvery: proc.Time(refreshEvery), Try: try}
	switch from {
	case "":
	case "adopt", "serve":
		kind := proc.EvAdopted
		if from == "serve" {
			kind = proc.EvView
		}
		at, err := cfg.Locate(kind, locateLimit)
		if err != nil {
			return badf("--from %s: %v", from, err)
		}
		cfg.From = max(0, at-fromBefore)
	default:
		t, err := strconv.ParseUint(from, 10, 62)
		if err != nil {
			return badf("--from %q: want a tick, adopt or serve", from)
		}
		cfg.From = proc.Time(t)
	}
	res, err := svcsim.Explore(cfg)
	if err != nil {
		return err
	}
	if format == "json" {
		// The limits beside the result's fields, only when set: without
		// them the document is as before.
		doc := struct {
			*explore.TimedResult
			MaxSessions int   `json:"max_sessions,omitempty"`
			MaxLocks    int   `json:"max_locks,omitempty"`
			Mismatch    int   `json:"mismatch,omitempty"`
			Refresh     int64 `json:"refresh_every,omitempty"`
			Try         int   `json:"try,omitempty"`
		}{res, maxSess, maxLocks, mismatch, refreshEvery, try}
		if err := writeJSON(stdout, doc); err != nil {
			return err
		}
	} else {
		verdict := fmt.Sprintf("complete: every order of events the timing allows, within %d steps", maxDepth)
		if !res.Complete {
			verdict = "bounded by " + res.Cut + ": the verdict covers the paths explored"
		}
		if res.Violations > 0 {
			verdict = "stopped at a violation"
		}
		fmt.Fprintf(stdout, "%s of %d nodes, %d clients%s; delays %d..%d; crash [%s], restart [%s]; seed %d%s\n", serviceName(variant), nodes, clients,
			limitsText(maxSess, maxLocks)+mismatchText(mismatch)+refreshText(refreshEvery)+tryText(try), d.Min(), hi, crash, restart, seed, takesOf(take))
		start := max(res.WarmupEnd, cfg.From)
		if cfg.From == 0 && len(crAt) == 0 {
			fmt.Fprintf(stdout, "from tick %d, when every node serves and every client holds a session (%d steps of earliest inputs)\n\n", start, res.Warmup)
		} else {
			fmt.Fprintf(stdout, "from tick %d (%d steps of earliest inputs before it, the faults at their ticks)\n\n", start, res.Warmup)
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "states\ttransitions\tdepth\tcrash paths\trestart paths\tviolations\t")
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t\n", res.States, res.Edges, res.Depth, res.Crashes, res.Restarts, res.Violations)
		tw.Flush()
		permits := ""
		if quotas > 0 {
			permits = fmt.Sprintf("; told a client a permit: %d", res.Marked["permit"])
		}
		fmt.Fprintf(stdout, "\nstates reached by a path that, after tick %d, served a view: %d; adopted a session: %d; held a grant again (regrant): %d%s\n",
			start, res.Marked["view"], res.Marked["adopted"], res.Marked["regrant"], permits)
		fmt.Fprintf(stdout, "\n%s\n", verdict)
	}
	if ce := res.Counter; ce != nil {
		fmt.Fprintf(stderr, "allot: %s: %s: %s (%d steps after the warm-up)\n", serviceName(variant), ce.Kind, ce.What, ce.Length)
		return errFailed
	}
	return nil
}
