package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"

	"github.com/allot-dev/allot/algo/all"
	"github.com/allot-dev/allot/experiments"
	"github.com/allot-dev/allot/experiments/study"
	"github.com/allot-dev/allot/experiments/sweep"
	"github.com/allot-dev/allot/report"
)

// shardFormat names the layout of a shard's results file.
const shardFormat = "allot-repro-shard/1"

// shardFile is what `allot repro --shard i/N` writes and `allot repro
// merge` reads: the run's settings, and the results of the shard's points
// by key. A reproduction not built on sweep points cannot be split: shard
// 0 keeps its claims whole.
type shardFile struct {
	Format      string                     `json:"format"`
	Experiments []string                   `json:"experiments"`
	Quick       bool                       `json:"quick"`
	Seed        uint64                     `json:"seed"`
	Shard       string                     `json:"shard"` // "i/N"
	Points      map[string]json.RawMessage `json:"points"`
	Claims      map[string][]study.Claim   `json:"claims,omitempty"`
}

func reproCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "merge" {
		return mergeCmd(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("allot repro", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "table", "output: table or json")
	quick := fs.Bool("quick", false, "run the small configuration (what the tests use)")
	out := fs.String("out", "", "write the SVG figures (a build with -tags figures; with --shard: the shard's results file) to this directory")
	seed := fs.Uint64("seed", 1, "base seed")
	shard := fs.String("shard", "", "run slice `i/N` of the points and write their results to --out (see also --shards)")
	shards := fs.Int("shards", 0, "split into `N` shards, this one's index from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID (N also from ALLOT_SHARDS or SLURM_ARRAY_TASK_COUNT)")
	names, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		fs.SetOutput(stdout)
		fmt.Fprintln(stdout, "usage: allot repro [NAME...] [flags]\n       allot repro merge [--format F] [--out DIR] FILE|DIR...\n\nreproductions:")
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
	sh, err := shardOf(*shard, *shards, os.Getenv)
	if err != nil {
		return badf("%v", err)
	}
	chosen, err := choose(names)
	if err != nil {
		return err
	}
	if sh.N > 0 && *out == "" {
		return badf("--shard: give --out DIR for the shard's results file")
	}
	if sh.N == 0 && *out != "" && !report.CanDraw() {
		return badf("--out: %s", errNoFigures)
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return badf("--out: %v", err)
		}
	}
	before := snapshot(*out)
	bar := newProgress(stderr)
	defer bar.finish()
	if sh.N > 0 {
		return runShard(chosen, sh, *quick, *seed, *out, bar)
	}
	var claims []study.Claim
	for _, e := range chosen {
		opt := study.Options{Quick: *quick, Seed: *seed, OutDir: *out, Progress: bar.of(e.Name),
			Points: &sweep.Points{Progress: bar.stage}}
		cs, err := e.Run(context.Background(), opt)
		if err != nil {
			return fmt.Errorf("repro %s: %w", e.Name, err)
		}
		claims = append(claims, cs...)
	}
	bar.finish()
	return printClaims(claims, *format, *seed, written(*out, before), stdout, stderr)
}

// errNoFigures says how to get a build that draws the figures.
const errNoFigures = "this build of allot draws no figures (it leaves the plotting stack out to build fast); " +
	"build it with -tags figures (go run -tags figures ./cmd/allot repro ... --out DIR)"

// choose finds the named reproductions (all of them when none is named),
// each once, in the order first named.
func choose(names []string) ([]study.Experiment, error) {
	avail := experiments.All()
	if len(avail) == 0 {
		return nil, badf("no reproductions are available yet")
	}
	if len(names) == 0 {
		return avail, nil
	}
	var chosen []study.Experiment
	for _, n := range names {
		if slices.ContainsFunc(chosen, func(e study.Experiment) bool { return e.Name == n }) {
			continue
		}
		i := slices.IndexFunc(avail, func(e study.Experiment) bool { return e.Name == n })
		if i < 0 {
			var have []string
			for _, e := range avail {
				have = append(have, e.Name)
			}
			return nil, badf("unknown reproduction %q (have %s)", n, strings.Join(have, ", "))
		}
		chosen = append(chosen, avail[i])
	}
	return chosen, nil
}

