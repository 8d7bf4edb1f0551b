package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/ctlsim"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/explore"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/trace"
)

type controlExploreOpts struct {
	nodes                int
	seed                 uint64
	delay                string
	crash, restart       string
	fromStart            bool
	maxDepth, maxStates  int
	maxTime              int64
	timeout              time.Duration
	variant, format, out string
}

func controlExploreFlags(o *controlExploreOpts) *flag.FlagSet {
	fs := flag.NewFlagSet("allot explore --kind control", flag.ContinueOnError)
	fs.Func("kind", "control: the control plane (Raft views and leases)", func(v string) error {
		if v != "control" {
			return fmt.Errorf("not control")
		}
		return nil
	})
	fs.IntVar(&o.nodes, "nodes", 3, "control plane nodes")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the nodes' random draws (their election timeouts)")
	fs.StringVar(&o.delay, "delay", "uniform:1:10", "every message takes between A and B ticks: uniform:A:B or const:X")
	fs.StringVar(&o.crash, "crash", "", "nodes that may crash, each at any step (once): P[,P...]")
	fs.StringVar(&o.restart, "restart", "", "nodes that, once crashed, may restart at any later step (once) from what they persisted: P[,P...]")
	fs.BoolVar(&o.fromStart, "from-start", false, "explore from the nodes' start (default: from the first tick a majority serves, reached by taking the earliest input each time)")
	fs.IntVar(&o.maxDepth, "max-depth", 12, "cut paths at this many steps after the warm-up (0: none)")
	fs.Int64Var(&o.maxTime, "max-time", 0, "no input after this tick (0: none)")
	fs.IntVar(&o.maxStates, "max-states", 200_000, "stop after this many distinct states (0: none)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "stop after this long (0: none)")
	fs.StringVar(&o.variant, "variant", "", "a deliberately broken control plane: "+strings.Join(controlVariants, ", "))
	fs.StringVar(&o.format, "format", "table", "output: table or json")
	fs.StringVar(&o.out, "trace", "", "write the counterexample's events as JSONL to FILE")
	return fs
}

func nodeList(flagName, v string, n int) ([]proc.ID, error) {
	var ids []proc.ID
	if v == "" {
		return nil, nil
	}
	for _, s := range strings.Split(v, ",") {
		id, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || id < 0 || id >= n {
			return nil, fmt.Errorf("--%s %q: want node numbers of 0..%d, P[,P...]", flagName, v, n-1)
		}
		ids = append(ids, proc.ID(id))
	}
	return ids, nil
}

// controlExploreCmd is `allot explore --kind control`.
func controlExploreCmd(args []string, stdout, stderr io.Writer) error {
	var o controlExploreOpts
	fs := controlExploreFlags(&o)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "usage: allot explore --kind control [flags]: every order of events a control plane's timing allows, with crashes and restarts")
			fs.PrintDefaults()
			return errHelp
		}
		return badf("%v", err)
	}
	switch {
	case fs.NArg() > 0:
		return badf("explore takes no arguments, got %q", fs.Args())
	case o.nodes < 1:
		return badf("--nodes must be at least 1, not %d", o.nodes)
	case o.format != "table" && o.format != "json":
		return badf("--format %q: want table or json", o.format)
	case o.maxDepth < 0 || o.maxStates < 0 || o.maxTime < 0 || o.timeout < 0:
		return badf("--max-depth, --max-states, --max-time and --timeout must not be negative")
	case o.maxDepth == 0 && o.maxStates == 0 && o.maxTime == 0 && o.timeout == 0:
		return badf("a control plane's time never ends: give --max-depth, --max-time, --max-states or --timeout")
	}
	d, err := dist.Parse(o.delay)
	if err != nil {
		return badf("--delay: %v", err)
	}
	lo := d.Min()
	hi, ok := d.Max()
	if !ok {
		return badf("--delay %s: the explorer needs bounded delays, uniform:A:B or const:X", o.delay)
	}
	crash, err := nodeList("crash", o.crash, o.nodes)
	if err != nil {
		return badf("%v", err)
	}
	restart, err := nodeList("restart", o.restart, o.nodes)
	if err != nil {
		return badf("%v", err)
	}
	for _, r := range restart {
		if !slices.Contains(crash, r) {
			return badf("--restart %d: a node restarts after it crashes: add it to --crash", r)
		}
	}
	build, err := controlPlane(o.variant)
	if err != nil {
		return badf("--variant: %v", err)
	}
	cfg := explore.TimedConfig{
		Build: func() ([]proc.Process, error) { return build(o.nodes, o.seed) },
		Judge: func() (proc.Sink, *check.Report) {
			c := &check.Control{Nodes: o.nodes}
			return c, &c.Report
		},
		Seed: o.seed, MinDelay: lo, MaxDelay: hi, Crash: crash, Restart: restart, Unhashed: ctlsim.Unhashed,
		MaxDepth: o.maxDepth, MaxTime: proc.Time(o.maxTime), MaxStates: o.maxStates, Timeout: o.timeout,
	}
	if !o.fromStart {
		cfg.Warmup = majorityServes(o.nodes)
	}
	res, err := explore.RunTimed(cfg)
	if err != nil {
		return err
	}
	if o.format == "json" {
		if err := writeJSON(stdout, res); err != nil {
			return err
		}
	} else {
		verdict := "complete: every order of events the timing allows"
		if o.maxTime > 0 {
			verdict += fmt.Sprintf(", up to tick %d", o.maxTime)
		}
		if o.maxDepth > 0 {
			verdict += fmt.Sprintf(", within %d steps", o.maxDepth)
		}
		if !res.Complete {
			verdict = "bounded by " + res.Cut + ": the verdict covers the paths explored"
		}
		if res.Violations > 0 {
			verdict = "stopped at a violation"
		}
		fmt.Fprintf(stdout, "%s of %d nodes; delays %d..%d; crash [%s], restart [%s]; seed %d\n", controlName(o.variant), o.nodes, lo, hi, o.crash, o.restart, o.seed)
		if o.fromStart {
			fmt.Fprintf(stdout, "from the start\n\n")
		} else {
			fmt.Fprintf(stdout, "from tick %d, when a majority first serves (%d steps of earliest inputs)\n\n", res.WarmupEnd, res.Warmup)
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "states\ttransitions\tdepth\tcrash paths\trestart paths\tviolations\t")
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t\n", res.States, res.Edges, res.Depth, res.Crashes, res.Restarts, res.Violations)
		tw.Flush()
		fmt.Fprintf(stdout, "\n%s\n", verdict)
	}
	if ce := res.Counter; ce != nil {
		fmt.Fprintf(stderr, "allot: %s: %s: %s (%d steps after the warm-up)\n", controlName(o.variant), ce.Kind, ce.What, ce.Length)
		for _, s := range ce.Steps {
			fmt.Fprintf(stderr, "  %d. %s\n", s.N, s.Input)
			for _, e := range s.Events {
				fmt.Fprintf(stderr, "       %s\n", e)
			}
		}
		if o.out != "" {
			f, err := os.Create(o.out)
			if err != nil {
				return badf("--trace: %v", err)
			}
			h := trace.Header{Seed: o.seed, Algorithm: controlName(o.variant), Kind: "control", Processes: o.nodes}
			if err := errors.Join(ce.WriteTrace(f, h, false), f.Close()); err != nil {
				return err
			}
		}
		return errFailed
	}
	return nil
}

// majorityServes is the warm-up's end: a majority of the nodes serve one
// epoch.
func majorityServes(n int) func([]proc.Event) bool {
	return func(es []proc.Event) bool {
		serving := map[proc.ID]uint64{}
		for _, e := range es {
			switch e.Kind {
			case proc.EvView:
				serving[e.P] = e.Epoch
			case proc.EvFence, proc.EvCrash, proc.EvRestart:
				delete(serving, e.P)
			}
		}
		count := map[uint64]int{}
		for _, ep := range serving { // any order: a count against a majority
			if count[ep]++; 2*count[ep] > n {
				return true
			}
		}
		return false
	}
}
