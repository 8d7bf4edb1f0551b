package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/allot-dev/allot/ctlsim"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/svcsim"
	"github.com/allot-dev/allot/trace"
)

// serviceOpts are the flags of `allot sim --kind service`.
type serviceOpts struct {
	nodes, clients                   int
	semaphores, units, slots         int
	quotas, budget, waste            int
	take                             int
	maxSessions, maxLocks            int
	hold                             int64
	acquireOnly                      bool
	mismatch                         int
	refreshEvery                     int64
	try                              int
	seed                             uint64
	seeds, workers                   int
	horizon                          int64
	delay                            string
	random                           bool
	crash, restart, cut, pause, slow []string
	variant, format, traceFile       string
}

func serviceFlags(o *serviceOpts) *flag.FlagSet {
	fs := flag.NewFlagSet("allot sim --kind service", flag.ContinueOnError)
	fs.Func("kind", "service: the whole data path (control plane, sessions, backups, the lock) with clients, under faults", func(v string) error {
		if v != "service" {
			return fmt.Errorf("not service")
		}
		return nil
	})
	fs.IntVar(&o.nodes, "nodes", 3, "nodes")
	fs.IntVar(&o.clients, "clients", 4, "clients: each opens sessions, keeps them alive, locks and unlocks")
	fs.IntVar(&o.semaphores, "semaphores", 0, "semaphores: with N > 0, one request of the clients' in two acquires a unit of one of N semaphores instead of locking, served as the service serves them (R of --slots or more: central-pool; fewer: R-RESOURCES on the slots); 0: locks only")
	fs.IntVar(&o.units, "units", 2, "with --semaphores: each semaphore's units, R")
	fs.IntVar(&o.slots, "slots", svcsim.Slots, "each node's slots of an instance of a small semaphore or a quota (the service's --slots)")
	quotaFlags(fs, &o.quotas, &o.budget, &o.waste)
	takeFlag(fs, &o.take)
	limitFlags(fs, &o.maxSessions, &o.maxLocks)
	fs.Int64Var(&o.hold, "hold", svcsim.CS, "each grant is held 1 to this many ticks, drawn; past the default only with --acquire-only and --units at least --clients (a request waiting behind holders would outwait the checker's bound)")
	fs.BoolVar(&o.acquireOnly, "acquire-only", false, "with --semaphores: every request acquires a unit, none locks")
	mismatchFlag(fs, &o.mismatch)
	refreshFlag(fs, &o.refreshEvery)
	tryFlag(fs, &o.try)
	fs.Uint64Var(&o.seed, "seed", 1, "random seed (delays, elections, clients, a random fault schedule)")
	fs.IntVar(&o.seeds, "seeds", 1, "run seeds --seed, --seed+1, ... this many, and print their summary")
	fs.IntVar(&o.workers, "workers", 0, "with --seeds: runs at once (0: one per CPU)")
	fs.Int64Var(&o.horizon, "horizon", 20000, "stop at this tick (a millisecond of the service's)")
	fs.StringVar(&o.delay, "delay", "uniform:1:10", "message delay (ticks): const:X | uniform:A:B | exp:MEAN")
	fs.BoolVar(&o.random, "random-faults", false, "draw the fault schedule from the seed (--kind control's, and up to two slow nodes)")
	fs.Func("crash", "fail-stop crashes P@T[,P@T...] (repeatable)", func(v string) error { o.crash = append(o.crash, v); return nil })
	fs.Func("restart", "restarts from persisted state P@T[,...] (repeatable)", func(v string) error { o.restart = append(o.restart, v); return nil })
	fs.Func("cut", "cut links A>B@T1-T2 (one way) or A-B@T1-T2 (both ways) (repeatable)", func(v string) error { o.cut = append(o.cut, v); return nil })
	fs.Func("pause", "paused (stopped) nodes P@T1-T2 (repeatable)", func(v string) error { o.pause = append(o.pause, v); return nil })
	fs.Func("slow", "slow nodes P@T1-T2xF: P's timers run F times slower (the busy machine) (repeatable)", func(v string) error { o.slow = append(o.slow, v); return nil })
	fs.StringVar(&o.variant, "variant", "", "a deliberately broken data plane, to see the checker catch it: "+strings.Join(svcsim.VariantNames(), ", "))
	fs.StringVar(&o.format, "format", "table", "output: table or json")
	fs.StringVar(&o.traceFile, "trace", "", "write the event stream as JSONL to FILE (one seed only)")
	return fs
}