// shardOf reads the shard from --shard i/N, or from --shards N (or
// ALLOT_SHARDS, or Slurm's SLURM_ARRAY_TASK_COUNT) with the index from a
// Kubernetes Indexed Job (JOB_COMPLETION_INDEX) or a Slurm array
// (SLURM_ARRAY_TASK_ID, the array numbered from 0). No shard: N = 0.
func shardOf(flagShard string, flagN int, env func(string) string) (sweep.Shard, error) {
	if flagShard != "" {
		i, n, ok := strings.Cut(flagShard, "/")
		si, err1 := strconv.Atoi(i)
		sn, err2 := strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil || sn < 1 || si < 0 || si >= sn {
			return sweep.Shard{}, fmt.Errorf("--shard %q: want i/N with 0 ≤ i < N", flagShard)
		}
		return sweep.Shard{I: si, N: sn}, nil
	}
	n := flagN
	for _, v := range []string{"ALLOT_SHARDS", "SLURM_ARRAY_TASK_COUNT"} {
		if n == 0 && env(v) != "" {
			var err error
			if n, err = strconv.Atoi(env(v)); err != nil || n < 1 {
				return sweep.Shard{}, fmt.Errorf("%s=%q: want a count of shards", v, env(v))
			}
		}
	}
	if n < 0 {
		return sweep.Shard{}, fmt.Errorf("--shards %d: want a count of shards", n)
	}
	if n == 0 {
		return sweep.Shard{}, nil
	}
	for _, v := range []string{"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"} {
		if s := env(v); s != "" {
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= n {
				return sweep.Shard{}, fmt.Errorf("%s=%q: want an index in 0..%d", v, s, n-1)
			}
			return sweep.Shard{I: i, N: n}, nil
		}
	}
	return sweep.Shard{}, fmt.Errorf("%d shards, but no index: give --shard i/N, or set JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID", n)
}

// runShard runs the shard's points of every chosen reproduction and writes
// their results to dir/NAMES.shard-I-of-N.json.
func runShard(chosen []study.Experiment, sh sweep.Shard, quick bool, seed uint64, dir string, bar *progress) error {
	f := shardFile{Format: shardFormat, Quick: quick, Seed: seed, Shard: sh.String(), Points: map[string]json.RawMessage{}}
	for _, e := range chosen {
		f.Experiments = append(f.Experiments, e.Name)
		pts := &sweep.Points{Shard: sh, Progress: bar.stage}
		opt := study.Options{Quick: quick, Seed: seed, Progress: bar.of(e.Name), Points: pts}
		cs, err := e.Run(context.Background(), opt)
		switch {
		case errors.Is(err, sweep.ErrPartial):
		case err != nil:
			return fmt.Errorf("repro %s: %w", e.Name, err)
		case !pts.Used() && sh.I == 0:
			// Not built on sweep points: shard 0 keeps the claims whole.
			if f.Claims == nil {
				f.Claims = map[string][]study.Claim{}
			}
			f.Claims[e.Name] = cs
		}
		for k, v := range pts.Results() { // any order: into a map
			f.Points[k] = v
		}
	}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%s.shard-%d-of-%d.json", strings.Join(f.Experiments, "+"), sh.I, sh.N)
	return os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644)
}

// mergeCmd joins the shards' files (or every *.json in a directory) into
// the report an unsharded run prints.
func mergeCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("allot repro merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "table", "output: table or json")
	out := fs.String("out", "", "write the SVG figures to this directory (a build with -tags figures)")
	paths, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		fs.SetOutput(stdout)
		fmt.Fprintln(stdout, "usage: allot repro merge [flags] FILE|DIR...\n\nJoins the results files of `allot repro --shard i/N` into the report.\n\nflags:")
		fs.PrintDefaults()
		return errHelp
	}
	if err != nil {
		return badf("%v", err)
	}
	if *format != "table" && *format != "json" {
		return badf("--format %q: want table or json", *format)
	}
	if *out != "" && !report.CanDraw() {
		return badf("--out: %s", errNoFigures)
	}
	files, err := shardPaths(paths)
	if err != nil {
		return badf("%v", err)
	}
	merged, err := readShards(files)
	if err != nil {
		return badf("%v", err)
	}
	chosen, err := choose(merged.Experiments)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return badf("--out: %v", err)
		}
	}
	before := snapshot(*out)
	var claims []study.Claim
	for _, e := range chosen {
		// A reproduction not built on sweep points: shard 0's claims, or,
		// when figures are asked for, a run of its own here (the same
		// seed gives the same claims).
		if cs, ok := merged.Claims[e.Name]; ok && *out == "" {
			claims = append(claims, cs...)
			continue
		}
		opt := study.Options{Quick: merged.Quick, Seed: merged.Seed, OutDir: *out, Points: &sweep.Points{Merged: merged.Points}}
		cs, err := e.Run(context.Background(), opt)
		if err != nil {
			return badf("merge %s: %v", e.Name, err)
		}
		claims = append(claims, cs...)
	}
	return printClaims(claims, *format, merged.Seed, written(*out, before), stdout, stderr)
}

