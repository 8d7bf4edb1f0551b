// Package svcsim runs the service's whole data path in the simulator
// under a fault schedule, and judges it from its events alone: N nodes,
// each a dataplane.Process (the control plane, package control; the data
// plane's pure machine, dataplane.Node, over package session; the lock
// algorithm the service serves, modular-ordered, hosted per view on the
// view's members, and, for the semaphores (Config.Semaphores), per view
// and semaphore, the service's large semaphores' central-pool or, for
// one of fewer units than Slots, its small ones' R-RESOURCES on the
// slots),
// and clients (Client) that open sessions, keep them alive, lock and
// unlock (or acquire and release a semaphore's unit), and move as
// client/ does, finding a lock or acquire cut off by the move held by
// their session (Holders) as client/ does. The driver is package
// sim with its faults (crashes, restarts from persisted state, one-way
// and non-transitive cuts, pauses) and slow nodes (a node's timers run
// Factor times slower over an interval: the busy machine); the judge is
// check.Service.
//
//	Faults (scripted, or drawn from the seed) ──> sim.Run(nodes, clients) ──events──> check.Service ──> findings
//	                                                           └──────────> measures (grants, sessions, expired)
//
// Explore runs the same nodes under package explore's timed search: every
// order of events the timing allows, judged on every path. A view change
// comes a thousand ticks after the crash that causes it, hundreds of
// steps past any search from the crash, so a crash and a restart may
// strike at fixed ticks of the warm-up (CrashAt, RestartAt) and the
// search start later (From; Locate finds the warm-up's first adoption or
// view after the faults): the search then covers every order of events
// through the adoption or the new view's start, a node of Restart back at
// any step, and counts the states after them (docs/control.md, "allot
// explore --kind service", has the measured runs).
//
// What is modelled and what is not: docs/control.md, "The whole data
// path", and package dataplane's doc. A sweep runs many seeds in parallel; its summary does
// not depend on the number of workers.
package svcsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/all"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/chunk"
	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/ctlsim"
	"github.com/allot-dev/allot/dataplane"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// The timing, in ticks (a millisecond each): the control plane's lease
// (ctlsim's), which is also the lease rule's slack (the service's
// --suspect); the sessions' TTL, three leases (the service's defaults
// are 10 s and 3 s); the lock-delay of an expired session's grants.
const (
	Lease     = ctlsim.Lease
	TTL       = 3 * Lease
	LockDelay = Lease / 4
)

// The liveness bounds check.Service is given.
//
// Bound: a lock request is answered within 12 leases of the last fault's
// end (or of its asking, if later): a view that leaves a node out waits
// its lease (a lease and a margin), the node's sessions are adopted and
// their grants asked again (records waited for a lease at most), a
// session lost with its node keeps its grants until its TTL and the
// lock-delay run out (3.25 leases), and the request then waits behind
// the other clients' holds (each at most CS, plus its calls' round
// trips) — with Clients clients that is under 2 leases, and a client that
// moved node waits its keep-alive's timeout once more.
//
// Settle: a session ends within 2 leases of its deadline by the lease
// rule (or of its adoption, or of the faults' end, if later): its node's
// expiry looks at it every 10 ticks once it serves, and its end is
// recorded at its backup (a few delays; a backup lost meanwhile is
// replaced by a view change within a lease and a margin).
const (
	Bound  = 12 * Lease
	Settle = 2 * Lease
)

