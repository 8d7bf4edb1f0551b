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
	"github.com/allot-dev/allot/sim"
)

// ExploreConfig is an exploration of the data path: every order of
// events the timing allows (package explore's timed search), from the
// first tick every node serves and every client holds a session, with
// crashes and restarts from the disk at any step.
//
// A view change comes a lease and more after the crash that causes it,
// hundreds of steps: no search reaches it step by step from the crash.
// CrashAt and RestartAt strike at fixed ticks in the warm-up (the
// earliest input each time), and From moves the search's start on to a
// tick: the search then covers every order of events from there, through
// the view change, with a node of Restart back at any step.
type ExploreConfig struct {
	Nodes, Clients     int
	Seed               uint64
	MinDelay, MaxDelay proc.Time
	Crash, Restart     []proc.ID
	CrashAt            []sim.Crash
	RestartAt          []sim.Restart
	From               proc.Time
	MaxDepth           int
	MaxStates          int
	Timeout            time.Duration
	Variant            string
	// Semaphores, Units: as Config's (0: the clients only lock); so are
	// Quotas, Budget and Waste (0: no quotas).
	Semaphores, Units     int
	Quotas, Budget, Waste int
	// TakeMost: as Config's (0: one permit a Take).
	TakeMost int
	// Slots: as Config's (0: Slots); so are MaxSessions and MaxLocks
	// (0: none).
	Slots                 int
	MaxSessions, MaxLocks int
	// Mismatch: as Config's (0: every acquire gives its semaphore's
	// units); so is RefreshEvery (0: no refresh).
	Mismatch     int
	RefreshEvery proc.Time
	// Try: as Config's.
	Try int
}

// Explore runs the search, judged by check.Service: its safety rules,
// and those of its liveness rules an event decides (a session ended past
// its bound, "expired" told to a client counting on its session); the
// bounds that need a run's end (a request never answered, a session
// never ended) are not judged, as a path has none. The result's Marked
// counts the states reached by a path on which, after the warm-up, a
// node served a view ("view"), a node adopted a session ("adopted"), or
// a node held again a grant held before, asked again in a new view
// ("regrant"), or a client was told a permit of a quota ("permit").
func Explore(cfg ExploreConfig) (*explore.TimedResult, error) {
	tc, err := cfg.timed()
	if err != nil {
		return nil, err
	}
	return explore.RunTimed(tc)
}

// Locate is the tick of the first event of kind after the scripted
// faults (at or after the last of them), in the warm-up's schedule (the
// earliest input each time), searched up to tick limit: a From a few
// ticks before it starts the search where that event is still to come.
func (cfg ExploreConfig) Locate(kind proc.EventKind, limit proc.Time) (proc.Time, error) {
	tc, err := cfg.timed()
	if err != nil {
		return 0, err
	}
	var after proc.Time
	for _, c := range cfg.CrashAt {
		after = max(after, c.At)
	}
	for _, r := range cfg.RestartAt {
		after = max(after, r.At)
	}
	found, seen := proc.Time(-1), 0
	tc.WarmupTo, tc.MaxDepth, tc.Marks = 0, 1, nil
	tc.Warmup = func(evs []proc.Event) bool {
		for _, e := range evs[seen:] {
			if e.Kind == kind && e.Time >= after && found < 0 {
				found = e.Time
			}
		}
		seen = len(evs)
		return found >= 0 || len(evs) > 0 && evs[len(evs)-1].Time > limit
	}
	if _, err := explore.RunTimed(tc); err != nil {
		return 0, err
	}
	if found < 0 {
		return 0, fmt.Errorf("no %s event after tick %d by tick %d of the warm-up's schedule", kind, after, limit)
	}
	return found, nil
}

