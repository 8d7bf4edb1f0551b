package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPoolBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--kind", "pool", "--graph", "tree:7:2"}, "is required"},
		{[]string{"sim", "--kind", "pool", "--graph", "tree:7:2", "--units", "0"}, "is required"},
		{[]string{"sim", "--kind", "pool", "--graph", "tree:7:2", "--units", "-2"}, "positive"},
		{[]string{"sim", "--kind", "pool", "--graph", "tree:7:2", "--units", "7"}, "n > R"},
		{[]string{"sim", "--kind", "pool", "--graph", "tree:7:2", "--units", "70"}, "n > R"},
		{[]string{"sim", "--kind", "exclusive", "--graph", "ring:5", "--units", "2"}, "--units"},
		{[]string{"sim", "--kind", "exclusive", "--algo", "pool", "--graph", "ring:5"}, "solves pool problems"},
		{[]string{"sim", "--algo", "broadcast-pool", "--graph", "ring:5"}, "solves pool problems"},
	} {
		out, errs, code := allot(t, c.args...)
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if code != 2 || out != "" || len(lines) != 1 || !strings.HasPrefix(lines[0], "allot: ") || !strings.Contains(lines[0], c.want) {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 and one line 'allot: ...%s...'", c.args, code, errs, out, c.want)
		}
	}
}

// TestPoolTraces runs the pool algorithms side by side with a trace each
// and checks every trace from the outside: allot's own count of acquires
// and grants (every acquire granted), and the outside checker when it is
// there.
func TestPoolTraces(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	if _, errs, code := allot(t, "sim", "--kind", "pool", "--algo", "pool,central-pool,broadcast-pool", "--graph", "tree:63:2",
		"--units", "5", "--requests", "5000", "--seed", "3", "--trace", tr); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checker := filepath.Join("..", "..", "..", "shared", "tools", "check_trace.py")
	_, errChecker := os.Stat(checker)
	_, errPython := exec.LookPath("python3")
	for _, a := range []string{"pool", "central-pool", "broadcast-pool"} {
		path := filepath.Join(dir, "t."+a+".jsonl")
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int{}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var e struct{ Ev string }
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatal(err)
			}
			counts[e.Ev]++
		}
		f.Close()
		if counts["acquire"] < 5000 || counts["grant"] != counts["acquire"] {
			t.Errorf("%s: %d acquires, %d grants", a, counts["acquire"], counts["grant"])
		}
		if errChecker != nil || errPython != nil {
			continue
		}
		out, err := exec.Command("python3", checker, path, "--units", "5", "--min-served", "5000").CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"ok": true`) {
			t.Errorf("%s: outside checker: %v\n%s", a, err, out)
		}
	}
}
