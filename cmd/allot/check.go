package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/trace"
)

const checkUsage = `usage: allot check [--kind K] [--units R] [--budget M --waste W] TRACE

checks a JSONL trace (allot sim --trace, or any program that writes the
format) from its events alone, with the checkers allot runs live:
exclusive: no two overlapping resource sets in critical sections; pool: one
holder per unit, at most R units, moves that say where each unit is; quota:
at most M permits, a reject only once M−W are issued. The header line, when
the trace has one, gives the kind and R, M, W; flags override it. Prints the
verdict; exit 0 when no violation, 1 when there is one, 2 on bad input.`

// checkCmd is allot check.
func checkCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("allot check", flag.ContinueOnError)
	kind := fs.String("kind", "", "exclusive, pool or quota (default: the trace header's)")
	units := fs.Int("units", 0, "pool: the number of units R (default: the header's)")
	budget := fs.Int("budget", 0, "quota: the budget M (default: the header's)")
	waste := fs.Int("waste", -1, "quota: the waste W (default: the header's)")
	// The trace may come before or after the flags.
	var files []string
	fs.SetOutput(io.Discard)
	for {
		if err := fs.Parse(args); err == flag.ErrHelp {
			fmt.Fprintln(stdout, checkUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return errHelp
		} else if err != nil {
			return badf("%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		files, args = append(files, fs.Arg(0)), fs.Args()[1:]
	}
	if len(files) != 1 {
		return badf("check takes one trace file, got %d (allot check -h)", len(files))
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return badf("%v", err)
	}
	h, err := readHeader(data)
	if err != nil {
		return badf("%s: %v", files[0], err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["kind"] {
		h.Kind = *kind
	}
	if set["units"] {
		h.Scenario.Units = *units
	}
	if set["budget"] {
		h.Scenario.Budget = *budget
	}
	if set["waste"] {
		h.Scenario.Waste = *waste
	}
	if h.Kind == "" {
		return badf("%s has no header: say --kind", files[0])
	}
	k, err := algo.ParseKind(h.Kind)
	if err != nil {
		return badf("--kind: %v", err)
	}
	var (
		report *check.Report
		sink   proc.Sink
		finish func()
	)
	switch k {
	case algo.Pool:
		if h.Scenario.Units < 1 {
			return badf("a pool trace needs the number of units: --units R")
		}
		c := &check.Pool{Units: h.Scenario.Units}
		report, sink = &c.Report, c
	case algo.Quota:
		if h.Scenario.Budget < 1 || h.Scenario.Waste < 0 {
			return badf("a quota trace needs the budget and the waste: --budget M --waste W")
		}
		c := &check.Quota{Budget: h.Scenario.Budget, Waste: h.Scenario.Waste}
		report, sink, finish = &c.Report, c, c.Finish
	default:
		c := &check.Exclusion{}
		report, sink = &c.Report, c
	}
	var waits check.Waits
	var count counter
	if err := trace.Read(bytes.NewReader(data), proc.Sinks{sink, &waits, &count}); err != nil {
		return badf("%s: %v", files[0], err)
	}
	if finish != nil {
		finish()
	}
	fmt.Fprintf(stdout, "%s: %s trace, %d events, %d served, %d requests open at the end, %d violations\n",
		files[0], k, count.events, count.served, waits.Open(), report.Violations)
	for _, v := range report.First {
		fmt.Fprintf(stdout, "  %s\n", v)
	}
	if report.Violations > len(report.First) {
		fmt.Fprintf(stdout, "  … and %d more\n", report.Violations-len(report.First))
	}
	if !report.OK() {
		return errFailed
	}
	return nil
}

// header is what allot check reads of a trace's header line.
type header struct {
	Kind     string `json:"kind"`
	Scenario struct {
		Units  int `json:"units"`
		Budget int `json:"budget"`
		Waste  int `json:"waste"`
	} `json:"scenario"`
}

// readHeader parses the first line of data when it is a header; a trace
// without one gives the zero header.
func readHeader(data []byte) (header, error) {
	var h header
	line, _, _ := bufio.NewReader(bytes.NewReader(data)).ReadLine()
	var ev struct {
		Ev string `json:"ev"`
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return h, errors.New("empty trace")
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		return h, fmt.Errorf("trace line 1: %w", err)
	}
	if ev.Ev != "header" {
		return h, nil
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return h, fmt.Errorf("header: %w", err)
	}
	return h, nil
}

// counter counts the events and the requests served.
type counter struct{ events, served int }

func (c *counter) Event(e proc.Event) {
	c.events++
	if e.Served() {
		c.served++
	}
}
