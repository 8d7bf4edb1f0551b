package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsMatchTheirCommands is the check itself: every output region of
// README.md and docs/*.md holds exactly what its command prints.
func TestDocsMatchTheirCommands(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := build(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(root, bin, os.Getenv(LongEnv) == "1", false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Regions == 0 {
		t.Fatal("no output region found in README.md and docs/*.md")
	}
	for _, s := range res.Stale {
		t.Error(s)
	}
	if len(res.Stale) > 0 {
		t.Log("regenerate with: go run ./internal/docs -w (and ALLOT_DOCS_LONG=1 for the long regions)")
	}
	for _, s := range res.Skipped {
		t.Logf("not run (set %s=1): %s", LongEnv, s)
	}
	t.Run("catches a stale number", func(t *testing.T) { catchesStale(t, bin) })
	t.Run("rewrites regions run out of order", func(t *testing.T) { rewritesInPlace(t, bin) })
}

// rewritesInPlace: -w puts right two stale regions of one file whose new
// bodies differ in length from the old, the later one long (run first:
// the costliest regions run first). Rewritten in the order they ran,
// the first region's new length moved the second's offsets, and the
// file came out garbled.
func rewritesInPlace(t *testing.T, bin string) {
	dir, cmd, good := sampleRegion(t, bin)
	stale := "```\nstale\n```\n"
	doc := "# t\n\n<!-- output: " + cmd + " -->\n" + stale + "<!-- end output -->\n\nbetween\n\n" +
		"<!-- output, long: " + cmd + " -->\n" + stale + "<!-- end output -->\n\ntail\n"
	readme := filepath.Join(dir, "README.md")
	if err := os.WriteFile(readme, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Check(dir, bin, true, true); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(readme)
	if want := strings.ReplaceAll(doc, stale, good); string(b) != want {
		t.Fatalf("rewritten:\n%s\nwant:\n%s", b, want)
	}
}

// sampleRegion is a temporary directory, a short command and its region's
// body as the check renders it.
func sampleRegion(t *testing.T, bin string) (dir, cmd, body string) {
	t.Helper()
	dir = t.TempDir()
	cmd = "allot sim --algo central --graph ring:5 --requests 50 --seed 2 --timing=false"
	out, err := execute(dir, bin, cmd)
	if err != nil {
		t.Fatal(err)
	}
	return dir, cmd, render(cmd, out)
}

// catchesStale shows the check failing on a doc whose number is off by
// one, and -w putting it right.
func catchesStale(t *testing.T, bin string) {
	dir, cmd, good := sampleRegion(t, bin)
	// Change the first digit of central's row, its served count.
	row := strings.Index(good, "  central ")
	if row < 0 {
		t.Fatalf("no row for central in\n%s", good)
	}
	i := row + strings.IndexAny(good[row:], "0123456789")
	bad := good[:i] + string('0'+(good[i]-'0'+1)%10) + good[i+1:]
	doc := "# t\n\n<!-- output: " + cmd + " -->\n" + bad + "<!-- end output -->\n\ntail\n"
	readme := filepath.Join(dir, "README.md")
	if err := os.WriteFile(readme, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Check(dir, bin, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stale) != 1 || res.Stale[0].Line != 3 {
		t.Fatalf("stale regions %v, want the one of line 3", res.Stale)
	}
	if _, err := Check(dir, bin, false, true); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(readme)
	if want := strings.Replace(doc, bad, good, 1); string(b) != want {
		t.Fatalf("rewritten:\n%s\nwant:\n%s", b, want)
	}
	if res, err := Check(dir, bin, false, false); err != nil || len(res.Stale) != 0 {
		t.Fatalf("after -w: stale %v, err %v", res.Stale, err)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name, text string
		regions    int
		long       bool
		err        string
	}{
		{"none", "# x\n| a | 1 |\n", 0, false, ""},
		{"one", "<!-- output: allot list -->\n```\n$ allot list\n```\n<!-- end output -->\n", 1, false, ""},
		{"long", "<!-- output, long: allot repro pool -->\n<!-- end output -->\n", 1, true, ""},
		{"unclosed", "<!-- output: allot list -->\nbody\n", 0, false, "not closed"},
		{"nested", "<!-- output: allot list -->\n<!-- output: allot list -->\n", 0, false, "opened inside"},
		{"stray end", "<!-- end output -->\n", 0, false, "without an output region"},
		{"not allot", "<!-- output: rm -rf x -->\n<!-- end output -->\n", 0, false, "must start with allot"},
		{"comment split", "<!-- output: allot sim\n-->\n<!-- end output -->\n", 0, false, "same line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs, err := parse("f.md", c.text)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != c.regions {
				t.Fatalf("%d regions, want %d", len(rs), c.regions)
			}
			if c.regions > 0 && rs[0].long != c.long {
				t.Fatalf("long %v, want %v", rs[0].long, c.long)
			}
		})
	}
}
