package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"allot/algo/all"
	"allot/experiments"
	"allot/experiments/study"
)

func reproCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("allot repro", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "table", "output: table or json")
	quick := fs.Bool("quick", false, "run the small configuration (what the tests use)")
	out := fs.String("out", "", "write the SVG figures to this directory")
	seed := fs.Uint64("seed", 1, "base seed")
	names, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		fs.SetOutput(stdout)
		fmt.Fprintln(stdout, "usage: allot repro [NAME...] [flags]\n\nreproductions:")
		for _, e := range experiments.All() {
			fmt.Fprintf(stdout, "  %-12s %s — %s\n", e.Name, e.Paper, e.Summary)
		}
		fmt.Fprintln(stdout, "\nflags:")
		fs.PrintDefaults()
		return errHelp
	}
	if err != nil {
		return badf("%v", err)
	}
	if *format != "table" && *format != "json" {
		return badf("--format %q: want table or json", *format)
	}
	avail := experiments.All()
	if len(avail) == 0 {
		return badf("no reproductions are available yet")
	}
	var chosen []study.Experiment
	if len(names) == 0 {
		chosen = avail
	}
	for _, n := range names {
		found := false
		for _, e := range avail {
			if e.Name == n {
				chosen, found = append(chosen, e), true
			}
		}
		if !found {
			var have []string
			for _, e := range avail {
				have = append(have, e.Name)
			}
			return badf("unknown reproduction %q (have %s)", n, strings.Join(have, ", "))
		}
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return badf("--out: %v", err)
		}
	}
	var claims []study.Claim
	for _, e := range chosen {
		opt := study.Options{Quick: *quick, Seed: *seed, OutDir: *out, Progress: progressBar(stderr, e.Name)}
		cs, err := e.Run(context.Background(), opt)
		if err != nil {
			return fmt.Errorf("repro %s: %w", e.Name, err)
		}
		claims = append(claims, cs...)
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Claims []study.Claim `json:"claims"`
		}{claims}); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "claim\tpaper\tpass\tmeasured")
		for _, c := range claims {
			fmt.Fprintf(tw, "%s\t%s\t%v\t%s\n", c.ID, c.Paper, c.Pass, c.Measured)
		}
		tw.Flush()
	}
	for _, c := range claims {
		if !c.Pass {
			fmt.Fprintf(stderr, "allot: claim %s failed (seed %d): %s\n", c.ID, *seed, c.Measured)
			return errFailed
		}
	}
	return nil
}

// progressBar draws "name: done/total" on stderr when it is a terminal.
func progressBar(stderr io.Writer, name string) func(done, total int) {
	f, ok := stderr.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return func(done, total int) {
		fmt.Fprintf(f, "\r%s: %d/%d\x1b[K", name, done, total)
		if done == total {
			fmt.Fprint(f, "\r\x1b[K")
		}
	}
}

func listCmd(stdout io.Writer) error {
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "algorithm\tkind\tchannels\tsummary")
	for _, a := range all.List() {
		ch := "unordered"
		if a.NeedsFIFO {
			ch = "FIFO"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Name, a.Kind, ch, a.Summary)
	}
	fmt.Fprintln(tw, "\nreproduction\tpaper\t\tsummary")
	for _, e := range experiments.All() {
		fmt.Fprintf(tw, "%s\t%s\t\t%s\n", e.Name, e.Paper, e.Summary)
	}
	return tw.Flush()
}