// Config is one run.
type Config struct {
	Nodes, Clients int
	Seed           uint64
	Horizon        proc.Time
	Delay          dist.Dist
	Faults         Faults
	Random         bool   // draw the fault schedule from the seed (RandomFaults)
	Variant        string // a broken data plane (Variants), "" for the faithful one
	// Semaphores: how many semaphores the clients acquire units of, each
	// of Units units (0: none, the clients only lock).
	Semaphores, Units int
	// Quotas: how many quotas the clients take permits of, each of
	// Budget permits (M) and waste Waste (W); 0: none.
	Quotas, Budget, Waste int
	// TakeMost: the most permits a client's Take asks, 1 to Budget (0:
	// one), drawn for each (ClientConfig.TakeMost).
	TakeMost int
	// Slots: each node's slots of an instance of a small semaphore or a
	// quota (0: Slots); a semaphore of fewer Units is a small one.
	Slots int
	// MaxSessions, MaxLocks: each node's limits, the service's
	// --max-sessions and --max-locks (0: none; dataplane.Config).
	MaxSessions, MaxLocks int
	// Hold: a client holds each grant 1 to Hold ticks, drawn (0: CS).
	// Longer holds need AcquireOnly and at least as many Units as
	// Clients (checkHold): a request that waits behind holders would
	// outwait Bound. AcquireOnly: every request acquires a semaphore's
	// unit (with Semaphores), none locks.
	Hold        proc.Time
	AcquireOnly bool
	// Mismatch: the percent of acquires that give their semaphore other
	// units (ClientConfig.Mismatch), 0 to 100; above 0, the nodes check
	// an Acquire's units against the control log's record
	// (dataplane.Config.Units).
	Mismatch int
	// RefreshEvery: how often (ticks) the control plane's leader
	// proposes a refresh of the view (dataplane.ProcessConfig); 0:
	// never.
	RefreshEvery proc.Time
	Sink         proc.Sink
	// Try: the percent of lock and acquire requests that are tries
	// (0 to 100; ClientConfig.Try).
	Try int
}

// Faults is a fault schedule: the control plane's kinds, and slow nodes.
type Faults struct {
	ctlsim.Faults
	Slow []Slow `json:"slow,omitempty"`
}

// Slow is node P running Factor times slower in the ticks [Start, End):
// its timers (Raft's ticks, its keep-alive and expiry checks, its links'
// resends) fire that much later.
type Slow struct {
	P          proc.ID
	Start, End proc.Time
	Factor     float64
}

// Count is the number of faults.
func (f Faults) Count() int { return f.Faults.Count() + len(f.Slow) }

// healed is the tick the last fault ended: a crash for good counts from
// when it happens.
func (f Faults) healed() proc.Time {
	var t proc.Time
	for _, r := range f.Restarts {
		t = max(t, r.At)
	}
	for _, c := range f.Cuts {
		if c.End == 0 {
			return -1
		}
		t = max(t, c.End)
	}
	for _, p := range f.Pauses {
		t = max(t, p.End)
	}
	for _, c := range f.Crashes {
		t = max(t, c.At)
	}
	for _, s := range f.Slow {
		t = max(t, s.End)
	}
	return t
}

// windows are the intervals in which a fault is active: a node down
// (from its crash to its restart, or to the end), paused, slow, or a
// link cut.
func (f Faults) windows(end proc.Time) [][2]proc.Time {
	var w [][2]proc.Time
	for _, c := range f.Crashes {
		up := end
		for _, r := range f.Restarts {
			if r.P == c.P && r.At >= c.At {
				up = min(up, r.At)
			}
		}
		w = append(w, [2]proc.Time{c.At, up})
	}
	for _, c := range f.Cuts {
		e := c.End
		if e == 0 {
			e = end
		}
		w = append(w, [2]proc.Time{c.Start, e})
	}
	for _, p := range f.Pauses {
		w = append(w, [2]proc.Time{p.Start, p.End})
	}
	for _, s := range f.Slow {
		w = append(w, [2]proc.Time{s.Start, s.End})
	}
	return w
}

// Kinds counts the faults by kind.
func (f Faults) Kinds() map[string]int {
	k := map[string]int{}
	k["crash"] = len(f.Crashes)
	k["restart"] = len(f.Restarts)
	k["cut"] = len(f.Cuts)
	k["pause"] = len(f.Pauses)
	k["slow"] = len(f.Slow)
	for n, c := range k { // any order: it only deletes
		if c == 0 {
			delete(k, n)
		}
	}
	return k
}

// Variants are the deliberately broken data planes, by name.
var Variants = map[string]dataplane.Broken{
	"adopt-fresh-ttl":  dataplane.AdoptFresh,
	"fence-ends":       dataplane.FenceEnds,
	"sem-no-regrant":   dataplane.SemNoRegrant,
	"quota-no-persist": dataplane.QuotaNoPersist,
	"quota-no-chunk":   dataplane.QuotaNoChunk,
	"take-count-late":  dataplane.TakeCountLate,
	// A regrant waits for a user under the node's limit.
	"regrant-within-limits": dataplane.RegrantWithinLimits,
	// An Acquire is served with the units it gives, unchecked.
	"units-unchecked": dataplane.UnitsUnchecked,
	// A ready does not record again the units of the semaphores held.
	"refresh-forgets-held": dataplane.RefreshForgetsHeld,
	// A try that gives up leaves its request at the instance.
	"try-leaks": dataplane.TryLeaks,
	// A regrant keeps its names' ids of the view before.
	"names-stale": dataplane.NamesStale,
}

