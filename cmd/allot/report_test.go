package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/allot-dev/allot/experiments/study"
)

// The table is a block a claim — verdict, id and paper, then the paper's
// statement and what was measured, wrapped to 80 columns — then the files
// --out wrote and "N of M claims pass".
func TestReproTableReadsOnItsOwn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "figs")
	out, errs, code := allot(t, "repro", "bidding", "--quick", "--out", dir)
	if code > 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		if utf8.RuneCountInString(l) > width && strings.Contains(strings.TrimSpace(l), " ") {
			t.Errorf("line of %d columns: %q", utf8.RuneCountInString(l), l)
		}
	}
	head := regexp.MustCompile(`^(pass|FAIL|FINDING)  (\S+)  \((.+)\)$`)
	blocks, passed := 0, 0
	for i, l := range lines {
		m := head.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		blocks++
		if m[1] == "pass" {
			passed++
		}
		if i+2 >= len(lines) || !strings.HasPrefix(lines[i+1], "  claim:    ") || !strings.Contains(out[strings.Index(out, l):], "  measured: ") {
			t.Errorf("block %q: no claim and measured lines after it", l)
		}
	}
	if blocks == 0 {
		t.Fatalf("no claim blocks in\n%s", out)
	}
	if want := fmt.Sprintf("%d of %d claims pass", passed, blocks); !strings.HasPrefix(lines[len(lines)-1], want) {
		t.Errorf("last line %q, want %q", lines[len(lines)-1], want)
	}
	figs, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(figs) == 0 {
		t.Fatal("no figures written")
	}
	i := slices.Index(lines, "wrote:")
	if i < 0 {
		t.Fatalf("no list of the files written in\n%s", out)
	}
	var listed []string
	for _, l := range lines[i+1:] {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		listed = append(listed, strings.TrimSpace(l))
	}
	if !slices.Equal(listed, figs) {
		t.Errorf("listed %v, wrote %v", listed, figs)
	}
	// A second run into the same directory rewrites, and lists, them all.
	again, _, _ := allot(t, "repro", "bidding", "--quick", "--out", dir)
	if !strings.Contains(again, "wrote:\n  "+strings.Join(figs, "\n  ")+"\n") {
		t.Errorf("second run lists other files:\n%s", again)
	}
}

