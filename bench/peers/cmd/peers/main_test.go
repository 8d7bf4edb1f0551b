package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-dev/allot/bench/peers/report"
)

func TestBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"-backends", "mongo"},
		{"-backends", "etcd,etcd"},
		{"-runs", "0"},
		{"-dur", "0s"},
		{"-max-ops", "-1"},
		{"-warmup", "-1s"},
		{"-w4-sessions", "0"},
		{"-w4-sessions", "5000"},
		{"-w4-names", "0"},
		{"-nope"},
		{"extra"},
	} {
		var out, errs bytes.Buffer
		code := run(context.Background(), args, &out, &errs)
		if code != 2 || out.Len() != 0 || strings.Count(errs.String(), "\n") != 1 || !strings.HasPrefix(errs.String(), "peers: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want one peers: line and exit 2", args, code, out.String(), errs.String())
		}
	}
}

func TestParse(t *testing.T) {
	o, err := parse([]string{"-backends", "all", "-dur", "1s", "-src", "/r"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.backends) != 10 || o.backends[0] != "baseline" || o.backends[1] != "allot" || o.backends[2] != "allot-near" || o.cfg.Window != time.Second || o.readme != "/r/README.md" {
		t.Errorf("%+v", o)
	}
	// W4's shape is allot bench's by default.
	if o.cfg.W4 != 16 || o.cfg.W4Keys != 1000000 {
		t.Errorf("W4 %d clients of %d keys", o.cfg.W4, o.cfg.W4Keys)
	}
	if o, err := parse([]string{"-w4-sessions", "4", "-w4-names", "100"}, &bytes.Buffer{}); err != nil || o.cfg.W4 != 4 || o.cfg.W4Keys != 100 {
		t.Errorf("-w4-sessions 4 -w4-names 100: %v, W4 %d clients of %d keys", err, o.cfg.W4, o.cfg.W4Keys)
	}
	var help bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &help, &bytes.Buffer{}); code != 0 || !strings.Contains(help.String(), "usage: go run ./cmd/peers") {
		t.Errorf("-h: exit %d, %q", code, help.String())
	}
}

func TestWriteWantsTheRegion(t *testing.T) {
	readme := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(readme, []byte("# no region\n"), 0o644)
	var out, errs bytes.Buffer
	t0 := time.Now()
	code := run(context.Background(), []string{"-w", "-readme", readme, "-backends", "inproc"}, &out, &errs)
	if code != 1 || !strings.Contains(errs.String(), "no single peers table region") || time.Since(t0) > 5*time.Second {
		t.Errorf("exit %d after %v: %s", code, time.Since(t0), errs.String())
	}
}

// TestRun runs the in-process table through the whole program: the
// report, the JSON and the README's region come out of one run.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	os.WriteFile(readme, []byte("# x\n<!-- peers table: go run ./cmd/peers -w -->\nOLD-BODY\n<!-- end peers table -->\nafter\n"), 0o644)
	md, js := filepath.Join(dir, "r.md"), filepath.Join(dir, "r.json")
	var out, errs bytes.Buffer
	code := run(context.Background(), []string{"-backends", "inproc,redis", "-redis-server", "/nonexistent/redis-server",
		"-dur", "200ms", "-warmup", "0s", "-md", md, "-json", js, "-w", "-readme", readme}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs.String(), out.String())
	}
	var doc report.Doc
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Runs) != 1 || len(doc.Runs[0].Workloads) != 4 || len(doc.Skipped) != 1 {
		t.Fatalf("%v: %s", err, b)
	}
	r, _ := os.ReadFile(readme)
	m, _ := os.ReadFile(md)
	if !strings.Contains(string(r), "| in-process ceiling (not a peer) |") || strings.Contains(string(r), "OLD-BODY") || !strings.HasSuffix(string(r), "<!-- end peers table -->\nafter\n") {
		t.Errorf("README:\n%s", r)
	}
	if !strings.Contains(string(m), "Not run: redis: not installed") || !strings.Contains(out.String(), "skipped redis") {
		t.Errorf("the skipped peer is not said:\n%s\n%s", m, out.String())
	}
}