// shardPaths expands directories to the shard files in them.
func shardPaths(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("merge: name the shards' files or their directory")
	}
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("merge: %v", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, "*.shard-*-of-*.json"))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	return files, nil
}

// readShards checks that the files are the N shards of one run, each
// once, and joins their results.
func readShards(files []string) (shardFile, error) {
	var m shardFile
	seen := map[int]string{}
	n := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			return m, fmt.Errorf("merge: %v", err)
		}
		var f shardFile
		if err := json.Unmarshal(b, &f); err != nil || f.Format != shardFormat {
			return m, fmt.Errorf("merge: %s is not a shard's results file (%s)", path, shardFormat)
		}
		sh, err := shardOf(f.Shard, 0, func(string) string { return "" })
		if err != nil {
			return m, fmt.Errorf("merge: %s: %v", path, err)
		}
		if len(seen) == 0 {
			m = shardFile{Format: f.Format, Experiments: f.Experiments, Quick: f.Quick, Seed: f.Seed,
				Points: map[string]json.RawMessage{}, Claims: map[string][]study.Claim{}}
			n = sh.N
		} else if sh.N != n || f.Quick != m.Quick || f.Seed != m.Seed || !slices.Equal(f.Experiments, m.Experiments) {
			return m, fmt.Errorf("merge: %s is a shard of another run (shard %s, seed %d, quick %v, %v; want N=%d, seed %d, quick %v, %v)",
				path, f.Shard, f.Seed, f.Quick, f.Experiments, n, m.Seed, m.Quick, m.Experiments)
		}
		if prev, dup := seen[sh.I]; dup {
			return m, fmt.Errorf("merge: shard %s twice (%s and %s)", f.Shard, prev, path)
		}
		seen[sh.I] = path
		for k, v := range f.Points { // any order: into a map
			if _, dup := m.Points[k]; dup {
				return m, fmt.Errorf("merge: point %s in two shards", k)
			}
			m.Points[k] = v
		}
		for k, v := range f.Claims { // any order: into a map
			m.Claims[k] = v
		}
	}
	if len(seen) == 0 {
		return m, fmt.Errorf("merge: no shard files found")
	}
	var missing []string
	for i := 0; i < n; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return m, fmt.Errorf("merge: shards missing: %s", strings.Join(missing, ", "))
	}
	return m, nil
}

// printClaims prints the report: as JSON, or as a block a claim (its id,
// paper and verdict, then the paper's statement and what was measured,
// wrapped to width) ending in the files written and "N of M claims pass".
func printClaims(claims []study.Claim, format string, seed uint64, files []string, stdout, stderr io.Writer) error {
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		type verdicted struct {
			study.Claim
			Verdict string `json:"verdict"`
		}
		var out []verdicted
		for _, c := range finite(claims) {
			out = append(out, verdicted{c, c.Verdict()})
		}
		if err := enc.Encode(struct {
			Claims []verdicted `json:"claims"`
		}{out}); err != nil {
			return err
		}
	} else {
		writeTable(stdout, claims, files)
	}
	var failed, findings []string
	for _, c := range claims {
		switch c.Verdict() {
		case study.VerdictFail:
			failed = append(failed, c.ID)
		case study.VerdictFinding:
			findings = append(findings, c.ID)
		}
	}
	// What was measured is in the report; the lines name the claims. A
	// finding is a claim that fails too (the exit status says so), but
	// one read as the paper's, not as a fault of the reproduction.
	if len(failed) > 0 {
		fmt.Fprintf(stderr, "allot: %s failed (seed %d): %s\n", count(len(failed), "claim", "claims"), seed, strings.Join(failed, ", "))
	}
	if len(findings) > 0 {
		fmt.Fprintf(stderr, "allot: %s, claims that do not hold as their paper states them (seed %d): %s\n", count(len(findings), "finding", "findings"), seed, strings.Join(findings, ", "))
	}
	if len(failed)+len(findings) > 0 {
		return errFailed
	}
	return nil
}

