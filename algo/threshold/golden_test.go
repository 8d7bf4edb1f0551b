package threshold_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"allot/algo"
	"allot/algo/threshold"
	"allot/graph"
	"allot/proc"
	"allot/sim"
	"allot/trace"
	"allot/workload"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden traces under testdata/")

// TestGolden pins small scripted runs, message events included, to golden
// traces: a change in behaviour shows up as a diff to read. Regenerate
// with go test -run Golden -rewrite after checking the change is intended.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name, spec string
		crash      []sim.Crash
	}{
		{"line3", "line:3", nil},
		{"ring4-crash", "ring:4", []sim.Crash{{P: 3, At: 4}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := graph.Parse(c.spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			pb := algo.DiningProblem(g)
			ps, _ := threshold.Build(pb, nil)
			var buf bytes.Buffer
			tw := trace.NewWriter(&buf)
			_, err = sim.Run(sim.Config{Seed: 1, Delay: workload.Uniform(1, 3), CS: workload.Const(2),
				Think: workload.Uniform(0, 4), PerUser: 2, Horizon: 200, Crashes: c.crash,
				TraceMessages: true, Sink: proc.Sinks{tw}}, pb, ps)
			if err != nil {
				t.Fatal(err)
			}
			if err := tw.Flush(); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", c.name+".jsonl")
			if *rewrite {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -rewrite to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("trace differs from %s; rerun with -rewrite if the change is intended\ngot:\n%s", path, buf.String())
			}
		})
	}
}
