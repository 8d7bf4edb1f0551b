package svcsim

import (
	"fmt"
	"strings"
	"time"

	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/ctlsim"
	"github.com/allot-dev/allot/dataplane"
	"github.com/allot-dev/allot/explore"
	"github.com/allot-dev/allot/proc"
)

// ExploreConfig is an exploration of the data path: every order of
// events the timing allows (package explore's timed search), from the
// first tick every node serves and every client holds a session, with
// crashes and restarts from the disk at any step.
type ExploreConfig struct {
	Nodes, Clients     int
	Seed               uint64
	MinDelay, MaxDelay proc.Time
	Crash, Restart     []proc.ID
	MaxDepth           int
	MaxStates          int
	Timeout            time.Duration
	Variant            string
}

// Explore runs the search, judged by check.Service's safety rules (its
// liveness rules need a run's end: the explorer's paths have none).
func Explore(cfg ExploreConfig) (*explore.TimedResult, error) {
	broken := dataplane.Broken(0)
	if cfg.Variant != "" {
		b, ok := Variants[cfg.Variant]
		if !ok {
			return nil, fmt.Errorf("no service variant %q (want one of %s)", cfg.Variant, strings.Join(VariantNames(), ", "))
		}
		broken = b
	}
	return explore.RunTimed(explore.TimedConfig{
		Build: func() ([]proc.Process, error) { return build(cfg.Nodes, cfg.Clients, broken) },
		Judge: func() (proc.Sink, *check.Report) {
			// No liveness bound is judged: Healed −1 (no heal), no Close.
			c := &check.Service{Nodes: cfg.Nodes, Slack: Lease, Healed: -1, Bound: Bound, Settle: Settle}
			return c, &c.Report
		},
		Seed: cfg.Seed, MinDelay: cfg.MinDelay, MaxDelay: cfg.MaxDelay, Crash: cfg.Crash, Restart: cfg.Restart,
		Unhashed: ctlsim.Unhashed, MaxDepth: cfg.MaxDepth, MaxStates: cfg.MaxStates, Timeout: cfg.Timeout,
		Warmup: func(evs []proc.Event) bool {
			serving, open := map[proc.ID]bool{}, map[proc.ID]bool{}
			for _, e := range evs {
				switch {
				case e.Kind == proc.EvView:
					serving[e.P] = true
				case e.Kind == proc.EvAlive:
					open[e.P] = true
				}
			}
			return len(serving) == cfg.Nodes && len(open) == cfg.Clients
		},
	})
}