// SemVariant reports whether variant breaks only the semaphores: a run
// of it needs some (Config.Semaphores).
func SemVariant(variant string) bool {
	switch Variants[variant] {
	case dataplane.SemNoRegrant, dataplane.UnitsUnchecked, dataplane.RefreshForgetsHeld:
		return true
	}
	return false
}

// MismatchVariant reports whether variant breaks only what an Acquire
// of other units does: a run of it needs some (Config.Mismatch).
func MismatchVariant(variant string) bool {
	switch Variants[variant] {
	case dataplane.UnitsUnchecked, dataplane.RefreshForgetsHeld:
		return true
	}
	return false
}

// RefreshVariant reports whether variant breaks only what a refresh
// does: a run of it needs refreshes (Config.RefreshEvery).
func RefreshVariant(variant string) bool { return Variants[variant] == dataplane.RefreshForgetsHeld }

// QuotaVariant reports whether variant breaks only the quotas: a run of
// it needs some (Config.Quotas).
func QuotaVariant(variant string) bool {
	switch Variants[variant] {
	case dataplane.QuotaNoPersist, dataplane.QuotaNoChunk, dataplane.TakeCountLate:
		return true
	}
	return false
}

// TakeVariant reports whether variant breaks only a Take of more than
// one permit: a run of it needs such takes (Config.TakeMost).
func TakeVariant(variant string) bool { return Variants[variant] == dataplane.TakeCountLate }

// LimitVariant reports whether variant breaks only what the node's
// limits do: a run of it needs one (Config.MaxLocks, MaxSessions).
func LimitVariant(variant string) bool { return Variants[variant] == dataplane.RegrantWithinLimits }

// TryVariant reports whether variant breaks only the tries: a run of it
// needs some (Config.Try).
func TryVariant(variant string) bool { return Variants[variant] == dataplane.TryLeaks }

// checkTry refuses a share of tries the run cannot have: outside 0 to
// 100 percent, or the tries' variant with none.
func checkTry(try int, variant string) error {
	switch {
	case try < 0 || try > 100:
		return fmt.Errorf("svcsim: tries %d%%: want 0 to 100", try)
	case try == 0 && TryVariant(variant):
		return fmt.Errorf("svcsim: variant %s breaks the tries: it needs some (--try)", variant)
	}
	return nil
}