// serviceKind reports whether args ask for `--kind service`.
func serviceKind(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		switch strings.TrimLeft(a, "-") {
		case "kind=service":
			return true
		case "kind":
			if i+1 < len(args) && args[i+1] == "service" {
				return true
			}
		}
	}
	return false
}

// parseSlow reads P@T1-T2xF.
func parseSlow(s string, nodes int) (svcsim.Slow, error) {
	bad := fmt.Errorf("slow %q: want P@T1-T2xF (node P's timers F times slower from T1 to T2)", s)
	who, rest, ok := strings.Cut(s, "@")
	span, factor, ok2 := strings.Cut(rest, "x")
	from, to, ok3 := strings.Cut(span, "-")
	if !ok || !ok2 || !ok3 {
		return svcsim.Slow{}, bad
	}
	p, err1 := strconv.Atoi(who)
	t1, err2 := strconv.ParseInt(from, 10, 64)
	t2, err3 := strconv.ParseInt(to, 10, 64)
	f, err4 := strconv.ParseFloat(factor, 64)
	if err := errors.Join(err1, err2, err3, err4); err != nil || t1 < 0 || t2 <= t1 || !(f >= 1) || f > 1e6 {
		return svcsim.Slow{}, bad
	}
	if p < 0 || p >= nodes {
		return svcsim.Slow{}, fmt.Errorf("slow %q: there are nodes 0..%d", s, nodes-1)
	}
	return svcsim.Slow{P: proc.ID(p), Start: proc.Time(t1), End: proc.Time(t2), Factor: f}, nil
}

