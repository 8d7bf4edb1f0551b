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

	"github.com/allot-dev/allot/client"
)

// TestHolders: allot holders says who holds a lock (the session of an
// allot lock process, with the token its command got) and a semaphore's
// units, as text and as JSON, and that nobody holds a free name; its bad
// input is one allot: line and exit 2.
func TestHolders(t *testing.T) {
	addrs, _ := lockCluster(t, 3)
	var out, errs bytes.Buffer
	f := filepath.Join(t.TempDir(), "token")
	holder := lockProc(t, &out, &errs, "--addr", addrs, "held", "other", "--", "sh", "-c", `echo $ALLOT_TOKEN > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 30`, "sh", f)
	defer waitProc(t, holder, 20*time.Second)
	defer holder.Process.Signal(os.Interrupt)
	waitFor(t, 15*time.Second, "allot lock's command", func() bool { return fileHas(f, ".") })
	b, _ := os.ReadFile(f)
	tok := strings.TrimSpace(string(b))

	got, stderr, code := allot(t, "holders", "--addr", addrs, "held")
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "SESSION") || !strings.Contains(lines[1], " "+tok+" ") || !strings.HasSuffix(lines[1], "held,other") {
		t.Errorf("allot holders held: exit %d, stdout %q, stderr %q; want the holder with token %s and both names", code, got, stderr, tok)
	}
	got, stderr, code = allot(t, "holders", "--format", "json", "--addr", addrs, "other")
	var js struct {
		Name, Kind string
		Holders    []holderJSON
	}
	if err := json.Unmarshal([]byte(got), &js); err != nil || code != 0 || js.Name != "other" || js.Kind != "lock" || len(js.Holders) != 1 ||
		js.Holders[0].Token != tok || js.Holders[0].Session == 0 || js.Holders[0].Node == "" || js.Holders[0].Unit != nil {
		t.Errorf("allot holders --format json other: exit %d (%v), stdout %q, stderr %q; want one holder with token %s", code, err, got, stderr, tok)
	}
	if got, stderr, code := allot(t, "holders", "--addr", addrs, "free"); code != 0 || got != "nobody holds lock free\n" {
		t.Errorf("allot holders free: exit %d, stdout %q, stderr %q", code, got, stderr)
	}

	// Two units of a semaphore, held by a session of this test.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, strings.Split(addrs, ",")...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	m := s.Semaphore("held", 3) // a semaphore's names are apart from the locks'
	for range 2 {
		if err := m.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got, stderr, code = allot(t, "holders", "--addr", addrs, "--semaphore", "--format", "json", "held")
	js.Holders = nil
	if err := json.Unmarshal([]byte(got), &js); err != nil || code != 0 || js.Kind != "semaphore" || len(js.Holders) != 2 ||
		js.Holders[0].Session != s.ID() || js.Holders[0].Unit == nil || js.Holders[1].Unit == nil || *js.Holders[0].Unit == *js.Holders[1].Unit {
		t.Errorf("allot holders --semaphore held: exit %d (%v), stdout %q, stderr %q; want two units of session %d", code, err, got, stderr, s.ID())
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--addr", addrs}, "want one NAME, got 0"},
		{[]string{"--addr", addrs, "a", "b"}, "want one NAME, got 2"},
		{[]string{"a"}, "--addr: the cluster's node addresses are needed"},
		{[]string{"--addr", addrs, "--format", "xml", "a"}, `--format "xml"`},
		{[]string{"--addr", addrs, "--semaphore", "a/b"}, "'/' and '@' are not allowed"},
		{[]string{"--addr", addrs, ""}, "empty name"},
	} {
		out, errs, code := allot(t, append([]string{"holders"}, c.args...)...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "allot: holders: ") || !strings.Contains(errs, c.want) {
			t.Errorf("holders %q: exit %d, stdout %q, stderr %q (want one allot: line with %q, exit 2)", c.args, code, out, errs, c.want)
		}
	}
}
