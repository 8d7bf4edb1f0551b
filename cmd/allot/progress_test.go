package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// tty is a stderr that says it is a terminal, so that the progress lines
// are drawn into it.
type tty struct{ bytes.Buffer }

func (*tty) IsTerminal() bool { return true }

// TestSimSaysWhatItDoesOnATerminal: on a terminal, allot sim says from the
// start what it is doing (building the graph, checking each algorithm,
// running each, n of N), so that a large input is never silent (before,
// ring:50000000 --requests 10 and complete:3000 --requests 100 were
// silent for minutes); every line is cleared before the output, and
// stdout is the same bytes as without a terminal.
func TestSimSaysWhatItDoesOnATerminal(t *testing.T) {
	t.Setenv(progressEnv, "") // TestMain turns it off
	args := []string{"sim", "--graph", "complete:40", "--algo", "central,hygienic", "--requests", "2000", "--timing=false"}
	var plainOut, plainErr, out bytes.Buffer
	if code := realMain(args, &plainOut, &plainErr); code != 0 {
		t.Fatalf("exit %d: %s", code, plainErr.String())
	}
	var errs tty
	if code := realMain(args, &out, &errs); code != 0 {
		t.Fatalf("exit %d on a terminal: %s", code, errs.String())
	}
	if out.String() != plainOut.String() {
		t.Errorf("stdout differs on a terminal:\n%s\nwant\n%s", out.String(), plainOut.String())
	}
	lines := strings.Split(errs.String(), "\r")
	want := []string{"allot sim: building the graph complete:40", "allot sim: checking central (1 of 2)",
		"allot sim: checking hygienic (2 of 2)", "central (1 of 2): building its processes", "central (1 of 2): ",
		"hygienic (2 of 2): building its processes", "hygienic (2 of 2): "}
	i := 0
	for _, l := range lines {
		if i < len(want) && strings.HasPrefix(l, want[i]) {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("stderr on a terminal %q: no line %q in its place", errs.String(), want[i])
	}
	if !strings.HasSuffix(errs.String(), "\r\x1b[K") {
		t.Errorf("the last line is not cleared: %q", errs.String())
	}
	if plainErr.Len() != 0 {
		t.Errorf("progress written where stderr is not a terminal: %q", plainErr.String())
	}
}

func noEnv(string) string { return "" }

// TestPlainProgress: a stderr that is not a terminal gets the newest
// state at each tick, one plain line each, prefixed with the command
// where it is a run's, and nothing after close.
func TestPlainProgress(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tick := make(chan time.Time)
	l := plainStatus(w, tick)
	lines := bufio.NewReader(r)
	for _, c := range []struct{ set, want string }{
		{"allot sim: building the graph complete:3000", "allot sim: building the graph complete:3000"},
		{"hygienic (3 of 14): 79/100 served (79%)", "allot sim: hygienic (3 of 14): 79/100 served (79%)"},
	} {
		l.set(c.set)
		tick <- time.Now()
		if got, err := lines.ReadString('\n'); err != nil || got != c.want+"\n" {
			t.Errorf("line %q (%v), want %q", got, err, c.want)
		}
	}
	l.close()
	l.set("after close")
	w.Close()
	if rest, _ := io.ReadAll(lines); len(rest) != 0 {
		t.Errorf("written after close: %q", rest)
	}
}

// TestProgressOff: ALLOT_PROGRESS=off says nothing, on a terminal or not.
func TestProgressOff(t *testing.T) {
	off := func(k string) string { return map[string]string{progressEnv: "off"}[k] }
	var errs tty
	for _, stderr := range []io.Writer{&errs, os.Stderr} {
		l := newStatusLine(stderr, off, time.Millisecond)
		if l.tty != nil || l.plain != nil || l.progress("central", 10) != nil {
			t.Errorf("ALLOT_PROGRESS=off: a status line for %T", stderr)
		}
		l.set("allot sim: building the graph complete:3000")
		l.close()
	}
	if errs.Len() != 0 {
		t.Errorf("ALLOT_PROGRESS=off drew %q", errs.String())
	}
}

// TestPlainProgressWaits: a command shorter than the interval writes
// nothing to a stderr that is not a terminal.
func TestPlainProgressWaits(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	l := newStatusLine(w, noEnv, time.Hour)
	l.set("allot sim: building the graph complete:40")
	l.close()
	w.Close()
	if got, _ := io.ReadAll(r); len(got) != 0 {
		t.Errorf("a short command wrote %q", got)
	}
}

// TestProgressWaitsForTheFirstAnswer: before any answer there is no rate to
// estimate from; the line says so and how long it has waited (hygienic on
// complete:5000 answers nothing for seconds).
func TestProgressWaitsForTheFirstAnswer(t *testing.T) {
	var errs tty
	p := newStatusLine(&errs, noEnv, plainEvery).progress("hygienic", 5000)
	p(0, 5000)
	if got := errs.String(); !strings.Contains(got, "hygienic: waiting for the first answer (0s so far)") {
		t.Errorf("line %q", got)
	}
	p(1, 5000) // within 100 ms of the last: not drawn
	if strings.Contains(errs.String(), "1/5000") {
		t.Errorf("redrawn within 100 ms: %q", errs.String())
	}
}

// TestProgressRateFromTheFirstAnswer: the estimate counts from the first
// answer, not from the start of a run whose first answer took 30 s of its
// 2 minutes (from the start, 101 answers in 32 s made 5000 take 26 min).
func TestProgressRateFromTheFirstAnswer(t *testing.T) {
	var errs bytes.Buffer
	t0 := time.Unix(0, 0)
	now := t0
	p := progressAt(&errs, "hygienic", 5000, func() time.Time { return now })
	p(0, 5000)
	now = t0.Add(30 * time.Second)
	p(1, 5000)
	now = t0.Add(32 * time.Second)
	p(101, 5000)
	if got, want := errs.String(), "hygienic: 101/5000 served (2%), the target in about 1m38s"; !strings.Contains(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
}

// TestGraphTooLargeIsRefusedUpFront: a graph no run can fit in the memory
// a run may have is refused before it is built, in one allot: line with
// exit 2 (ring:50000000 on a 24 GiB machine was built for half a minute,
// then every algorithm found too large). The machine is made small by
// ulimit -v, so that the test is the same anywhere.
func TestGraphTooLargeIsRefusedUpFront(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", `ulimit -v 2000000 && exec "$0" sim --graph ring:2000000 --requests 10`, os.Args[0])
	cmd.Env = append(os.Environ(), "ALLOT_TEST_MAIN=1")
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit: %v, want 2 (stderr %q)", err, errs.String())
	}
	lines := strings.Split(strings.TrimSuffix(errs.String(), "\n"), "\n")
	if want := "allot: --graph ring:2000000: a run of its 2000000 processes and 2000000 edges needs at least 2.0 GiB"; len(lines) != 1 || !strings.HasPrefix(lines[0], want) || out.Len() != 0 {
		t.Errorf("stdout %q, stderr %q: want one line starting %q", out.String(), errs.String(), want)
	}
}

// TestProgressRateIsRecent: answers that come ever faster are estimated
// from the last seconds' rate, not from the slow start (hygienic on
// complete:5000 was told 4 minutes with 10 s left).
func TestProgressRateIsRecent(t *testing.T) {
	var errs bytes.Buffer
	t0 := time.Unix(0, 0)
	now := t0
	p := progressAt(&errs, "hygienic", 5000, func() time.Time { return now })
	p(0, 5000)
	served := 1
	for sec := 1; sec <= 12; sec++ { // 10 answers a second, then 400
		now = t0.Add(time.Duration(sec) * time.Second)
		if sec <= 6 {
			served += 10
		} else {
			served += 400
		}
		p(served, 5000)
	}
	// 2461 served, 2000 of them in the last 5 s: 2539 left take about 6 s.
	if got, want := errs.String(), "hygienic: 2461/5000 served (49%), the target in about 6s"; !strings.HasSuffix(got, want+"\x1b[K") {
		t.Errorf("lines %q, want the last %q", got, want)
	}
}

// TestSweepsSayHowFarTheyAre: the seed sweeps of the control plane and of
// the service say, on a terminal, how many seeds have run (1000 seeds on
// 5 nodes ran for minutes in silence); the line is cleared before the
// table, and stdout is the bytes it is without a terminal.
func TestSweepsSayHowFarTheyAre(t *testing.T) {
	t.Setenv(progressEnv, "") // TestMain turns it off
	for _, kind := range []string{"control", "service"} {
		args := []string{"sim", "--kind", kind, "--nodes", "3", "--random-faults", "--seeds", "6"}
		var plainOut, plainErr, out bytes.Buffer
		if code := realMain(args, &plainOut, &plainErr); code != 0 {
			t.Fatalf("%s: exit %d: %s", kind, code, plainErr.String())
		}
		var errs tty
		if code := realMain(args, &out, &errs); code != 0 {
			t.Fatalf("%s: exit %d on a terminal: %s", kind, code, errs.String())
		}
		name := map[string]string{"control": "control plane", "service": "service"}[kind]
		if got := errs.String(); !strings.Contains(got, "allot sim: "+name+": 6 of 6 seeds run") || !strings.HasSuffix(got, "\r\x1b[K") {
			t.Errorf("%s: stderr on a terminal %q: want the seeds run, then the line cleared", kind, got)
		}
		if plainErr.Len() != 0 || out.String() != plainOut.String() {
			t.Errorf("%s: stderr off a terminal %q; stdout on one differs: %q against %q", kind, plainErr.String(), out.String(), plainOut.String())
		}
	}
}
