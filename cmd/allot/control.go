package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/allot-dev/allot/ctlsim"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/trace"
)

// controlOpts are the flags of `allot sim --kind control`.
type controlOpts struct {
	nodes                      int
	seed                       uint64
	seeds, workers             int
	horizon                    int64
	delay                      string
	random                     bool
	crash, restart, cut, pause []string
	variant, format, traceFile string
}

func controlFlags(o *controlOpts) *flag.FlagSet {
	fs := flag.NewFlagSet("allot sim --kind control", flag.ContinueOnError)
	fs.Func("kind", "control: the control plane (Raft views and leases) under faults", func(v string) error {
		if v != "control" {
			return fmt.Errorf("not control")
		}
		return nil
	})
	fs.IntVar(&o.nodes, "nodes", 3, "control plane nodes")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed (delays, elections, a random fault schedule)")
	fs.IntVar(&o.seeds, "seeds", 1, "run seeds --seed, --seed+1, ... this many, and print their summary")
	fs.IntVar(&o.workers, "workers", 0, "with --seeds: runs at once (0: one per CPU)")
	fs.Int64Var(&o.horizon, "horizon", 20000, "stop at this tick")
	fs.StringVar(&o.delay, "delay", "uniform:1:10", "message delay (ticks): const:X | uniform:A:B | exp:MEAN")
	fs.BoolVar(&o.random, "random-faults", false, "draw the fault schedule from the seed (1 to 4 faults: crash and restart, fast restart, two at once, full restart, crash for good, pause, isolation, one-way and non-transitive cuts)")
	fs.Func("crash", "fail-stop crashes P@T[,P@T...] (repeatable)", func(v string) error { o.crash = append(o.crash, v); return nil })
	fs.Func("restart", "restarts from persisted state P@T[,...]: after a crash, or a kill and restart in one tick (repeatable)", func(v string) error { o.restart = append(o.restart, v); return nil })
	fs.Func("cut", "cut links A>B@T1-T2 (one way) or A-B@T1-T2 (both ways), T2 left out: never healed (repeatable)", func(v string) error { o.cut = append(o.cut, v); return nil })
	fs.Func("pause", "paused (stopped) nodes P@T1-T2 (repeatable)", func(v string) error { o.pause = append(o.pause, v); return nil })
	fs.StringVar(&o.variant, "variant", "", "a deliberately broken control plane, to see the checker catch it: "+strings.Join(controlVariants, ", "))
	fs.StringVar(&o.format, "format", "table", "output: table or json")
	fs.StringVar(&o.traceFile, "trace", "", "write the event stream as JSONL to FILE (one seed only)")
	return fs
}

// controlKind reports whether args ask for `--kind control`.
func controlKind(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		switch strings.TrimLeft(a, "-") {
		case "kind=control":
			return true
		case "kind":
			if i+1 < len(args) && args[i+1] == "control" {
				return true
			}
		}
	}
	return false
}

// controlSimCmd is `allot sim --kind control`.
func controlSimCmd(args []string, stdout, stderr io.Writer) error {
	var o controlOpts
	fs := controlFlags(&o)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "usage: allot sim --kind control [flags]: a control plane under faults, judged by its events")
			fs.PrintDefaults()
			return errHelp
		}
		return badf("%v", err)
	}
	if fs.NArg() > 0 {
		return badf("sim --kind control takes no scenario file, got %q", fs.Args())
	}
	switch {
	case o.nodes < 1:
		return badf("--nodes must be at least 1, not %d", o.nodes)
	case o.seeds < 1:
		return badf("--seeds must be at least 1, not %d", o.seeds)
	case o.horizon <= 0:
		return badf("--horizon must be positive: a control plane never stops by itself")
	case o.format != "table" && o.format != "json":
		return badf("--format %q: want table or json", o.format)
	case o.traceFile != "" && o.seeds > 1:
		return badf("--trace writes one run: not with --seeds")
	}
	delay, err := dist.Parse(o.delay)
	if err != nil {
		return badf("--delay: %v", err)
	}
	faults, err := ctlsim.ParseFaults(o.crash, o.restart, o.cut, o.pause)
	if err != nil {
		return badf("%v", err)
	}
	if o.random && faults.Count() > 0 {
		return badf("--random-faults draws the schedule: not with --crash, --restart, --cut or --pause")
	}
	if err := faults.Validate(o.nodes); err != nil {
		return badf("%v", err)
	}
	build, err := controlPlane(o.variant)
	if err != nil {
		return badf("--variant: %v", err)
	}
	cfg := ctlsim.Config{Nodes: o.nodes, Seed: o.seed, Horizon: proc.Time(o.horizon), Delay: delay,
		Faults: faults, Random: o.random, Build: build}
	if o.seeds > 1 {
		return controlSweep(cfg, o, stdout, stderr)
	}
	var tw *trace.Writer
	var tf *os.File
	if o.traceFile != "" {
		if tf, err = os.Create(o.traceFile); err != nil {
			return badf("--trace: %v", err)
		}
		tw = trace.NewWriter(tf)
		tw.Header(trace.Header{Scenario: controlScenario(o, cfg.Schedule()), Seed: o.seed, Algorithm: controlName(o.variant), Kind: "control", Processes: o.nodes})
		cfg.Sink = tw
	}
	r, err := ctlsim.Run(cfg)
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
		printControl(stdout, o, r)
	}
	if r.Findings > 0 {
		fmt.Fprintf(stderr, "allot: control: %d findings (seed %d), first: %s\n", r.Findings, r.Seed, r.First[0])
		return errFailed
	}
	return nil
}