// timed is the timed search of cfg.
func (cfg ExploreConfig) timed() (explore.TimedConfig, error) {
	broken := dataplane.Broken(0)
	if cfg.Variant != "" {
		b, ok := Variants[cfg.Variant]
		if !ok {
			return explore.TimedConfig{}, fmt.Errorf("no service variant %q (want one of %s)", cfg.Variant, strings.Join(VariantNames(), ", "))
		}
		broken = b
	}
	if err := checkSemaphores(cfg.Semaphores, cfg.Units, cfg.Variant); err != nil {
		return explore.TimedConfig{}, err
	}
	if err := checkQuotas(cfg.Quotas, cfg.Budget, cfg.Waste, cfg.Variant); err != nil {
		return explore.TimedConfig{}, err
	}
	if err := checkTakes(cfg.TakeMost, cfg.Quotas, cfg.Budget, cfg.Variant); err != nil {
		return explore.TimedConfig{}, err
	}
	if err := checkSlots(cfg.Slots); err != nil {
		return explore.TimedConfig{}, err
	}
	if err := checkTry(cfg.Try, cfg.Variant); err != nil {
		return explore.TimedConfig{}, err
	}
	if err := checkLimits(cfg.MaxSessions, cfg.MaxLocks, cfg.Variant); err != nil {
		return explore.TimedConfig{}, err
	}
	if err := checkMismatch(cfg.Mismatch, cfg.Semaphores, cfg.Variant); err != nil {
		return explore.TimedConfig{}, err
	}
	if err := checkRefresh(cfg.RefreshEvery, cfg.Variant); err != nil {
		return explore.TimedConfig{}, err
	}
	w := workload{sems: cfg.Semaphores, units: cfg.Units, quotas: cfg.Quotas, budget: cfg.Budget, waste: cfg.Waste, slots: cfg.Slots,
		takeMost: cfg.TakeMost, maxSessions: cfg.MaxSessions, maxLocks: cfg.MaxLocks, mismatch: cfg.Mismatch, refreshEvery: cfg.RefreshEvery, try: cfg.Try}
	var script []explore.Scripted
	for _, c := range cfg.CrashAt {
		script = append(script, explore.Scripted{P: c.P, At: c.At})
	}
	for _, r := range cfg.RestartAt {
		script = append(script, explore.Scripted{P: r.P, At: r.At, Restart: true})
	}
	return explore.TimedConfig{
		Build: func() ([]proc.Process, error) {
			return build(cfg.Nodes, cfg.Clients, broken, w)
		},
		Judge: func() (proc.Sink, *check.Report) {
			// No liveness bound is judged: Healed −1 (no heal), no Close.
			c := &check.Service{Nodes: cfg.Nodes, Slack: Lease, Healed: -1, Bound: Bound, Settle: Settle, Budget: cfg.Budget}
			return c, &c.Report
		},
		Seed: cfg.Seed, MinDelay: cfg.MinDelay, MaxDelay: cfg.MaxDelay, Crash: cfg.Crash, Restart: cfg.Restart,
		Unhashed: ctlsim.Unhashed, MaxDepth: cfg.MaxDepth, MaxStates: cfg.MaxStates, Timeout: cfg.Timeout,
		Script: script, WarmupTo: cfg.From, Marks: func() explore.Marker { return &marker{held: map[[2]uint64]bool{}} },
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
	}, nil
}

// marker counts, from the nodes' events, the views served, the sessions
// adopted and the grants held again (a grant's second EvHeld, at any
// node: asked again in a new view, by its node or its adopter), and
// from the clients', the permits they were told.
type marker struct {
	view, adopted, regrant, permit int
	held                           map[[2]uint64]bool
}

func (m *marker) Event(e proc.Event) {
	switch e.Kind {
	case proc.EvView:
		m.view++
	case proc.EvAdopted:
		m.adopted++
	case proc.EvPermit:
		m.permit++
	case proc.EvHeld:
		k := [2]uint64{e.S.ID, e.S.Grant}
		if m.held[k] {
			m.regrant++
		}
		m.held[k] = true
	}
}

func (m *marker) Marks() map[string]int {
	return map[string]int{"view": m.view, "adopted": m.adopted, "regrant": m.regrant, "permit": m.permit}
}
