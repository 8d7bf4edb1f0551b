package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-dev/allot/experiments/sweep"
)

// N shards merged print the report of one unsharded run, byte for byte, and
// write the same figures: for reproductions built on sweep points
// (bidding, locality) and for one that is not (pool, run whole).
func TestReproShardsMergeToTheUnshardedRun(t *testing.T) {
	names := []string{"bidding", "locality", "pool"}
	if testing.Short() {
		names = names[:1]
	}
	dir := t.TempDir()
	args := append([]string{"repro", "--quick", "--seed", "3", "--format", "json"}, names...)
	// A failed claim (exit 1) is a result like any other: the merge must
	// report it the same way.
	want, wantErrs, wantCode := allot(t, append(args, "--out", filepath.Join(dir, "whole"))...)
	if wantCode > 1 {
		t.Fatalf("unsharded: exit %d: %s", wantCode, wantErrs)
	}
	for _, n := range []int{1, 3} {
		sd := filepath.Join(dir, fmt.Sprintf("shards%d", n))
		for i := 0; i < n; i++ {
			if _, errs, code := allot(t, append(args, "--shard", fmt.Sprintf("%d/%d", i, n), "--out", sd)...); code != 0 {
				t.Fatalf("shard %d/%d: exit %d: %s", i, n, code, errs)
			}
		}
		fig := filepath.Join(dir, fmt.Sprintf("merged%d", n))
		got, errs, code := allot(t, "repro", "merge", "--format", "json", "--out", fig, sd)
		if code != wantCode || errs != wantErrs {
			t.Fatalf("merge of %d: exit %d, stderr %q; unsharded: exit %d, stderr %q", n, code, errs, wantCode, wantErrs)
		}
		if got != want {
			t.Errorf("%d shards merged differ from the unsharded run:\n%s\nwant\n%s", n, got, want)
		}
		figs, _ := filepath.Glob(filepath.Join(dir, "whole", "*"))
		if len(figs) == 0 {
			t.Fatal("no figures written")
		}
		for _, f := range figs {
			a, _ := os.ReadFile(f)
			b, err := os.ReadFile(filepath.Join(fig, filepath.Base(f)))
			if err != nil || string(a) != string(b) {
				t.Errorf("%d shards: figure %s differs (%v)", n, filepath.Base(f), err)
			}
		}
	}
	// A missing shard, a shard twice, a shard of another run: one line, exit 2.
	sd := filepath.Join(dir, "shards3")
	files, _ := filepath.Glob(filepath.Join(sd, "*.json"))
	other := filepath.Join(dir, "other")
	if _, errs, code := allot(t, "repro", "bidding", "--quick", "--seed", "4", "--shard", "0/3", "--out", other); code != 0 {
		t.Fatalf("other run: %s", errs)
	}
	otherFiles, _ := filepath.Glob(filepath.Join(other, "*.json"))
	for _, bad := range [][]string{files[:2], append(files, files[0]), append(files[1:], otherFiles...), {sd + "/nothing"}, {}} {
		_, errs, code := allot(t, append([]string{"repro", "merge"}, bad...)...)
		if code != 2 || !strings.HasPrefix(errs, "allot: ") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("merge %v: exit %d, stderr %q", bad, code, errs)
		}
	}
}

func TestShardFromSchedulers(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		flag string
		n    int
		env  func(string) string
		want sweep.Shard
		bad  bool
	}{
		{"", 0, env(), sweep.Shard{}, false},
		{"2/5", 0, env("JOB_COMPLETION_INDEX", "1"), sweep.Shard{I: 2, N: 5}, false},
		{"", 4, env("JOB_COMPLETION_INDEX", "3"), sweep.Shard{I: 3, N: 4}, false},
		{"", 0, env("ALLOT_SHARDS", "4", "JOB_COMPLETION_INDEX", "0"), sweep.Shard{I: 0, N: 4}, false},
		{"", 0, env("SLURM_ARRAY_TASK_COUNT", "8", "SLURM_ARRAY_TASK_ID", "7"), sweep.Shard{I: 7, N: 8}, false},
		{"", 0, env("JOB_COMPLETION_INDEX", "3"), sweep.Shard{}, false}, // no count: not sharded
		{"", 4, env(), sweep.Shard{}, true},
		{"", 4, env("SLURM_ARRAY_TASK_ID", "4"), sweep.Shard{}, true},
		{"5/5", 0, env(), sweep.Shard{}, true},
		{"1", 0, env(), sweep.Shard{}, true},
		{"", 0, env("ALLOT_SHARDS", "x"), sweep.Shard{}, true},
	} {
		got, err := shardOf(c.flag, c.n, c.env)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("shardOf(%q, %d): %v, %v", c.flag, c.n, got, err)
		}
	}
}
