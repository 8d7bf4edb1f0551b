package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTimingOff: --timing=false leaves out exactly what varies from run to
// run, so that two runs of the same input print the same bytes (what the
// docs check relies on).
func TestTimingOff(t *testing.T) {
	for _, c := range []struct {
		args   []string
		timing string // printed only with timing on
	}{
		{[]string{"sim", "--graph", "ring:6", "--requests", "200"}, "events/s"},
		{[]string{"sim", "--graph", "ring:6", "--requests", "200", "--crash", "2@50"}, "events/s"},
		{[]string{"explore", "--algo", "hygienic", "--graph", "ring:3"}, "states/s"},
	} {
		on, _, code := allot(t, c.args...)
		if code != 0 || !strings.Contains(on, c.timing) {
			t.Fatalf("%v: exit %d, want 0 and %q in\n%s", c.args, code, c.timing, on)
		}
		off := append(c.args[:len(c.args):len(c.args)], "--timing=false")
		a, _, _ := allot(t, off...)
		b, _, _ := allot(t, off...)
		if strings.Contains(a, c.timing) || a != b {
			t.Errorf("%v: %q left in, or two runs differ:\n%s\n%s", off, c.timing, a, b)
		}
	}
	out, _, _ := allot(t, "sim", "--graph", "ring:6", "--requests", "200", "--format", "json", "--timing=false")
	var r struct {
		Runs []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		if run["wall_seconds"] != 0.0 || run["events_per_second"] != 0.0 {
			t.Errorf("%v: timing fields %v, %v, want 0", run["algorithm"], run["wall_seconds"], run["events_per_second"])
		}
	}
}