// serviceSimCmd is `allot sim --kind service`.
func serviceSimCmd(args []string, stdout, stderr io.Writer) error {
	var o serviceOpts
	fs := serviceFlags(&o)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "usage: allot sim --kind service [flags]: the service's data path with clients, under faults, judged by its events")
			fs.PrintDefaults()
			return errHelp
		}
		return badf("%v", err)
	}
	if fs.NArg() > 0 {
		return badf("sim --kind service takes no scenario file, got %q", fs.Args())
	}
	switch {
	case o.nodes < 1 || o.nodes > 64:
		return badf("--nodes must be 1 to 64, not %d", o.nodes)
	case o.clients < 1:
		return badf("--clients must be at least 1, not %d", o.clients)
	case o.semaphores < 0 || o.semaphores > 1<<20:
		return badf("--semaphores must be 0 to %d, not %d", 1<<20, o.semaphores)
	case o.units < 1 || o.units > math.MaxInt32:
		return badf("--units must be 1 to %d, not %d", math.MaxInt32, o.units)
	case o.slots < 1 || o.slots > svcsim.MaxSlots:
		return badf("--slots must be 1 to %d, not %d", svcsim.MaxSlots, o.slots)
	case o.semaphores == 0 && svcsim.SemVariant(o.variant):
		return badf("--variant %s breaks the semaphores: it needs --semaphores", o.variant)
	case o.seeds < 1:
		return badf("--seeds must be at least 1, not %d", o.seeds)
	case o.horizon <= 0:
		return badf("--horizon must be positive: a service never stops by itself")
	case o.format != "table" && o.format != "json":
		return badf("--format %q: want table or json", o.format)
	case o.traceFile != "" && o.seeds > 1:
		return badf("--trace writes one run: not with --seeds")
	case o.variant != "" && !slices.Contains(svcsim.VariantNames(), o.variant):
		return badf("--variant %q: want one of %s", o.variant, strings.Join(svcsim.VariantNames(), ", "))
	}
	if err := checkQuotaFlags(o.quotas, o.budget, o.waste, o.variant); err != nil {
		return err
	}
	if err := checkTakeFlag(o.take, o.quotas, o.budget, o.variant); err != nil {
		return err
	}
	if err := checkLimitFlags(o.maxSessions, o.maxLocks, o.variant); err != nil {
		return err
	}
	if err := checkMismatchFlag(o.mismatch, o.semaphores, o.variant); err != nil {
		return err
	}
	if err := checkRefreshFlag(o.refreshEvery, o.variant); err != nil {
		return err
	}
	if err := checkTryFlag(o.try, o.variant); err != nil {
		return err
	}
	switch {
	case o.acquireOnly && o.semaphores == 0:
		return badf("--acquire-only acquires semaphores' units: it needs --semaphores")
	case o.hold < 1 || o.hold > 1<<30:
		return badf("--hold must be 1 to %d, not %d", 1<<30, o.hold)
	case o.hold > svcsim.CS && (!o.acquireOnly || o.units < o.clients):
		return badf("--hold past %d needs --acquire-only and --units at least --clients (%d): a request waiting behind holders would outwait the checker's bound", svcsim.CS, o.clients)
	}
	delay, err := dist.Parse(o.delay)
	if err != nil {
		return badf("--delay: %v", err)
	}
	cf, err := ctlsim.ParseFaults(o.crash, o.restart, o.cut, o.pause)
	if err != nil {
		return badf("%v", err)
	}
	if err := cf.Validate(o.nodes); err != nil {
		return badf("%v", err)
	}
	faults := svcsim.Faults{Faults: cf}
	for _, s := range o.slow {
		for _, item := range strings.Split(s, ",") {
			w, err := parseSlow(item, o.nodes)
			if err != nil {
				return badf("%v", err)
			}
			faults.Slow = append(faults.Slow, w)
		}
	}
	if o.random && faults.Count() > 0 {
		return badf("--random-faults draws the schedule: not with --crash, --restart, --cut, --pause or --slow")
	}
	cfg := svcsim.Config{Nodes: o.nodes, Clients: o.clients, Seed: o.seed, Horizon: proc.Time(o.horizon), Delay: delay,
		Faults: faults, Random: o.random, Variant: o.variant, Semaphores: o.semaphores, Units: o.units, Slots: o.slots,
		Quotas: o.quotas, Budget: o.budget, Waste: o.waste, TakeMost: o.take, MaxSessions: o.maxSessions, MaxLocks: o.maxLocks,
		Hold: proc.Time(o.hold), AcquireOnly: o.acquireOnly, Mismatch: o.mismatch, RefreshEvery: proc.Time(o.refreshEvery), Try: o.try}
	if o.seeds > 1 {
		return serviceSweep(cfg, o, stdout, stderr)
	}
	var tw *trace.Writer
	var tf *os.File
	if o.traceFile != "" {
		if tf, err = os.Create(o.traceFile); err != nil {
			return badf("--trace: %v", err)
		}
		tw = trace.NewWriter(tf)
		scenario := map[string]any{"kind": "service", "nodes": o.nodes, "clients": o.clients, "delay": o.delay,
			"horizon": o.horizon, "random_faults": o.random, "variant": o.variant}
		// The limits only when set: a trace without them is as before.
		if o.maxSessions > 0 {
			scenario["max_sessions"] = o.maxSessions
		}
		if o.maxLocks > 0 {
			scenario["max_locks"] = o.maxLocks
		}
		if o.mismatch > 0 {
			scenario["mismatch"] = o.mismatch
		}
		if o.refreshEvery > 0 {
			scenario["refresh_every"] = o.refreshEvery
		}
		if o.try > 0 {
			scenario["try"] = o.try
		}
		tw.Header(trace.Header{Scenario: scenario, Seed: o.seed, Algorithm: serviceName(o.variant),
			Kind: "service", Processes: o.nodes + o.clients})
		cfg.Sink = tw
	}
	r, err := svcsim.Run(cfg)
	if tw != nil {
		if err == nil {
			tw.End(r.End)
		}
		err = errors.Join(err, tw.Flush(), tf.Close())
	}
	if err != nil {
		return err
	}
	if o.format == "json" {
		if err := writeJSON(stdout, r); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%s of %d nodes, %d clients%s; delay %s, horizon %d; seed %d\n", serviceName(o.variant), r.Nodes, r.Clients,
			limitsText(o.maxSessions, o.maxLocks)+workloadText(o), o.delay, r.End, r.Seed)
		fmt.Fprintf(stdout, "faults: %s\n", describeService(r.Faults))
		locks := r.Requests - r.Takes // a Take is a request too
		if o.semaphores > 0 {
			fmt.Fprintf(stdout, "sessions %d, adopted %d, lock requests %d, grants %d, acquires %d, units granted %d, expired answers %d; messages %d, events %d\n",
				r.Sessions, r.Adopted, locks-r.Acquires, r.Grants-r.Units, r.Acquires, r.Units, r.Expired, r.Messages, r.Events)
		} else {
			fmt.Fprintf(stdout, "sessions %d, adopted %d, lock requests %d, grants %d, expired answers %d; messages %d, events %d\n",
				r.Sessions, r.Adopted, locks, r.Grants, r.Expired, r.Messages, r.Events)
		}
		if o.quotas > 0 {
			fmt.Fprintf(stdout, "quotas %d of %d permits (waste %d)%s: takes %d, permits %d, rejects %d\n", o.quotas, o.budget, o.waste, takesOf(o.take), r.Takes, r.Permits, r.Rejects)
		}
		if o.maxSessions > 0 || o.maxLocks > 0 {
			fmt.Fprintf(stdout, "refused at a node's limit (NODE_LIMIT): %d\n", r.Refused)
		}
		if o.mismatch > 0 {
			fmt.Fprintf(stdout, "acquires refused for other units (UNITS_MISMATCH): %d\n", r.Mismatched)
		}
		if o.try > 0 {
			fmt.Fprintln(stdout, triesLine(r.Tries, r.TriesGranted, r.Taken))
		}
		if r.Cut > 0 {
			fmt.Fprintln(stdout, cutLine(r.Cut, r.Reclaimed))
		}
		fmt.Fprintf(stdout, "checker findings: %d\n", r.Findings)
		for _, f := range r.First {
			fmt.Fprintf(stdout, "  %s\n", f)
		}
	}
	if r.Findings > 0 {
		fmt.Fprintf(stderr, "allot: service: %d findings (seed %d), first: %s\n", r.Findings, r.Seed, r.First[0])
		return errFailed
	}
	return nil
}

