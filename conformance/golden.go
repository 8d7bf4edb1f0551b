package conformance

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/trace"

	"github.com/cockroachdb/datadriven"
)

// Golden runs the datadriven script at path against algorithm a. Each
// directive
//
//	run graph=ring:3 delay=const:1 think=const:0 cs=const:2 per-user=1 seed=1 [crash=1@5] [fifo]
//
// runs one small scenario (graph may also be dyn:U:R:K1:K2[:fixed]; with
// units=R it is the communication graph of a pool of R units) to
// quiescence and prints its whole trace, message events included, then a
// summary line. `go test -rewrite` regenerates the expected output.
func Golden(t *testing.T, a algo.Algorithm, path string) {
	datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
		if td.Cmd != "run" {
			td.Fatalf(t, "unknown directive %q", td.Cmd)
		}
		args := map[string]string{"delay": "const:1", "think": "const:0", "cs": "const:2", "per-user": "1", "seed": "1"}
		for _, ca := range td.CmdArgs {
			v := ""
			if len(ca.Vals) > 0 {
				v = ca.Vals[0]
			}
			args[ca.Key] = v
		}
		seed, err := strconv.ParseUint(args["seed"], 10, 64)
		if err != nil {
			td.Fatalf(t, "seed: %v", err)
		}
		pb, next, err := problem(args["graph"], rand.New(rand.NewPCG(seed, 99)))
		if err != nil {
			td.Fatalf(t, "%v", err)
		}
		if u, ok := args["units"]; ok { // a pool of R units on the graph
			if pb.Units, err = strconv.Atoi(u); err != nil {
				td.Fatalf(t, "units: %v", err)
			}
			pb = &algo.Problem{Kind: algo.Pool, Users: pb.Users, Graph: pb.Conflict, Units: pb.Units}
		}
		_, fifo := args["fifo"]
		pb.FIFO = fifo
		cfg := sim.Config{Seed: seed, TraceMessages: true, Net: sim.Network{FIFO: fifo}, Work: app.Workload{Next: next}}
		for key, to := range map[string]*dist.Dist{"delay": &cfg.Net.Delay, "think": &cfg.Work.Think, "cs": &cfg.Work.CS} { // any order: each key on its own
			if *to, err = dist.Parse(args[key]); err != nil {
				td.Fatalf(t, "%s: %v", key, err)
			}
		}
		if cfg.Work.PerUser, err = strconv.Atoi(args["per-user"]); err != nil {
			td.Fatalf(t, "per-user: %v", err)
		}
		if c, ok := args["crash"]; ok {
			var cr sim.Crash
			if _, err := fmt.Sscanf(c, "%d@%d", &cr.P, &cr.At); err != nil {
				td.Fatalf(t, "crash: %v", err)
			}
			cfg.Net.Crashes = []sim.Crash{cr}
		}
		procs, err := a.Build(pb)
		if err != nil {
			td.Fatalf(t, "%v", err)
		}
		var buf bytes.Buffer
		w := trace.NewWriter(&buf)
		var excl check.Exclusion
		pool := check.Pool{Units: pb.Units}
		cfg.Sink = proc.Sinks{w, &excl, &pool}
		res, err := sim.Run(cfg, pb, procs)
		if err != nil {
			td.Fatalf(t, "%v", err)
		}
		w.Flush()
		fmt.Fprintf(&buf, "served=%d messages=%d end=%d quiescent=%v violations=%d\n", res.Served, res.Messages, res.End, res.Quiescent, excl.Violations+pool.Violations)
		return strings.TrimRight(buf.String(), "\n") + "\n"
	})
}
