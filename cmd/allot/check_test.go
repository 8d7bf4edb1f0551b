package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// allot check passes the traces allot writes, of every kind, and fails a
// trace tampered with: a unit granted twice, a critical section overlapping
// another, a permit over the budget.
func TestCheckTraces(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		sim    []string
		tamper func(lines []string) []string
		want   string
	}{
		{"pool", []string{"--kind", "pool", "--algo", "pool", "--graph", "tree:7:2", "--units", "2", "--requests", "200"},
			func(ls []string) []string { return dupe(ls, `"ev":"grant"`, 3) }, "while p"},
		{"exclusive", []string{"--algo", "hygienic", "--graph", "ring:6", "--requests", "200"},
			func(ls []string) []string { return dupe(ls, `"ev":"enter"`, 3) }, "holds resource"},
		{"quota", []string{"--kind", "quota", "--algo", "central-counter", "--graph", "line:8", "--budget", "50", "--waste", "10", "--requests", "60"},
			func(ls []string) []string { return dupe(ls, `"ev":"permit"`, 3) }, "answers no request"},
	} {
		path := filepath.Join(dir, c.name+".jsonl")
		if _, errs, code := allot(t, append([]string{"sim", "--seed", "3", "--trace", path}, c.sim...)...); code != 0 {
			t.Fatalf("%s: sim exit %d: %s", c.name, code, errs)
		}
		out, errs, code := allot(t, "check", path)
		if code != 0 || !strings.Contains(out, "0 violations") {
			t.Errorf("%s: check of allot's own trace: exit %d, %q %q", c.name, code, out, errs)
		}
		b, _ := os.ReadFile(path)
		bad := filepath.Join(dir, c.name+"-bad.jsonl")
		os.WriteFile(bad, []byte(strings.Join(c.tamper(strings.Split(string(b), "\n")), "\n")), 0o644)
		out, _, code = allot(t, "check", bad)
		if code != 1 || strings.Contains(out, " 0 violations") || !strings.Contains(out, c.want) {
			t.Errorf("%s: tampered trace: exit %d, %q; want exit 1 and a violation", c.name, code, out)
		}
	}
}

// dupe repeats the k-th line that contains s, with the process changed to
// another one: a second grant, entry or permit no algorithm gave.
func dupe(lines []string, s string, k int) []string {
	for i, l := range lines {
		if strings.Contains(l, s) {
			if k--; k == 0 {
				other := strings.Replace(l, `"p":`, `"p":1`, 1)
				return append(lines[:i+1], append([]string{other}, lines[i+1:]...)...)
			}
		}
	}
	return lines
}

func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "g.jsonl")
	os.WriteFile(garbage, []byte("not json\n"), 0o644)
	bare := filepath.Join(dir, "bare.jsonl")
	os.WriteFile(bare, []byte(`{"t":1,"ev":"acquire","p":0}`+"\n"), 0o644)
	for _, args := range [][]string{
		{"check"},
		{"check", filepath.Join(dir, "missing.jsonl")},
		{"check", garbage},
		{"check", bare},                   // no header, no --kind
		{"check", bare, "--kind", "pool"}, // no units
		{"check", bare, "--kind", "bogus"},
		{"check", "a.jsonl", "b.jsonl"},
	} {
		_, errs, code := allot(t, args...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "allot: ") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line", args, code, errs)
		}
	}
}