// count is "claim" for one, "3 claims" for more.
func count(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// width is where the table wraps its text: a terminal's usual width.
const width = 80

func writeTable(w io.Writer, claims []study.Claim, files []string) {
	tally := map[string]int{}
	for i, c := range claims {
		v := c.Verdict()
		tally[v]++
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s  %s  (%s)\n", map[string]string{study.VerdictPass: "pass", study.VerdictFail: "FAIL", study.VerdictFinding: "FINDING"}[v], c.ID, c.Paper)
		wrap(w, "  claim:    ", c.Claim)
		wrap(w, "  measured: ", c.Measured)
		if v == study.VerdictFinding {
			wrap(w, "  finding:  ", c.Finding)
		}
	}
	if len(files) > 0 {
		fmt.Fprintln(w, "\nwrote:")
		for _, f := range files {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	if len(claims) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d of %d claims pass", tally[study.VerdictPass], len(claims))
	if n := tally[study.VerdictFinding]; n > 0 {
		fmt.Fprintf(w, "; %d fail as findings", n)
	}
	if n := tally[study.VerdictFail]; n > 0 {
		fmt.Fprintf(w, "; %d fail", n)
	}
	fmt.Fprintln(w)
}

// wrap writes text after label, broken at spaces so that no line passes
// width (a word longer than the room left stays whole), the lines after
// the first indented as far as the label.
func wrap(w io.Writer, label, text string) {
	indent := strings.Repeat(" ", utf8.RuneCountInString(label))
	line, n := label, utf8.RuneCountInString(label)
	empty := true
	for _, word := range strings.Fields(text) {
		k := utf8.RuneCountInString(word)
		if !empty && n+1+k > width {
			fmt.Fprintln(w, line)
			line, n, empty = indent, len(indent), true
		}
		if !empty {
			line, n = line+" ", n+1
		}
		line, n, empty = line+word, n+k, false
	}
	fmt.Fprintln(w, line)
}

// finite leaves out of the figures any that is not a finite number (JSON
// has no NaN or infinity); the measured text still says it.
func finite(claims []study.Claim) []study.Claim {
	out := slices.Clone(claims)
	for i, c := range out {
		var figs map[string]float64
		for k, v := range c.Figures { // any order: deletes from a copy
			if math.IsNaN(v) || math.IsInf(v, 0) {
				if figs == nil {
					figs = maps.Clone(c.Figures)
				}
				delete(figs, k)
			}
		}
		if figs != nil {
			out[i].Figures = figs
		}
	}
	return out
}

// snapshot records the files in dir and their modification times, so that
// written can tell which ones a run wrote.
func snapshot(dir string) map[string]time.Time {
	seen := map[string]time.Time{}
	if dir == "" {
		return seen
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			seen[e.Name()] = info.ModTime()
		}
	}
	return seen
}

// written lists the files of dir that are new or changed since before,
// by name.
func written(dir string, before map[string]time.Time) []string {
	var files []string
	for name, t := range snapshot(dir) { // any order: sorted below
		if old, ok := before[name]; !ok || !old.Equal(t) {
			files = append(files, filepath.Join(dir, name))
		}
	}
	slices.Sort(files)
	return files
}

// progress draws one bar a stage on stderr when it is a terminal: the
// stage's name, runs done of the runs planned so far (the stopping rule
// adds runs as it goes), and the time left at the current rate. Anything
// else (a file, a pipe, a test's buffer) gets nothing.
type progress struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	name  string
	total int
}

func newProgress(stderr io.Writer) *progress {
	f, ok := stderr.(*os.File)
	if !ok {
		return &progress{}
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return &progress{}
	}
	return &progress{w: f}
}

// stage is called after every finished run of a stage (never
// concurrently).
func (p *progress) stage(name string, done, total int) {
	if p.w == nil {
		return
	}
	if p.bar == nil || name != p.name {
		p.finish()
		p.name, p.total = name, total
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(name), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish())
	}
	if total != p.total {
		p.total = total
		p.bar.ChangeMax(total)
	}
	p.bar.Set(done)
}

// of is the progress of a reproduction that reports without stage names.
func (p *progress) of(name string) func(done, total int) {
	if p.w == nil {
		return nil
	}
	return func(done, total int) { p.stage(name, done, total) }
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
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
	// Not a catalogue entry: an application over one (Lookup builds it).
	fmt.Fprintln(tw, "socialcsp-A\texclusive\tas A\tReif–Spirakis §1.6: Social-CSP's extended output over A (an exclusive algorithm with a granting process per resource)")
	fmt.Fprintln(tw, "\nreproduction\tpaper\t\tsummary")
	for _, e := range experiments.All() {
		fmt.Fprintf(tw, "%s\t%s\t\t%s\n", e.Name, e.Paper, e.Summary)
	}
	return tw.Flush()
}
