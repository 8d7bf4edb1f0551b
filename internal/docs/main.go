// Command docs keeps the numbers in allot's Markdown true: every table of
// numbers in README.md and docs/*.md sits in an output region that names
// the command printing it, and the region's body is exactly what that
// command prints.
//
//	<!-- output: allot sim --graph ring:30 --requests 3000 --seed 1 --timing=false -->
//	```
//	$ allot sim --graph ring:30 --requests 3000 --seed 1 --timing=false
//	...what it prints, stdout and stderr as a terminal shows them...
//	```
//	<!-- end output -->
//
// The test of this package builds allot once, runs every region's command
// from the repository root and fails on a region whose body differs, so a
// change that moves a documented number fails CI until the docs are
// regenerated:
//
//	go run ./internal/docs -w    # or: go generate ./internal/docs
//
// rewrites every region from its command (without -w it only checks, and
// exits 1 on a stale region). Commands must be deterministic: fixed seeds,
// and `--timing=false` on `allot sim` so that the events/s column is left
// out. Output that only a long run gives goes in a region opened with
// `<!-- output, long: ... -->`: it is checked (and rewritten) only when
// ALLOT_DOCS_LONG=1 is set, so that the everyday check stays within
// seconds. A command is split at spaces (no shell, no quoting) and must
// start with `allot`; exit status 1 (a failed claim) is part of what is
// documented, any other failure is an error.
package main

//go:generate go run . -w

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// LongEnv is the variable that turns on the check of long regions.
const LongEnv = "ALLOT_DOCS_LONG"

const (
	openMark     = "<!-- output: "
	openLongMark = "<!-- output, long: "
	closeMark    = "<!-- end output -->"
	commentEnd   = " -->"
)

// region is one output region of a Markdown file.
type region struct {
	file       string // relative to the repository root
	line       int    // of the opening comment, from 1
	cmd        string
	long       bool
	start, end int // byte offsets of the body: after the opening line, before the closing one
	body       string
}

// files lists the Markdown files whose regions are kept: the README and
// docs/*.md.
func files(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	out := []string{"README.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			return nil, err
		}
		out = append(out, rel)
	}
	return out, nil
}

// parse finds the output regions of one file's text.
func parse(file, text string) ([]region, error) {
	var rs []region
	var open *region
	off := 0
	for i, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(trimmed, openMark) || strings.HasPrefix(trimmed, openLongMark):
			if open != nil {
				return nil, fmt.Errorf("%s:%d: output region opened inside the one of line %d", file, i+1, open.line)
			}
			long := strings.HasPrefix(trimmed, openLongMark)
			cmd := strings.TrimPrefix(strings.TrimPrefix(trimmed, openMark), openLongMark)
			if !strings.HasSuffix(cmd, commentEnd) {
				return nil, fmt.Errorf("%s:%d: output comment must end with %q on the same line", file, i+1, commentEnd)
			}
			cmd = strings.TrimSpace(strings.TrimSuffix(cmd, commentEnd))
			if f := strings.Fields(cmd); len(f) == 0 || f[0] != "allot" {
				return nil, fmt.Errorf("%s:%d: output command %q must start with allot", file, i+1, cmd)
			}
			open = &region{file: file, line: i + 1, cmd: cmd, long: long, start: off + len(line)}
		case trimmed == closeMark:
			if open == nil {
				return nil, fmt.Errorf("%s:%d: %s without an output region", file, i+1, closeMark)
			}
			open.end = off
			open.body = text[open.start:open.end]
			rs = append(rs, *open)
			open = nil
		}
		off += len(line)
	}
	if open != nil {
		return nil, fmt.Errorf("%s:%d: output region not closed with %s", file, open.line, closeMark)
	}
	return rs, nil
}

// render is a region's body for a command and what it printed.
func render(cmd, out string) string {
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return "```\n$ " + cmd + "\n" + out + "```\n"
}

// build compiles allot into dir and returns the binary's path.
func build(root, dir string) (string, error) {
	bin := filepath.Join(dir, "allot")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	c := exec.Command("go", "build", "-o", bin, "./cmd/allot")
	c.Dir = root
	if out, err := c.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/allot: %v\n%s", err, out)
	}
	return bin, nil
}

// execute runs one command from the repository root and returns what it
// printed on stdout and stderr together, in the order printed.
func execute(root, bin, cmd string) (string, error) {
	args := strings.Fields(cmd)[1:]
	c := exec.Command(bin, args...)
	c.Dir = root
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out // one pipe: the order a terminal shows
	// No progress lines: a run slowed by a busy machine past their
	// interval would print one.
	c.Env = append(os.Environ(), "ALLOT_PROGRESS=off")
	err := c.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		err = nil // a failed claim or a safety violation is documented output
	}
	if err != nil {
		return "", fmt.Errorf("%s: %v\n%s", cmd, err, out.String())
	}
	return out.String(), nil
}