func controlSweep(cfg ctlsim.Config, o controlOpts, stdout, stderr io.Writer) error {
	seeds := make([]uint64, o.seeds)
	for i := range seeds {
		seeds[i] = o.seed + uint64(i)
	}
	line := newStatusLine(stderr, os.Getenv, plainEvery)
	sum, err := ctlsim.Sweep(cfg, seeds, o.workers, nil, line.seeds("control plane", len(seeds)))
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
		fmt.Fprintf(stdout, "%s of %d nodes, %s, delay %s, horizon %d, seeds %d..%d\n\n", controlName(o.variant), o.nodes, faults,
			cfg.Delay, o.horizon, o.seed, o.seed+uint64(o.seeds)-1)
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "runs\tfaults\tviews/run\tunserved\tlongest recovery\tnot recovered\truns with findings\tfindings\t")
		fmt.Fprintf(tw, "%d\t%d\t%.2f\t%.2f%%\t%d\t%d\t%d\t%d\t\n", sum.Runs, sum.Faults, float64(sum.Views)/float64(sum.Runs),
			100*sum.Unserved, sum.MaxRecovery, sum.NotRecovered, sum.Failed, sum.Findings)
		tw.Flush()
	}
	if sum.FirstFailed != nil {
		f := sum.FirstFailed
		fmt.Fprintf(stderr, "allot: control: %d of %d runs with findings; the first, seed %d: %s\n", sum.Failed, sum.Runs, f.Seed, f.First[0])
		return errFailed
	}
	return nil
}

func printControl(w io.Writer, o controlOpts, r ctlsim.Result) {
	fmt.Fprintf(w, "%s of %d nodes; delay %s, horizon %d; seed %d\n", controlName(o.variant), r.Nodes, o.delay, r.End, r.Seed)
	fmt.Fprintf(w, "faults: %s\n\n", describeFaults(r.Faults))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "node\tserving\tshare\t")
	for p, s := range r.Serving {
		fmt.Fprintf(tw, "%d\t%d\t%.1f%%\t\n", p, s, 100*float64(s)/float64(r.End))
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "epoch\tmembers\tfirst served\tby nodes\t")
	for _, v := range r.Served {
		fmt.Fprintf(tw, "%d\t%v\t%d\t%d\t\n", v.Epoch, v.Members, v.From, v.Nodes)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nviews %d, last epoch %d; no node serving for %d ticks (%.1f%%); messages %d, %d dropped on cut links\n",
		r.Views, r.LastEpoch, r.Unserved, 100*float64(r.Unserved)/float64(r.End), r.Messages, r.Dropped)
	switch {
	case r.Healed < 0:
		fmt.Fprintln(w, "a cut never heals: no recovery measured")
	case r.Recovery < 0:
		fmt.Fprintf(w, "faults healed at tick %d; no majority served one view again by the end\n", r.Healed)
	default:
		fmt.Fprintf(w, "faults healed at tick %d; a majority served one view again %d ticks later\n", r.Healed, r.Recovery)
	}
	fmt.Fprintf(w, "checker findings: %d\n", r.Findings)
	for _, f := range r.First {
		fmt.Fprintf(w, "  %s\n", f)
	}
}

// describeFaults writes a schedule in the flags' notation.
func describeFaults(f ctlsim.Faults) string {
	var s []string
	for _, c := range f.Crashes {
		s = append(s, fmt.Sprintf("crash %d@%d", c.P, c.At))
	}
	for _, r := range f.Restarts {
		s = append(s, fmt.Sprintf("restart %d@%d", r.P, r.At))
	}
	for _, c := range f.Cuts {
		end := ""
		if c.End > 0 {
			end = fmt.Sprint(c.End)
		}
		s = append(s, fmt.Sprintf("cut %d>%d@%d-%s", c.From, c.To, c.Start, end))
	}
	for _, p := range f.Pauses {
		s = append(s, fmt.Sprintf("pause %d@%d-%d", p.P, p.Start, p.End))
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// controlScenario is the trace header's record of the run's settings,
// with the fault schedule it runs (drawn, or as given).
func controlScenario(o controlOpts, f ctlsim.Faults) any {
	return map[string]any{"kind": "control", "nodes": o.nodes, "delay": o.delay, "horizon": o.horizon,
		"random_faults": o.random, "faults": describeFaults(f), "variant": o.variant}
}

func controlName(variant string) string {
	if variant == "" {
		return "control"
	}
	return "control/" + variant
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// controlVariants are the names --variant takes.
var controlVariants = ctlsim.VariantNames()

// controlPlane is the control plane to run: package control's nodes, or a
// deliberately broken variant of them.
func controlPlane(variant string) (ctlsim.Build, error) { return ctlsim.Plane(variant) }