// Every claim of every reproduction carries its numbers as JSON fields.
func TestReproJSONHasFiguresForEveryClaim(t *testing.T) {
	out, errs, code := allot(t, "repro", "--quick", "--format", "json")
	if code > 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Claims []map[string]any `json:"claims"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	experiments := map[string]bool{}
	for _, c := range rep.Claims {
		for _, k := range []string{"id", "paper", "claim", "measured", "pass"} {
			if _, ok := c[k]; !ok {
				t.Errorf("claim %v: no %q", c["id"], k)
			}
		}
		experiments[strings.Split(c["id"].(string), "/")[0]] = true
		figs, _ := c["figures"].(map[string]any)
		if len(figs) == 0 {
			t.Errorf("claim %v: no figures (measured: %v)", c["id"], c["measured"])
		}
		for k, v := range figs {
			if _, ok := v.(float64); !ok {
				t.Errorf("claim %v: figure %s = %v, not a number", c["id"], k, v)
			}
		}
	}
	if len(experiments) < 5 {
		t.Errorf("claims of %d reproductions, want every one: %v", len(experiments), experiments)
	}
}

func TestReproRunsRepeatedNamesOnce(t *testing.T) {
	got, err := choose([]string{"pool", "bidding", "pool", "bidding", "pool"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		names = append(names, e.Name)
	}
	if !slices.Equal(names, []string{"pool", "bidding"}) {
		t.Errorf("chose %v, want [pool bidding]", names)
	}
	one, _, _ := allot(t, "repro", "bidding", "--quick", "--format", "json")
	twice, _, _ := allot(t, "repro", "bidding", "bidding", "--quick", "--format", "json")
	if one != twice {
		t.Error("`repro bidding bidding` printed other claims than `repro bidding`")
	}
}

func TestWrapKeepsLinesWithinWidth(t *testing.T) {
	long := strings.Repeat("word ", 40) + strings.Repeat("x", 100) + " tail"
	var b bytes.Buffer
	wrap(&b, "  measured: ", long)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) < 3 {
		t.Fatalf("not wrapped: %q", b.String())
	}
	if strings.Join(strings.Fields(strings.TrimPrefix(b.String(), "  measured: ")), " ") != strings.Join(strings.Fields(long), " ") {
		t.Error("wrapping changed the text")
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, strings.Repeat(" ", 12)) {
			t.Errorf("continuation not indented: %q", l)
		}
		if n := utf8.RuneCountInString(l); n > width && strings.Contains(strings.TrimSpace(l), " ") {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
}

func TestReportWithoutClaimsAndWithNaN(t *testing.T) {
	var b bytes.Buffer
	writeTable(&b, nil, nil)
	if b.String() != "0 of 0 claims pass\n" {
		t.Errorf("empty report %q", b.String())
	}
	claims := []study.Claim{{ID: "x/y", Pass: true, Figures: map[string]float64{"ok": 1, "nan": math.NaN(), "inf": math.Inf(1)}}}
	var o, e bytes.Buffer
	if err := printClaims(claims, "json", 1, nil, &o, &e); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(o.String(), `"ok": 1`) || strings.Contains(o.String(), "nan") || len(claims[0].Figures) != 3 {
		t.Errorf("non-finite figures: %s (claims left %v)", o.String(), claims[0].Figures)
	}
}

// A claim that fails is a finding when it says why the failure is the
// paper's: the table, the JSON and the closing lines keep pass, fail and
// finding apart, and the exit status stays a failure for both.
func TestReproKeepsFindingsApart(t *testing.T) {
	claims := []study.Claim{
		{ID: "p/ok", Paper: "p §1", Claim: "holds", Measured: "1", Pass: true, Finding: "ignored on a pass"},
		{ID: "p/bug", Paper: "p §2", Claim: "holds", Measured: "2"},
		{ID: "p/paper", Paper: "p §3", Claim: "holds", Measured: "3", Finding: "the paper says \"always\"; measured 3 times out of 4"},
	}
	var out, errs bytes.Buffer
	if err := printClaims(claims, "table", 7, nil, &out, &errs); !errors.Is(err, errFailed) {
		t.Errorf("a fail and a finding: err %v, want errFailed", err)
	}
	for _, want := range []string{"pass  p/ok  (p §1)\n", "FAIL  p/bug  (p §2)\n", "FINDING  p/paper  (p §3)\n",
		"  finding:  the paper says \"always\"; measured 3 times out of 4\n", "1 of 3 claims pass; 1 fail as findings; 1 fail\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "ignored on a pass") {
		t.Error("a passing claim's finding printed")
	}
	if want := "allot: claim failed (seed 7): p/bug\nallot: finding, claims that do not hold as their paper states them (seed 7): p/paper\n"; errs.String() != want {
		t.Errorf("stderr %q, want %q", errs.String(), want)
	}
	out.Reset()
	if err := printClaims(claims, "json", 7, nil, &out, io.Discard); !errors.Is(err, errFailed) {
		t.Errorf("json: err %v, want errFailed", err)
	}
	var rep struct {
		Claims []struct{ ID, Verdict string } `json:"claims"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range rep.Claims {
		got = append(got, c.ID+"="+c.Verdict)
	}
	if want := []string{"p/ok=pass", "p/bug=fail", "p/paper=finding"}; !slices.Equal(got, want) {
		t.Errorf("json verdicts %v, want %v", got, want)
	}
}

// The progress line's estimate of the time left: none before a second's
// rate, the rest at the rate so far after.
func TestProgressEstimate(t *testing.T) {
	if got := left(" %s", 500*time.Millisecond, 10, 100); got != "" {
		t.Errorf("before a second: %q", got)
	}
	if got := left(" %s", 10*time.Second, 100, 400); got != " 30s" {
		t.Errorf("100 of 400 in 10 s: %q, want 30s", got)
	}
	if got := left(" %s", 10*time.Second, 0, 400) + left(" %s", 10*time.Second, 400, 400); got != "" {
		t.Errorf("nothing served, or all: %q", got)
	}
	if got := left(" %s", 10*time.Second, 2, 5000); got != "" {
		t.Errorf("2 answers in 10 s: %q, want no estimate from so few", got)
	}
	if got := left(" %s", 2*time.Second, 20, 100); got != "" {
		t.Errorf("20 answers in 2 s: %q, want none before 50, or 10 over five seconds", got)
	}
	if got := left(" %s", 60*time.Second, 10, 100); got != " 9m0s" {
		t.Errorf("10 of 100 in a minute: %q, want 9m0s", got)
	}
}

// TestProgressSlowRunEstimated: a run that answers a few a minute (
// threshold on complete:3000) is estimated from its whole run's rate,
// as no 2.5 s window ever holds 50 answers.
func TestProgressSlowRunEstimated(t *testing.T) {
	var errs bytes.Buffer
	t0 := time.Unix(0, 0)
	now := t0
	p := progressAt(&errs, "threshold", 100, func() time.Time { return now })
	p(0, 3000)
	served := 0
	for sec := 1; sec <= 600; sec++ { // one answer every 10 s, from 10 s on
		now = t0.Add(time.Duration(sec) * time.Second)
		if sec%10 == 0 {
			served++
		}
		p(served, 3000)
	}
	// 59 answers in the 590 s since the first: the 40 to go take 400 s.
	if got, want := errs.String(), "threshold: 60/100 served (60%), the target in about 6m40s"; !strings.HasSuffix(got, want+"\x1b[K") {
		t.Errorf("lines end %q, want %q", got[max(0, len(got)-120):], want)
	}
}