// Stale is a region whose body is not what its command prints.
type Stale struct {
	File string
	Line int
	Cmd  string
	Want string // what the command prints, rendered
	Got  string // the body in the file
}

func (s Stale) String() string {
	return fmt.Sprintf("%s:%d: stale output of `%s`\n%s", s.File, s.Line, s.Cmd, firstDiff(s.Got, s.Want))
}

// firstDiff shows the first line where the documented body and the fresh
// output differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("  body line %d\n    doc:     %q\n    command: %q", i+1, gl, wl)
		}
	}
	return "  (same lines)"
}

// Result is what a check found.
type Result struct {
	Regions, Run int     // regions found, regions whose command ran
	Stale        []Stale // regions whose body differs
	Skipped      []string
}

// Check runs the command of every region of the Markdown files under
// root (the long ones only when long is set) with the allot binary bin
// (built from root when empty) and compares; with write, it also
// rewrites stale regions.
func Check(root, bin string, long, write bool) (Result, error) {
	var res Result
	names, err := files(root)
	if err != nil {
		return res, err
	}
	texts := map[string]string{}
	var all []region
	for _, f := range names {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return res, err
		}
		texts[f] = string(b)
		rs, err := parse(f, string(b))
		if err != nil {
			return res, err
		}
		all = append(all, rs...)
	}
	res.Regions = len(all)
	var todo []int
	for i, r := range all {
		if r.long && !long {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s:%d: %s", r.file, r.line, r.cmd))
			continue
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 {
		return res, nil
	}
	if bin == "" {
		dir, err := os.MkdirTemp("", "allot-docs")
		if err != nil {
			return res, err
		}
		defer os.RemoveAll(dir)
		if bin, err = build(root, dir); err != nil {
			return res, err
		}
	}
	// Each command runs alone on one core at most; commands run side by
	// side up to the machine's cores, the costliest first (the long
	// ones, and of those the explorer's searches, minutes each): started
	// last, one of them would run on alone while the other cores idle.
	run := slices.Clone(todo)
	slices.SortStableFunc(run, func(a, b int) int { return cost(all[b]) - cost(all[a]) })
	want := make([]string, len(all))
	errs := make([]error, len(all))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			for i := range jobs {
				out, err := execute(root, bin, all[i].cmd)
				want[i], errs[i] = render(all[i].cmd, out), err
			}
		})
	}
	for _, i := range run {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	res.Run = len(todo)
	// Rewrite from the last region of a file back, so that offsets hold:
	// todo is in file order, whatever order the regions ran in.
	for k := len(todo) - 1; k >= 0; k-- {
		i := todo[k]
		r := all[i]
		if r.body == want[i] {
			continue
		}
		res.Stale = append([]Stale{{File: r.file, Line: r.line, Cmd: r.cmd, Want: want[i], Got: r.body}}, res.Stale...)
		t := texts[r.file]
		texts[r.file] = t[:r.start] + want[i] + t[r.end:]
	}
	if write {
		for _, s := range res.Stale {
			if err := os.WriteFile(filepath.Join(root, s.File), []byte(texts[s.File]), 0o644); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// cost ranks a region's command by how long it runs, roughly: a long
// region's explorer search, then a long region's, then the rest.
func cost(r region) int {
	switch {
	case r.long && strings.HasPrefix(r.cmd, "allot explore"):
		return 2
	case r.long:
		return 1
	}
	return 0
}

// Root is the repository root: the nearest directory upward holding
// go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("docs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	write := fs.Bool("w", false, "rewrite stale regions instead of only reporting them")
	long := fs.Bool("long", os.Getenv(LongEnv) == "1", "also run the long regions (default from "+LongEnv+"=1)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	root, err := Root()
	if err != nil {
		fmt.Fprintln(stderr, "docs:", err)
		return 2
	}
	res, err := Check(root, "", *long, *write)
	if err != nil {
		fmt.Fprintln(stderr, "docs:", err)
		return 2
	}
	for _, s := range res.Stale {
		if *write {
			fmt.Fprintf(stdout, "%s:%d: rewrote the output of `%s`\n", s.File, s.Line, s.Cmd)
		} else {
			fmt.Fprintln(stdout, s)
		}
	}
	fmt.Fprintf(stdout, "%d output regions, %d run, %d stale", res.Regions, res.Run, len(res.Stale))
	if n := len(res.Skipped); n > 0 {
		fmt.Fprintf(stdout, ", %d long not run (set %s=1)", n, LongEnv)
	}
	fmt.Fprintln(stdout)
	if len(res.Stale) > 0 && !*write {
		return 1
	}
	return 0
}