// VariantNames lists Variants, sorted.
func VariantNames() []string {
	var names []string
	for n := range Variants { // any order: sorted below
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Schedule is the fault schedule cfg runs.
func (cfg Config) Schedule() Faults {
	if !cfg.Random {
		return cfg.Faults
	}
	return RandomFaults(rand.New(rand.NewPCG(cfg.Seed, 0x6661756c74)), cfg.Nodes, cfg.Horizon)
}

// RandomFaults is ctlsim.RandomFaults's schedule and, drawn after it
// from the same source, zero to two slow nodes: each slowed 2 to 10
// times over a span of the same kind as the other faults'.
func RandomFaults(rng *rand.Rand, n int, horizon proc.Time) Faults {
	f := Faults{Faults: ctlsim.RandomFaults(rng, n, horizon)}
	for range rng.IntN(3) {
		start := horizon/10 + proc.Time(rng.Int64N(int64(max(1, horizon/2-horizon/10))))
		end := start + 1 + proc.Time(rng.Int64N(int64(max(1, horizon/5))))
		f.Slow = append(f.Slow, Slow{P: proc.ID(rng.IntN(n)), Start: start, End: end, Factor: float64(2 + rng.IntN(9))})
	}
	return f
}

// Result is one run.
type Result struct {
	Seed    uint64 `json:"seed"`
	Nodes   int    `json:"nodes"`
	Clients int    `json:"clients"`
	// MaxSessions, MaxLocks: the nodes' limits, when set.
	MaxSessions int       `json:"max_sessions,omitempty"`
	MaxLocks    int       `json:"max_locks,omitempty"`
	Faults      Faults    `json:"faults"`
	End         proc.Time `json:"end"`
	Healed      proc.Time `json:"healed"`
	// Sessions opened, grants answered to clients, answers "expired" to
	// clients, adoptions, requests asked; Acquires and Units: of the
	// requests and grants, a semaphore's.
	Sessions int `json:"sessions"`
	Grants   int `json:"grants"`
	Expired  int `json:"expired"`
	Adopted  int `json:"adopted"`
	Requests int `json:"requests"`
	Acquires int `json:"acquires,omitempty"`
	Units    int `json:"units,omitempty"`
	// Takes: of the requests, a quota's; Permits: the permits the
	// clients were told (a Take's answer tells all it got); Rejects: the
	// takes answered RESOURCE_EXHAUSTED.
	Takes   int `json:"takes,omitempty"`
	Permits int `json:"permits,omitempty"`
	Rejects int `json:"rejects,omitempty"`
	// Refused: the opens, locks and acquires answered NODE_LIMIT (a
	// node at its MaxSessions or MaxLocks).
	Refused int `json:"refused,omitempty"`
	// Mismatched: the acquires answered UNITS_MISMATCH (Config.Mismatch).
	Mismatched int   `json:"mismatched,omitempty"`
	Messages   int64 `json:"messages"`
	Events     int   `json:"events"`
	// Tries: of the lock and acquire requests, the tries (Config.Try);
	// TriesGranted: those answered OK; Taken: those answered TAKEN.
	Tries        int `json:"tries,omitempty"`
	TriesGranted int `json:"tries_granted,omitempty"`
	Taken        int `json:"taken,omitempty"`
	// Cut: the lock and acquire requests whose call was cut off (its
	// node did not serve the session, or the client moved before the
	// answer); Reclaimed: of those, the ones whose grant the session's
	// node then said the session holds (Holders), claimed by the client.
	Cut       int `json:"cut,omitempty"`
	Reclaimed int `json:"reclaimed,omitempty"`
	// Findings: the checker's count, by rule; First the first few.
	Findings int            `json:"findings"`
	ByRule   map[string]int `json:"by_rule,omitempty"`
	First    []string       `json:"first,omitempty"`
}

// Lock is the lock algorithm the nodes host: the service's default. Pool
// serves the large semaphores (R ≥ Slots): the service's central-pool,
// users made one per open request. SmallPool serves the small ones (R <
// Slots: --units 1), the service's default semaphore algorithm
// (R-RESOURCES), on Slots users per member. Quota serves the quotas, the
// service's default, on the same slots (the service's are 16: two keep
// a view's instances small, and still let two requests of one node's
// clients run at once).
const (
	Lock      = "modular-ordered"
	Pool      = "central-pool"
	SmallPool = "pool"
	Quota     = "controller"
	Slots     = 2
)

// checkSemaphores refuses semaphores the run cannot have: fewer than 0,
// a semaphore of fewer than 1 unit or more than an int32's, or a
// semaphores' variant with none.
func checkSemaphores(sems, units int, variant string) error {
	switch {
	case sems < 0:
		return fmt.Errorf("svcsim: %d semaphores: want 0 or more", sems)
	case sems > 0 && (units < 1 || units > math.MaxInt32):
		return fmt.Errorf("svcsim: semaphores of %d units: want 1 to %d", units, math.MaxInt32)
	case sems == 0 && SemVariant(variant):
		return fmt.Errorf("svcsim: variant %s breaks the semaphores: it needs some", variant)
	}
	return nil
}

// checkMismatch refuses a share of acquires of other units the run
// cannot have: outside 0..100 percent, above 0 without semaphores, and
// the units' variant at 0.
func checkMismatch(mismatch, sems int, variant string) error {
	switch {
	case mismatch < 0 || mismatch > 100:
		return fmt.Errorf("svcsim: --mismatch %d: want 0 to 100 (percent of the acquires)", mismatch)
	case mismatch > 0 && sems == 0:
		return fmt.Errorf("svcsim: --mismatch %d: there are no semaphores", mismatch)
	case mismatch == 0 && MismatchVariant(variant):
		return fmt.Errorf("svcsim: variant %s breaks an Acquire of other units: it needs --mismatch", variant)
	}
	return nil
}

// checkRefresh refuses a refresh period below 0 (0: none), or the
// refresh's variant without refreshes.
func checkRefresh(every proc.Time, variant string) error {
	switch {
	case every < 0:
		return fmt.Errorf("svcsim: refreshes every %d ticks: want 0 (none) or more", every)
	case every == 0 && RefreshVariant(variant):
		return fmt.Errorf("svcsim: variant %s breaks a refresh: it needs --refresh-every", variant)
	}
	return nil
}

// checkSlots refuses slots the run cannot have: fewer than 0 (0:
// Slots), or more than MaxSlots.
func checkSlots(slots int) error {
	if slots < 0 || slots > MaxSlots {
		return fmt.Errorf("svcsim: %d slots: want 1 to %d (0: %d)", slots, MaxSlots, Slots)
	}
	return nil
}

// MaxSlots is the most slots a node may have: every node builds its
// processes of an instance on the slots whole, nodes × slots of them.
const MaxSlots = 64

// checkQuotas refuses quotas the run cannot have: fewer than 0, a
// budget below 1, a waste outside 0..budget, or a quotas' variant with
// none.
func checkQuotas(quotas, budget, waste int, variant string) error {
	switch {
	case quotas < 0:
		return fmt.Errorf("svcsim: %d quotas: want 0 or more", quotas)
	case quotas > 0 && (budget < 1 || budget > math.MaxInt32):
		return fmt.Errorf("svcsim: quotas of a budget of %d: want 1 to %d", budget, math.MaxInt32)
	case quotas > 0 && (waste < 0 || waste > budget):
		return fmt.Errorf("svcsim: quotas of waste %d: want 0 to the budget, %d", waste, budget)
	case quotas == 0 && QuotaVariant(variant):
		return fmt.Errorf("svcsim: variant %s breaks the quotas: it needs some", variant)
	}
	return nil
}

// checkTakes refuses a largest Take the run cannot have: below 0 (0:
// one), above the budget (the service refuses such a Take, and every
// one would be), or above one without quotas; and a variant that
// breaks a Take of more than one permit with takes of one.
func checkTakes(most, quotas, budget int, variant string) error {
	switch {
	case most < 0:
		return fmt.Errorf("svcsim: takes of up to %d permits: want 1 or more (0: 1)", most)
	case most > 1 && quotas == 0:
		return fmt.Errorf("svcsim: takes of up to %d permits: there are no quotas", most)
	case most > 1 && most > budget:
		return fmt.Errorf("svcsim: takes of up to %d permits: want at most the budget, %d", most, budget)
	case most <= 1 && TakeVariant(variant):
		return fmt.Errorf("svcsim: variant %s breaks a Take of more than one permit: it needs takes of up to 2 or more", variant)
	}
	return nil
}

// Run runs one cluster and its clients.
func Run(cfg Config) (Result, error) {
	if cfg.Nodes < 1 || cfg.Clients < 1 {
		return Result{}, fmt.Errorf("svcsim: %d nodes and %d clients: want at least one of each", cfg.Nodes, cfg.Clients)
	}
	if cfg.Horizon <= 0 {
		return Result{}, fmt.Errorf("svcsim: a horizon is required (a service never quiesces)")
	}
	broken := dataplane.Broken(0)
	if cfg.Variant != "" {
		b, ok := Variants[cfg.Variant]
		if !ok {
			return Result{}, fmt.Errorf("no service variant %q (want one of %s)", cfg.Variant, strings.Join(VariantNames(), ", "))
		}
		broken = b
	}
	if err := checkSemaphores(cfg.Semaphores, cfg.Units, cfg.Variant); err != nil {
		return Result{}, err
	}
	if err := checkQuotas(cfg.Quotas, cfg.Budget, cfg.Waste, cfg.Variant); err != nil {
		return Result{}, err
	}
	if err := checkTakes(cfg.TakeMost, cfg.Quotas, cfg.Budget, cfg.Variant); err != nil {
		return Result{}, err
	}
	if err := checkSlots(cfg.Slots); err != nil {
		return Result{}, err
	}
	if err := checkMismatch(cfg.Mismatch, cfg.Semaphores, cfg.Variant); err != nil {
		return Result{}, err
	}
	if err := checkRefresh(cfg.RefreshEvery, cfg.Variant); err != nil {
		return Result{}, err
	}
	if err := checkLimits(cfg.MaxSessions, cfg.MaxLocks, cfg.Variant); err != nil {
		return Result{}, err
	}
	if err := checkHold(cfg.Hold, cfg.AcquireOnly, cfg.Semaphores, cfg.Units, cfg.Clients); err != nil {
		return Result{}, err
	}
	if err := checkTry(cfg.Try, cfg.Variant); err != nil {
		return Result{}, err
	}
	cfg.Faults = cfg.Schedule()
	ps, err := build(cfg.Nodes, cfg.Clients, broken, cfg.workload())
	if err != nil {
		return Result{}, err
	}
	healed := cfg.Faults.healed()
	chk := &check.Service{Nodes: cfg.Nodes, Slack: Lease, Healed: healed, Bound: Bound, Settle: Settle, Windows: cfg.Faults.windows(cfg.Horizon),
		Budget: cfg.Budget}
	m := &measure{nodes: cfg.Nodes}
	sinks := proc.Sinks{chk, m}
	if cfg.Sink != nil {
		sinks = append(sinks, cfg.Sink)
	}
	var speed sim.Speed
	if len(cfg.Faults.Slow) > 0 {
		s := &sim.Speeds{Pattern: "min", Min: 1, Max: 1}
		for _, w := range cfg.Faults.Slow {
			s.Untame = append(s.Untame, sim.Untame{From: w.Start, To: w.End, P: w.P, Factor: w.Factor})
		}
		if err := s.Validate(); err != nil {
			return Result{}, err
		}
		speed = s
	}
	f := cfg.Faults
	res, err := sim.Run(sim.Config{
		Seed:    cfg.Seed,
		Horizon: cfg.Horizon,
		Sink:    sinks,
		Net: sim.Network{Delay: cfg.Delay, FIFO: true, Speed: speed, Crashes: f.Crashes, Restarts: f.Restarts,
			Cuts: f.Cuts, Pauses: f.Pauses},
	}, &algo.Problem{}, ps)
	if err != nil {
		return Result{}, err
	}
	chk.Close(cfg.Horizon)
	k := countClients(ps)
	return Result{
		Seed: cfg.Seed, Nodes: cfg.Nodes, Clients: cfg.Clients, MaxSessions: cfg.MaxSessions, MaxLocks: cfg.MaxLocks, Faults: cfg.Faults, End: cfg.Horizon, Healed: healed,
		Sessions: m.count[proc.EvOpened], Grants: m.count[proc.EvEnter], Expired: m.count[proc.EvExpired],
		Adopted: m.count[proc.EvAdopted], Requests: m.count[proc.EvRequest], Acquires: m.acquires, Units: m.units,
		Takes: m.takes, Permits: m.permits, Rejects: m.count[proc.EvReject], Refused: k.refused, Mismatched: k.mismatched,
		Tries: k.tries, TriesGranted: k.triesGranted, Taken: k.taken, Cut: k.cut, Reclaimed: k.reclaimed,
		Messages: res.Messages, Events: m.events,
		Findings: chk.Violations, ByRule: chk.ByRule, First: chk.First,
	}, nil
}

// workload is what the clients ask for besides the lock: semaphores,
// quotas (and a Take's most permits); the nodes' slots they are served
// on (0: Slots), and the nodes' limits (0: none).
type workload struct {
	sems, units, quotas, budget, waste, slots int
	takeMost                                  int
	maxSessions, maxLocks                     int
	hold                                      proc.Time
	acquireOnly                               bool
	mismatch                                  int
	refreshEvery                              proc.Time
	try                                       int
}

func (cfg Config) workload() workload {
	return workload{cfg.Semaphores, cfg.Units, cfg.Quotas, cfg.Budget, cfg.Waste, cfg.Slots, cfg.TakeMost, cfg.MaxSessions, cfg.MaxLocks,
		cfg.Hold, cfg.AcquireOnly, cfg.Mismatch, cfg.RefreshEvery, cfg.Try}
}

// CS is how long a client holds a grant at most (Config.Hold's default).
const CS = 100

// checkHold refuses holds the run cannot judge: below 0 (0: CS), or past
// CS but for acquires only of a semaphore of at least one unit per
// client, which never wait behind a holder (Bound counts holds of CS at
// most); AcquireOnly without semaphores.
func checkHold(hold proc.Time, acquireOnly bool, sems, units, clients int) error {
	switch {
	case hold < 0:
		return fmt.Errorf("svcsim: hold %d: want 0 (%d) or more", hold, CS)
	case acquireOnly && sems == 0:
		return fmt.Errorf("svcsim: acquires only, but no semaphores")
	case hold > CS && (!acquireOnly || units < clients):
		return fmt.Errorf("svcsim: hold %d: past %d, a request waiting behind holders would outwait the checker's bound: acquires only, of at least one unit per client (%d)", hold, CS, clients)
	}
	return nil
}

// checkLimits refuses limits the run cannot have: below 0 (0: none), or
// the limits' variant with neither.
func checkLimits(maxSessions, maxLocks int, variant string) error {
	switch {
	case maxSessions < 0:
		return fmt.Errorf("svcsim: --max-sessions %d: want 0 (none) or more", maxSessions)
	case maxLocks < 0:
		return fmt.Errorf("svcsim: --max-locks %d: want 0 (none) or more", maxLocks)
	case maxSessions == 0 && maxLocks == 0 && LimitVariant(variant):
		return fmt.Errorf("svcsim: variant %s breaks the nodes' limits: it needs --max-locks or --max-sessions", variant)
	}
	return nil
}

// clientCounts is what the clients of a run counted of their answers:
// NODE_LIMIT (refused), UNITS_MISMATCH (mismatched), and their tries:
// asked, granted, answered TAKEN.
type clientCounts struct{ refused, mismatched, tries, triesGranted, taken, cut, reclaimed int }

// countClients sums the counts of the clients of a run of ps.
func countClients(ps []proc.Process) clientCounts {
	var k clientCounts
	for _, p := range ps {
		if c, ok := p.(*Client); ok {
			k.refused += c.refused
			k.mismatched += c.mismatch
			k.tries += c.tries
			k.triesGranted += c.triesGranted
			k.taken += c.taken
			k.cut += c.cuts
			k.reclaimed += c.reclaimed
		}
	}
	return k
}

// build makes the nodes 0..nodes-1 of a fresh cluster, each on a disk of
// its own bootstrapped with every node, and the clients after them.
func build(nodes, clients int, broken dataplane.Broken, w workload) ([]proc.Process, error) {
	lock, err := all.Lookup(Lock)
	if err != nil {
		return nil, err
	}
	pool, err := all.Lookup(Pool)
	if err != nil {
		return nil, err
	}
	small, err := all.Lookup(SmallPool)
	if err != nil {
		return nil, err
	}
	quota, err := all.Lookup(Quota)
	if err != nil {
		return nil, err
	}
	var quotas []control.Quota
	var waste []uint64
	for i := range w.quotas {
		quotas = append(quotas, control.Quota{Name: fmt.Sprintf("q%d", i), Budget: uint64(w.budget), Chunk: chunk.Size(w.waste, nodes)})
		waste = append(waste, uint64(w.waste))
	}
	slots := w.slots
	if slots == 0 {
		slots = Slots
	}
	ids := make([]proc.ID, nodes)
	for i := range ids {
		ids[i] = proc.ID(i)
	}
	ps := make([]proc.Process, 0, nodes+clients)
	for i := range nodes {
		disk := control.Bootstrap(ids)
		ps = append(ps, dataplane.NewProcess(dataplane.ProcessConfig{
			Control: control.Config{Self: proc.ID(i), Lease: Lease, Margin: ctlsim.Margin,
				SnapshotEvery: ctlsim.SnapshotEvery, SnapshotKeep: ctlsim.SnapshotKeep, Quotas: quotas},
			Data: dataplane.Config{Slack: Lease, LockDelay: LockDelay, Broken: broken, Waste: waste, Slots: slots,
				MaxSessions: w.maxSessions, MaxLocks: w.maxLocks, Units: w.mismatch > 0},
			Lock:         lock,
			Pool:         pool,
			SmallPool:    small,
			Quota:        quota,
			Resend:       50,
			RefreshEvery: w.refreshEvery,
		}, &disk))
	}
	hold := w.hold
	if hold == 0 {
		hold = CS
	}
	for range clients {
		ps = append(ps, NewClient(ClientConfig{Nodes: nodes, Names: 3, TTL: TTL,
			KeepAlive: TTL / 8, Timeout: Lease / 4, Retry: 20, Think: 200, CS: hold, Locks: 4,
			Semaphores: w.sems, Units: int32(w.units), Quotas: w.quotas, TakeMost: w.takeMost, AcquireOnly: w.acquireOnly,
			Mismatch: w.mismatch, Try: w.try}))
	}
	return ps, nil
}

// measure counts the events by kind, a semaphore's requests and grants,
// and a quota's takes and the permits told (each EvPermit's count).
type measure struct {
	nodes                           int
	events                          int
	count                           map[proc.EventKind]int
	acquires, units, takes, permits int
}

func (m *measure) Event(e proc.Event) {
	m.events++
	if m.count == nil {
		m.count = map[proc.EventKind]int{}
	}
	m.count[e.Kind]++
	if e.Kind == proc.EvRequest && e.S != nil && e.S.Quota > 0 {
		m.takes++
	}
	if e.Kind == proc.EvPermit && e.S != nil {
		m.permits += e.S.Count()
	}
	if e.S != nil && e.S.Units > 0 {
		switch e.Kind {
		case proc.EvRequest:
			m.acquires++
		case proc.EvEnter:
			m.units++
		}
	}
}

// Summary is a sweep over seeds.
type Summary struct {
	Nodes int `json:"nodes"`
	// MaxSessions, MaxLocks: the nodes' limits, when set.
	MaxSessions int            `json:"max_sessions,omitempty"`
	MaxLocks    int            `json:"max_locks,omitempty"`
	Runs        int            `json:"runs"`
	Faults      map[string]int `json:"faults"`
	Sessions    int            `json:"sessions"`
	Grants      int            `json:"grants"`
	Expired     int            `json:"expired"`
	Adopted     int            `json:"adopted"`
	Units       int            `json:"units,omitempty"` // of the grants, a semaphore's
	Permits     int            `json:"permits,omitempty"`
	Rejects     int            `json:"rejects,omitempty"`
	Refused     int            `json:"refused,omitempty"`
	Mismatched  int            `json:"mismatched,omitempty"`
	// Tries, TriesGranted, Taken: the clients' tries (Result's).
	Tries        int `json:"tries,omitempty"`
	TriesGranted int `json:"tries_granted,omitempty"`
	Taken        int `json:"taken,omitempty"`
	// Cut, Reclaimed: the requests cut off, and those found held
	// (Result's).
	Cut       int `json:"cut,omitempty"`
	Reclaimed int `json:"reclaimed,omitempty"`
	// Findings: the runs with at least one, in all and by rule, and the
	// first of them (its seed replays it).
	Failed      int            `json:"failed_runs"`
	FailedSeeds []uint64       `json:"failed_seeds,omitempty"`
	Findings    int            `json:"findings"`
	ByRule      map[string]int `json:"by_rule"`
	FirstFailed *Result        `json:"first_failed,omitempty"`
}

// Sweep runs cfg for each seed on up to workers goroutines (0: one per
// CPU); the summary is the same whatever the workers. ended (if set) is
// called from the workers as each run ends, with the runs ended so far.
func Sweep(cfg Config, seeds []uint64, workers int, ended func(n int)) (Summary, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]Result, len(seeds))
	errs := make([]error, len(seeds))
	next := make(chan int)
	var wg sync.WaitGroup
	var done atomic.Int64
	for range min(workers, len(seeds)) {
		wg.Go(func() {
			for i := range next {
				c := cfg
				c.Seed, c.Sink = seeds[i], nil
				results[i], errs[i] = Run(c)
				if n := done.Add(1); ended != nil {
					ended(int(n))
				}
			}
		})
	}
	for i := range seeds {
		next <- i
	}
	close(next)
	wg.Wait()
	sum := Summary{Nodes: cfg.Nodes, MaxSessions: cfg.MaxSessions, MaxLocks: cfg.MaxLocks, Runs: len(seeds), Faults: map[string]int{}, ByRule: map[string]int{}}
	for i, r := range results {
		if errs[i] != nil {
			return sum, fmt.Errorf("seed %d: %w", seeds[i], errs[i])
		}
		for k, n := range r.Faults.Kinds() { // any order: it sums
			sum.Faults[k] += n
		}
		sum.Sessions += r.Sessions
		sum.Grants += r.Grants
		sum.Expired += r.Expired
		sum.Adopted += r.Adopted
		sum.Units += r.Units
		sum.Permits += r.Permits
		sum.Rejects += r.Rejects
		sum.Refused += r.Refused
		sum.Mismatched += r.Mismatched
		sum.Tries += r.Tries
		sum.TriesGranted += r.TriesGranted
		sum.Taken += r.Taken
		sum.Cut += r.Cut
		sum.Reclaimed += r.Reclaimed
		if r.Findings > 0 {
			sum.Failed++
			sum.FailedSeeds = append(sum.FailedSeeds, r.Seed)
			sum.Findings += r.Findings
			for k, n := range r.ByRule { // any order: it sums
				sum.ByRule[k] += n
			}
			if sum.FirstFailed == nil {
				sum.FirstFailed = &results[i]
			}
		}
	}
	return sum, nil
}