func serviceSweep(cfg svcsim.Config, o serviceOpts, stdout, stderr io.Writer) error {
	seeds := make([]uint64, o.seeds)
	for i := range seeds {
		seeds[i] = o.seed + uint64(i)
	}
	line := newStatusLine(stderr, os.Getenv, plainEvery)
	sum, err := svcsim.Sweep(cfg, seeds, o.workers, line.seeds("service", len(seeds)))
	line.close()
	line.clear()
	if err != nil {
		return err
	}
	if o.format == "json" {
		if err := writeJSON(stdout, sum); err != nil {
			return err
		}
	} else {
		faults := "scripted faults"
		if o.random {
			faults = "random faults"
		}
		fmt.Fprintf(stdout, "%s of %d nodes, %d clients%s, %s, delay %s, horizon %d, seeds %d..%d%s\n\n", serviceName(o.variant), o.nodes, o.clients,
			limitsText(o.maxSessions, o.maxLocks)+workloadText(o), faults, cfg.Delay, o.horizon, o.seed, o.seed+uint64(o.seeds)-1, takesOf(o.take))
		kinds := []string{"crash", "restart", "cut", "pause", "slow"}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		units, unitsHead := "", ""
		if o.semaphores > 0 {
			// The grants of locks, and of semaphores' units.
			units, unitsHead = fmt.Sprintf("%d\t", sum.Units), "units granted\t"
			sum.Grants -= sum.Units
		}
		if o.quotas > 0 {
			units, unitsHead = units+fmt.Sprintf("%d\t%d\t", sum.Permits, sum.Rejects), unitsHead+"permits\trejects\t"
		}
		if o.maxSessions > 0 || o.maxLocks > 0 {
			units, unitsHead = units+fmt.Sprintf("%d\t", sum.Refused), unitsHead+"refused\t"
		}
		if o.mismatch > 0 {
			units, unitsHead = units+fmt.Sprintf("%d\t", sum.Mismatched), unitsHead+"mismatched\t"
		}
		fmt.Fprintln(tw, "runs\t"+strings.Join(kinds, "\t")+"\tsessions\tadopted\tgrants\t"+unitsHead+"expired answers\truns with findings\tfindings\t")
		fmt.Fprintf(tw, "%d\t", sum.Runs)
		for _, k := range kinds {
			fmt.Fprintf(tw, "%d\t", sum.Faults[k])
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s%d\t%d\t%d\t\n", sum.Sessions, sum.Adopted, sum.Grants, units, sum.Expired, sum.Failed, sum.Findings)
		tw.Flush()
		var rules []string
		for _, k := range slices.Sorted(maps.Keys(sum.ByRule)) {
			rules = append(rules, fmt.Sprintf("%s %d", k, sum.ByRule[k]))
		}
		if len(rules) == 0 {
			rules = []string{"none"}
		}
		if o.try > 0 {
			fmt.Fprintf(stdout, "\n%s\n", triesLine(sum.Tries, sum.TriesGranted, sum.Taken))
		}
		if sum.Cut > 0 {
			fmt.Fprintf(stdout, "\n%s\n", cutLine(sum.Cut, sum.Reclaimed))
		}
		fmt.Fprintf(stdout, "\nfindings by rule: %s\n", strings.Join(rules, ", "))
	}
	if f := sum.FirstFailed; f != nil {
		fmt.Fprintf(stderr, "allot: service: %d of %d runs with findings; the first, seed %d (--seed %d replays it): %s\n", sum.Failed, sum.Runs, f.Seed, f.Seed, f.First[0])
		return errFailed
	}
	return nil
}

// quotaFlags are the quota flags of allot sim and explore --kind
// service.
func quotaFlags(fs *flag.FlagSet, quotas, budget, waste *int) {
	fs.IntVar(quotas, "quotas", 0, "quotas: with N > 0, one request of the clients' in two takes a permit of one of N quotas (the service's controller, on the ledger's budget of each view) instead; 0: none")
	fs.IntVar(budget, "budget", 40, "with --quotas: each quota's budget, M")
	fs.IntVar(waste, "waste", 12, "with --quotas: each quota's waste, W (0 to M); the chunk is max(1, W/(2·nodes)), as the service's")
}

// checkQuotaFlags refuses quota flags a run cannot have.
func checkQuotaFlags(quotas, budget, waste int, variant string) error {
	switch {
	case quotas < 0 || quotas > 1<<10:
		return badf("--quotas must be 0 to %d, not %d", 1<<10, quotas)
	case budget < 1 || budget > math.MaxInt32:
		return badf("--budget must be 1 to %d, not %d", math.MaxInt32, budget)
	case waste < 0 || waste > budget:
		return badf("--waste must be 0 to the budget, %d, not %d", budget, waste)
	case quotas == 0 && svcsim.QuotaVariant(variant):
		return badf("--variant %s breaks the quotas: it needs --quotas", variant)
	}
	return nil
}

// takeFlag is --take of allot sim and explore --kind service.
func takeFlag(fs *flag.FlagSet, take *int) {
	fs.IntVar(take, "take", 1, "with --quotas: the most permits a client's Take asks, drawn 1 to N for each, one at a time on the node's slot as the service's Take of N (1 to the budget)")
}

// checkTakeFlag refuses a --take a run cannot have.
func checkTakeFlag(take, quotas, budget int, variant string) error {
	switch {
	case take < 1 || take > max(1, budget):
		return badf("--take must be 1 to the budget, %d, not %d", budget, take)
	case take > 1 && quotas == 0:
		return badf("--take %d takes permits of quotas: it needs --quotas", take)
	case take == 1 && svcsim.TakeVariant(variant):
		return badf("--variant %s breaks a Take of more than one permit: it needs --take 2 or more", variant)
	}
	return nil
}

// limitFlags are the nodes' limits of allot sim and explore --kind
// service.
func limitFlags(fs *flag.FlagSet, maxSessions, maxLocks *int) {
	fs.IntVar(maxSessions, "max-sessions", 0, "each node's most sessions open (the service's --max-sessions; one more is refused, NODE_LIMIT, and the client opens it at the next node), and most requests of one semaphore of --slots units or more; 0: none")
	fs.IntVar(maxLocks, "max-locks", 0, "each node's most lock requests open, waiting or held (the service's --max-locks; one more is refused, NODE_LIMIT, and the client asks again later); 0: none")
}

// checkLimitFlags refuses limit flags a run cannot have.
func checkLimitFlags(maxSessions, maxLocks int, variant string) error {
	switch {
	case maxSessions < 0 || maxSessions > 1<<20:
		return badf("--max-sessions must be 0 (none) to %d, not %d", 1<<20, maxSessions)
	case maxLocks < 0 || maxLocks > 1<<20:
		return badf("--max-locks must be 0 (none) to %d, not %d", 1<<20, maxLocks)
	case maxSessions == 0 && maxLocks == 0 && svcsim.LimitVariant(variant):
		return badf("--variant %s breaks the nodes' limits: it needs --max-locks or --max-sessions", variant)
	}
	return nil
}

// takesOf says the takes' largest count in the output, only when it is
// not the default one.
func takesOf(take int) string {
	if take <= 1 {
		return ""
	}
	return fmt.Sprintf(", takes of 1 to %d permits", take)
}

// tryFlag is --try of allot sim and explore --kind service.
func tryFlag(fs *flag.FlagSet, try *int) {
	fs.IntVar(try, "try", 0, "the percent of the clients' lock and acquire requests that are tries (the service's TryLock, TryAcquire: answered TAKEN, the request withdrawn, rather than wait behind another holder); 0: none")
}

// checkTryFlag refuses --try outside 0..100, and the tries' variant
// without it.
func checkTryFlag(try int, variant string) error {
	switch {
	case try < 0 || try > 100:
		return badf("--try must be 0 to 100 (percent), not %d", try)
	case try == 0 && svcsim.TryVariant(variant):
		return badf("--variant %s breaks the tries: it needs --try", variant)
	}
	return nil
}

// tryText is the share of tries for a heading: nothing when none.
func tryText(try int) string {
	if try == 0 {
		return ""
	}
	return fmt.Sprintf(", tries %d%%", try)
}

// triesLine counts the clients' tries.
// cutLine says how many lock and acquire requests were cut off (their
// node did not serve the session, or the client moved before the
// answer) and how many of them the session's node then said the session
// holds (Holders), the client claiming the grant.
func cutLine(cut, reclaimed int) string {
	return fmt.Sprintf("locks and acquires cut off %d: found held by their session (Holders) %d", cut, reclaimed)
}

func triesLine(tries, granted, taken int) string {
	return fmt.Sprintf("tries %d: granted %d, answered TAKEN (given up) %d", tries, granted, taken)
}

// limitsText is the nodes' limits for a heading: nothing when none is
// set.
func limitsText(maxSessions, maxLocks int) string {
	s := ""
	if maxSessions > 0 {
		s += fmt.Sprintf(", max-sessions %d", maxSessions)
	}
	if maxLocks > 0 {
		s += fmt.Sprintf(", max-locks %d", maxLocks)
	}
	return s
}

// workloadText is what the clients ask beyond the defaults, for a
// heading: tries, holds, acquires only, other units, refreshes.
func workloadText(o serviceOpts) string {
	s := tryText(o.try)
	if o.hold != svcsim.CS {
		s += fmt.Sprintf(", holds up to %d", o.hold)
	}
	if o.acquireOnly {
		s += ", acquires only"
	}
	return s + mismatchText(o.mismatch) + refreshText(o.refreshEvery)
}

// refreshFlag is --refresh-every of allot sim and explore --kind
// service.
func refreshFlag(fs *flag.FlagSet, every *int64) {
	fs.Int64Var(every, "refresh-every", 0, "the control plane's leader proposes a refresh of the view every this many ticks (the service's --refresh-every: a view of the same members that forgets the units of the semaphores nobody holds, each node's ready recording again those it holds); 0: never")
}

// checkRefreshFlag refuses a --refresh-every outside 0..2^30, and the
// refresh's variant without it.
func checkRefreshFlag(every int64, variant string) error {
	switch {
	case every < 0 || every > 1<<30:
		return badf("--refresh-every must be 0 (never) to %d, not %d", 1<<30, every)
	case every == 0 && svcsim.RefreshVariant(variant):
		return badf("--variant %s breaks a refresh: it needs --refresh-every", variant)
	}
	return nil
}

// refreshText is --refresh-every for a heading: nothing when not set.
func refreshText(every int64) string {
	if every == 0 {
		return ""
	}
	return fmt.Sprintf(", refresh every %d", every)
}

// mismatchFlag is --mismatch of allot sim and explore --kind service.
func mismatchFlag(fs *flag.FlagSet, mismatch *int) {
	fs.IntVar(mismatch, "mismatch", 0, "with --semaphores: the percent of acquires (0 to 100, drawn) that give their semaphore other units than --units (one less, or one more); the nodes record a semaphore's units in the control log at its first use and refuse other units (UNITS_MISMATCH); 0: none, and no units recorded")
}

// checkMismatchFlag refuses a --mismatch outside 0..100, one without
// semaphores, and the units' variant without it.
func checkMismatchFlag(mismatch, semaphores int, variant string) error {
	switch {
	case mismatch < 0 || mismatch > 100:
		return badf("--mismatch must be 0 to 100 (percent of the acquires), not %d", mismatch)
	case mismatch > 0 && semaphores == 0:
		return badf("--mismatch gives acquires other units: it needs --semaphores")
	case mismatch == 0 && svcsim.MismatchVariant(variant):
		return badf("--variant %s breaks an Acquire of other units: it needs --mismatch", variant)
	}
	return nil
}

// mismatchText is --mismatch for a heading: nothing when not set.
func mismatchText(mismatch int) string {
	if mismatch == 0 {
		return ""
	}
	return fmt.Sprintf(", mismatch %d%%", mismatch)
}

func describeService(f svcsim.Faults) string {
	s := describeFaults(f.Faults)
	var slow []string
	for _, w := range f.Slow {
		slow = append(slow, fmt.Sprintf("slow %d@%d-%dx%g", w.P, w.Start, w.End, w.Factor))
	}
	switch {
	case len(slow) == 0:
		return s
	case s == "none":
		return strings.Join(slow, ", ")
	}
	return s + ", " + strings.Join(slow, ", ")
}

func serviceName(variant string) string {
	if variant == "" {
		return "service"
	}
	return "service/" + variant
}
