package svcsim

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/allot-dev/allot/ctlsim"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

func delay(t *testing.T) dist.Dist {
	d, err := dist.Parse("uniform:1:10")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func seeds(from, n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = uint64(from + i)
	}
	return s
}

// TestSweep: random fault schedules, slow nodes among them, on 3 and 5
// nodes, judged by check.Service: no finding. The seeds are 1..N (the
// 1000-seed sweeps are allot sim --kind service --seeds 1000).
//
// With semaphores: one of one unit (small: on the slots; the clients
// contend for it as for a lock) and two of three units (large) among
// eight clients.
func TestSweep(t *testing.T) {
	for _, c := range []struct{ nodes, clients, runs, sems, units int }{{3, 4, 24, 0, 0}, {5, 4, 8, 0, 0}, {3, 4, 24, 1, 1}, {5, 8, 8, 2, 3}} {
		sum, err := Sweep(Config{Nodes: c.nodes, Clients: c.clients, Horizon: 20000, Delay: delay(t), Random: true,
			Semaphores: c.sems, Units: c.units}, seeds(1, c.runs), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sum.FirstFailed != nil {
			f := sum.FirstFailed
			t.Errorf("%+v: %d of %d runs with findings; seed %d: %v", c, sum.Failed, sum.Runs, f.Seed, f.First)
		}
		if sum.Grants == 0 || sum.Adopted == 0 || sum.Faults["slow"] == 0 {
			t.Errorf("%+v: a sweep that tries little: %+v", c, sum)
		}
		t.Logf("%+v, seeds 1..%d: %+v", c, c.runs, sum)
	}
}

// TestVariants: each deliberately broken data plane is caught within
// seeds 1..240, swept 24 at a time until it is (the rarer one is caught
// in about 3 runs in 100: a fixed handful of seeds would say more of
// the seeds than of the checker). The semaphores' variant runs with one
// semaphore of one unit, a small one (caught in 10 runs of seeds
// 1..300, the first seed 95); the quotas'
// with one quota of 40 permits, waste 12 (quota-no-persist caught by
// budget in about 54 runs in 100, quota-no-chunk in 1 of seeds 1..300,
// 121: a member cut off for long enough is rare in the schedules);
// take-count-late with takes of up to 5 permits and waste 40, a chunk of
// 6 (issued in 67 of seeds 1..300, budget in 17: a Take across a view
// change when the quota runs out; with a chunk below a Take's count it
// is caught sooner, by unanswered, in 18: the Take waits for a report
// that cannot count what it holds; since the lock's names are resolved by
// their homes, the first run caught, seed 5, is by unanswered: the seeds
// around it by issued). try-leaks runs with half the requests tries
// (Try 50): caught by refused-held (in each of seeds 1..300: its node
// holds the grant of a try its client was answered TAKEN; unanswered,
// before that rule, in 37, a leaked grant being mostly given back when
// its session ends). names-stale runs with eight clients
// (one-holder in 6 of seeds 1..300, the first 1; with four, 2, the
// first 239).
func TestVariants(t *testing.T) {
	const most, step = 240, 24
	for _, v := range VariantNames() {
		var caught *Result
		var byRule map[string]int // the findings of the seeds that caught it
		cfg := Config{Nodes: 3, Clients: 4, Horizon: 20000, Delay: delay(t), Random: true, Variant: v}
		if SemVariant(v) {
			cfg.Semaphores, cfg.Units = 1, 1
		}
		if MismatchVariant(v) {
			cfg.Mismatch = 30
		}
		if RefreshVariant(v) {
			cfg.Semaphores, cfg.Units, cfg.RefreshEvery = 2, 2, 1500
		}
		if QuotaVariant(v) {
			cfg.Quotas, cfg.Budget, cfg.Waste = 1, 40, 12
		}
		if TakeVariant(v) {
			cfg.TakeMost, cfg.Waste = 5, 40
		}
		if v == "names-stale" {
			cfg.Clients = 8 // more requests of a name across a view change
		}
		if LimitVariant(v) {
			cfg = limitCatch(t)
			cfg.Variant = v
		}
		if TryVariant(v) {
			cfg.Try = 50
		}
		for from := 1; from <= most && caught == nil; from += step {
			sum, err := Sweep(cfg, seeds(from, step), 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			caught, byRule = sum.FirstFailed, sum.ByRule
		}
		if caught == nil {
			t.Errorf("variant %s: not caught over seeds 1..%d", v, most)
			continue
		}
		if SemVariant(v) && caught.ByRule["capacity"]+caught.ByRule["one-units"] == 0 {
			t.Errorf("variant %s: caught by %v, not capacity", v, caught.ByRule)
		}
		// Among the seeds that caught it: a quota variant's first run may
		// fail by its liveness first (take-count-late's takes waiting for
		// a chunk its uncounted permits hold), the budget's rules later.
		if QuotaVariant(v) && byRule["budget"]+byRule["issued"] == 0 {
			t.Errorf("variant %s: caught by %v, not budget nor issued", v, byRule)
		}
		if v == "names-stale" && caught.ByRule["one-holder"] == 0 {
			t.Errorf("variant %s: caught by %v, not one-holder", v, caught.ByRule)
		}
		if LimitVariant(v) && caught.ByRule["unanswered"] == 0 {
			t.Errorf("variant %s: caught by %v, not unanswered", v, caught.ByRule)
		}
		if TryVariant(v) && caught.ByRule["refused-held"] == 0 {
			t.Errorf("variant %s: caught by %v, not refused-held", v, caught.ByRule)
		}
		t.Logf("variant %s: seed %d: %s", v, caught.Seed, caught.First[0])
	}
}

// TestScripted: a crash of a node, its restart on its data, a slow node
// and a one-way cut, scripted; the run is deterministic.
func TestScripted(t *testing.T) {
	f := Faults{Slow: []Slow{{P: 2, Start: 2000, End: 6000, Factor: 8}}}
	f.Crashes = []sim.Crash{{P: 0, At: 3000}}
	f.Restarts = []sim.Restart{{P: 0, At: 5000}}
	f.Cuts = []sim.Cut{{From: 1, To: 2, Start: 7000, End: 9000}}
	cfg := Config{Nodes: 3, Clients: 4, Seed: 7, Horizon: 20000, Delay: delay(t), Faults: f}
	a, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("one seed, two results:\n%+v\n%+v", a, b)
	}
	if a.Findings > 0 || a.Adopted == 0 || a.Grants == 0 {
		t.Errorf("want sessions adopted, grants and no finding: %+v", a)
	}
	if a.Healed != 9000 {
		t.Errorf("healed at %d, want 9000", a.Healed)
	}
}

// TestSweepWorkers: the summary does not depend on the number of
// workers, with semaphores or without, and with quotas.
func TestSweepWorkers(t *testing.T) {
	for _, c := range []struct{ sems, quotas int }{{0, 0}, {2, 0}, {0, 2}} {
		sems := c.sems
		cfg := Config{Nodes: 3, Clients: 3, Horizon: 12000, Delay: delay(t), Random: true, Semaphores: sems, Units: 2,
			Quotas: c.quotas, Budget: 10, Waste: 2}
		one, err := Sweep(cfg, seeds(40, 4), 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		two, err := Sweep(cfg, seeds(40, 4), 3, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(one, two) {
			t.Errorf("%+v: 1 worker: %+v\n3 workers: %+v", c, one, two)
		}
		if c.quotas > 0 && (one.Permits == 0 || one.Rejects == 0) {
			t.Errorf("%+v: %d permits, %d rejects", c, one.Permits, one.Rejects)
		}
		if sems > 0 && (one.Units == 0 || one.Units == one.Grants) {
			t.Errorf("%d semaphores: %d units granted of %d grants", sems, one.Units, one.Grants)
		}
	}
}

// TestQuotaSweep: the clients take permits of two quotas of a small
// budget beside their locks, under random fault schedules of fresh
// seeds, on 3 and 5 nodes: no finding (budget among the rules: never
// more permits than a quota's budget, across views, crashes and
// restarts), and both quotas spent (rejects) in the sweep. The full
// sweeps are allot sim --kind service --random-faults --seeds 300
// --quotas 1.
func TestQuotaSweep(t *testing.T) {
	first := rand.Uint64() >> 1
	t.Logf("seeds %d.. (fresh each run)", first)
	for _, n := range []int{3, 5} {
		cfg := Config{Nodes: n, Clients: 4, Horizon: 20000, Delay: delay(t), Random: true, Quotas: 2, Budget: 20, Waste: 6}
		sum, err := Sweep(cfg, seeds(int(first), 12), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f := sum.FirstFailed; f != nil {
			t.Errorf("%d nodes: %d of %d runs with findings; seed %d, faults %+v: %v", n, sum.Failed, sum.Runs, f.Seed, f.Faults, f.First)
		}
		if sum.Permits == 0 || sum.Rejects == 0 || sum.Permits > 2*20*sum.Runs {
			t.Errorf("%d nodes: %d permits, %d rejects in %d runs", n, sum.Permits, sum.Rejects, sum.Runs)
		}
		t.Logf("%d nodes: %d permits, %d rejects in %d runs", n, sum.Permits, sum.Rejects, sum.Runs)
	}
}

// TestTakeSweep: as TestQuotaSweep, the clients' takes of 1 to 5
// permits each, one quota of 40 permits (the sim's defaults) on 3 and 5
// nodes: no finding, and the quota spent in the sweep (rejects). The
// full sweeps are
// allot sim --kind service --random-faults --seeds 300 --quotas 1
// --take 5.
func TestTakeSweep(t *testing.T) {
	first := rand.Uint64() >> 1
	t.Logf("seeds %d.. (fresh each run)", first)
	for _, n := range []int{3, 5} {
		cfg := Config{Nodes: n, Clients: 4, Horizon: 20000, Delay: delay(t), Random: true, Quotas: 1, Budget: 40, Waste: 12, TakeMost: 5}
		sum, err := Sweep(cfg, seeds(int(first), 12), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f := sum.FirstFailed; f != nil {
			t.Errorf("%d nodes: %d of %d runs with findings; seed %d, faults %+v: %v", n, sum.Failed, sum.Runs, f.Seed, f.Faults, f.First)
		}
		if sum.Permits == 0 || sum.Rejects == 0 || sum.Permits > 40*sum.Runs {
			t.Errorf("%d nodes: %d permits, %d rejects in %d runs", n, sum.Permits, sum.Rejects, sum.Runs)
		}
		t.Logf("%d nodes: %d permits, %d rejects in %d runs", n, sum.Permits, sum.Rejects, sum.Runs)
	}
}

// TestSmallSemaphoreSweep: random fault schedules on 3 and 5 nodes with
// a small semaphore, of fewer units than a node's slots (R-RESOURCES on
// the view's slots): one of one unit on the default 2 slots, its clients
// contending for it as for a lock, and one of three units on 4 slots,
// also among eight clients (where TestFound's seeds 26 and 273 came
// from); no finding, and units granted and sessions
// adopted (their grants asked again on the adopter's slots). Fresh seeds
// each run; the full sweeps are allot sim --kind service --random-faults
// --seeds 300 --semaphores 1 --units 1 (and --slots 4 --units 3).
func TestSmallSemaphoreSweep(t *testing.T) {
	first := rand.Uint64() >> 1
	t.Logf("seeds %d.. (fresh each run)", first)
	for _, c := range []struct{ nodes, clients, units, slots int }{{3, 4, 1, 0}, {5, 4, 1, 0}, {3, 4, 3, 4}, {3, 8, 3, 4}} {
		cfg := Config{Nodes: c.nodes, Clients: c.clients, Horizon: 20000, Delay: delay(t), Random: true, Semaphores: 1, Units: c.units,
			Slots: c.slots}
		sum, err := Sweep(cfg, seeds(int(first), 12), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f := sum.FirstFailed; f != nil {
			t.Errorf("%+v: %d of %d runs with findings; seed %d, faults %+v: %v", c, sum.Failed, sum.Runs, f.Seed, f.Faults, f.First)
		}
		if sum.Units == 0 || sum.Adopted == 0 {
			t.Errorf("%+v: a sweep that tries little: %+v", c, sum)
		}
		t.Logf("%+v: %d units granted, %d adopted in %d runs", c, sum.Units, sum.Adopted, sum.Runs)
	}
}

// TestMismatchSweep: a third of the acquires give their semaphore
// other units (one less or one more) than the rest, two semaphores of
// 2 units (one of the others' units a small semaphore, one a large),
// under random fault schedules of fresh seeds on 3 and 5 nodes, with
// and without a refresh every 1.5 leases (which forgets the units of
// the semaphores nobody holds, each node's ready recording the held
// ones again): the
// nodes record each semaphore's units in the control log at its first
// use (and after each refresh) and refuse the others (UNITS_MISMATCH),
// and the checker finds
// nothing (capacity by the first grant's units, one-units); some
// acquires refused and some granted. The full sweeps are allot sim
// --kind service --random-faults --seeds 300 --semaphores 2 --mismatch
// 30 (docs/control.md).
func TestMismatchSweep(t *testing.T) {
	first := rand.Uint64() >> 1
	t.Logf("seeds %d.. (fresh each run)", first)
	for _, c := range []struct {
		nodes   int
		refresh proc.Time
	}{{3, 0}, {5, 0}, {3, 1500}, {5, 1500}} {
		cfg := Config{Nodes: c.nodes, Clients: 4, Horizon: 20000, Delay: delay(t), Random: true, Semaphores: 2, Units: 2, Mismatch: 30,
			RefreshEvery: c.refresh}
		sum, err := Sweep(cfg, seeds(int(first), 8), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f := sum.FirstFailed; f != nil {
			t.Errorf("%+v: %d of %d runs with findings; seed %d, faults %+v: %v", c, sum.Failed, sum.Runs, f.Seed, f.Faults, f.First)
		}
		if sum.Mismatched == 0 || sum.Units == 0 {
			t.Errorf("%+v: %d mismatched, %d units granted in %d runs", c, sum.Mismatched, sum.Units, sum.Runs)
		}
		t.Logf("%+v: %d mismatched, %d units granted, %d adopted in %d runs", c, sum.Mismatched, sum.Units, sum.Adopted, sum.Runs)
	}
}

// TestUnitsUnchecked: nodes that serve an Acquire with the units it
// gives, unchecked (units-unchecked), are caught on most seeds, by
// one-units or capacity: two clients naming one semaphore with
// different units use two instances of it. Measured (seeds 1..300,
// --semaphores 2 --mismatch 30, 3 nodes): see docs/control.md.
func TestUnitsUnchecked(t *testing.T) {
	cfg := Config{Nodes: 3, Clients: 4, Horizon: 20000, Delay: delay(t), Random: true, Semaphores: 2, Units: 2, Mismatch: 30,
		Variant: "units-unchecked"}
	sum, err := Sweep(cfg, seeds(1, 24), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed < sum.Runs/2 || sum.ByRule["one-units"] == 0 || sum.Mismatched != 0 {
		t.Errorf("units-unchecked: %d of %d runs caught, by %v; %d mismatched", sum.Failed, sum.Runs, sum.ByRule, sum.Mismatched)
	}
	t.Logf("units-unchecked: %d of %d runs caught, by %v", sum.Failed, sum.Runs, sum.ByRule)
}

func TestBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Nodes: 0, Clients: 1, Horizon: 10},
		{Nodes: 3, Clients: 0, Horizon: 10},
		{Nodes: 3, Clients: 1},
		{Nodes: 3, Clients: 1, Horizon: 10, Variant: "nope"},
		{Nodes: 3, Clients: 1, Horizon: 10, Semaphores: -1},
		{Nodes: 3, Clients: 1, Horizon: 10, Semaphores: 1},
		{Nodes: 3, Clients: 1, Horizon: 10, Variant: "sem-no-regrant"},
		{Nodes: 3, Clients: 1, Horizon: 10, Mismatch: 10},
		{Nodes: 3, Clients: 1, Horizon: 10, Semaphores: 1, Units: 2, Mismatch: -1},
		{Nodes: 3, Clients: 1, Horizon: 10, Semaphores: 1, Units: 2, Mismatch: 101},
		{Nodes: 3, Clients: 1, Horizon: 10, Semaphores: 1, Units: 2, Variant: "units-unchecked"},
		{Nodes: 3, Clients: 1, Horizon: 10, RefreshEvery: -1},
		{Nodes: 3, Clients: 1, Horizon: 10, Semaphores: 1, Units: 2, Mismatch: 30, Variant: "refresh-forgets-held"},
		{Nodes: 3, Clients: 1, Horizon: 10, Quotas: -1},
		{Nodes: 3, Clients: 1, Horizon: 10, Quotas: 1},
		{Nodes: 3, Clients: 1, Horizon: 10, Quotas: 1, Budget: 4, Waste: 5},
		{Nodes: 3, Clients: 1, Horizon: 10, Quotas: 1, Budget: 4, Waste: -1},
		{Nodes: 3, Clients: 1, Horizon: 10, Variant: "quota-no-persist"},
		{Nodes: 3, Clients: 1, Horizon: 10, TakeMost: -1},
		{Nodes: 3, Clients: 1, Horizon: 10, Try: -1},
		{Nodes: 3, Clients: 1, Horizon: 10, Try: 101},
		{Nodes: 3, Clients: 1, Horizon: 10, Variant: "try-leaks"},
		{Nodes: 3, Clients: 1, Horizon: 10, TakeMost: 2},
		{Nodes: 3, Clients: 1, Horizon: 10, Quotas: 1, Budget: 4, TakeMost: 5},
		{Nodes: 3, Clients: 1, Horizon: 10, Quotas: 1, Budget: 4, Variant: "take-count-late"},
		{Nodes: 3, Clients: 1, Horizon: 10, Slots: -1},
		{Nodes: 3, Clients: 1, Horizon: 10, Slots: MaxSlots + 1},
		{Nodes: 3, Clients: 1, Horizon: 10, Faults: Faults{Slow: []Slow{{P: 1, Start: 5, End: 4, Factor: 2}}}},
		{Nodes: 3, Clients: 1, Horizon: 10, MaxSessions: -1},
		{Nodes: 3, Clients: 1, Horizon: 10, MaxLocks: -1},
		{Nodes: 3, Clients: 1, Horizon: 10, Variant: "regrant-within-limits"},
		{Nodes: 3, Clients: 1, Horizon: 10, Hold: -1},
		{Nodes: 3, Clients: 1, Horizon: 10, AcquireOnly: true},
		{Nodes: 3, Clients: 1, Horizon: 10, Hold: CS + 1},
		{Nodes: 3, Clients: 2, Horizon: 10, Hold: CS + 1, AcquireOnly: true, Semaphores: 1, Units: 1},
	} {
		if _, err := Run(cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

// TestFound replays the seeds on which the sweeps found a fault of the
// data plane's rules, each fixed since (dataplane's package doc says
// where the model departs from service/ for them):
//
//	124  an end acknowledged after the node's lost fence taken as recorded,
//	     while the backup had adopted the session (grant-after-end)
//	615  a node rejoined after a lost fence adopts the records its old
//	     generation kept, stale (grant-after-end)
//	784  records resent by a link to a backup restarted since, kept there
//	     and adopted later (grant-after-end; the clients' give-up since
//	     changed this run: dataplane's TestKeepGenerations shows the rule)
//	862  a client asking again, in its session, for a lock whose answer
//	     was lost with its node: it waits behind its own grant
//	     (unanswered; the client closed the session then, and now asks
//	     the session's node Holders and claims the grant, as client/)
//
// and, with one quota (--quotas 1):
//
//	274  an end made before a lost fence, pushed again at the backup of
//	     the node's next view and taken as recorded there, while another
//	     node had adopted the session (grant-after-end)
//
// and with eight clients (--clients 8):
//
//	26   a give-back answered SESSION_MOVING by the backup just before it
//	     adopted the session, whose keep-alives it then answered: the
//	     client (svcsim's) never made it again, and every lock waited
//	     behind the grant to the end (unanswered; client.go, owedAgain)
//	273  (a small semaphore of 3 units on 4 slots) a node rejoined after a
//	     lost fence, of a new generation, kept its outbox to an unchanged
//	     backup, whose answers, of its old generation, it dropped: an
//	     end never done (outlived; node.go, outGen, as primary.go's
//	     moveBackup)
//
// and with two semaphores, other units and refreshes (--semaphores 2
// --mismatch 30 --refresh-every 500):
//
//	160  a give-back node 2 answered before its backup had it (node 2
//	     cut off): node 0 adopted the session holding the grant, and,
//	     once the client no longer closed its session for a request cut
//	     off by the move, it asked the same name again in the session
//	     and waited behind its own grant to the end (unanswered; the
//	     client now gives back again at the session's new node what it
//	     gave back elsewhere, client/'s giveAgain)
//
// and with long holds (--horizon 80000 --clients 8 --semaphores 1
// --units 8 --acquire-only --hold 40000):
//
//	7    node 0, paused for 7.6 s while its sessions were adopted and kept
//	     alive at node 1, answered the keep-alives sent to it before the
//	     clients moved "expired"; the client (svcsim's) took that for its
//	     current keep-alive's answer and ended a session it counted on
//	     (expired-alive; client.go: an answer to a call given up says
//	     nothing, as client/'s canceled call)
func TestFound(t *testing.T) {
	for _, c := range []struct {
		seed                  uint64
		clients, quotas, sems int
		slots, units          int
	}{{124, 4, 0, 0, 0, 0}, {615, 4, 0, 0, 0, 0}, {784, 4, 0, 0, 0, 0}, {862, 4, 0, 0, 0, 0}, {274, 4, 1, 0, 0, 0},
		{26, 8, 0, 0, 0, 0}, {273, 8, 0, 1, 4, 3}} {
		seed := c.seed
		r, err := Run(Config{Nodes: 3, Clients: c.clients, Seed: seed, Horizon: 20000, Delay: delay(t), Random: true,
			Quotas: c.quotas, Budget: 40, Waste: 12, Semaphores: c.sems, Slots: c.slots, Units: c.units})
		if err != nil {
			t.Fatal(err)
		}
		if r.Findings > 0 {
			t.Errorf("seed %d: %v", seed, r.First)
		}
	}
	r, err := Run(Config{Nodes: 3, Clients: 4, Seed: 160, Horizon: 20000, Delay: delay(t), Random: true,
		Semaphores: 2, Units: 2, Mismatch: 30, RefreshEvery: 500})
	if err != nil {
		t.Fatal(err)
	}
	if r.Findings > 0 {
		t.Errorf("seed 160, refreshes: %v", r.First)
	}
	r, err = Run(Config{Nodes: 3, Clients: 8, Seed: 7, Horizon: 80000, Delay: delay(t), Random: true,
		Semaphores: 1, Units: 8, AcquireOnly: true, Hold: 40000})
	if err != nil {
		t.Fatal(err)
	}
	if r.Findings > 0 || r.Adopted == 0 {
		t.Errorf("seed 7, long holds: %d adopted, %v", r.Adopted, r.First)
	}
}

// TestLimitsSweep: random fault schedules with the nodes' limits small
// enough to refuse often: one lock request open at a node among eight
// clients (--max-locks 1), and two sessions and two requests of a large
// semaphore at a node (--max-sessions 2); no finding, and requests
// refused (NODE_LIMIT) and sessions adopted (adopters past their
// limits). Fresh seeds each run.
func TestLimitsSweep(t *testing.T) {
	first := rand.Uint64() >> 1
	t.Logf("seeds %d.. (fresh each run)", first)
	for _, c := range []struct{ clients, maxSessions, maxLocks, sems, units int }{{8, 0, 1, 0, 0}, {8, 2, 0, 1, 4}, {8, 2, 1, 1, 4}} {
		cfg := Config{Nodes: 3, Clients: c.clients, Horizon: 20000, Delay: delay(t), Random: true, Semaphores: c.sems, Units: c.units,
			MaxSessions: c.maxSessions, MaxLocks: c.maxLocks}
		sum, err := Sweep(cfg, seeds(int(first), 12), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f := sum.FirstFailed; f != nil {
			t.Errorf("%+v: %d of %d runs with findings; seed %d, faults %+v: %v", c, sum.Failed, sum.Runs, f.Seed, f.Faults, f.First)
		}
		if sum.Refused == 0 || sum.Grants == 0 || sum.Adopted == 0 {
			t.Errorf("%+v: a sweep that tries little: %+v", c, sum)
		}
		t.Logf("%+v: %d refused, %d grants, %d adopted in %d runs", c, sum.Refused, sum.Grants, sum.Adopted, sum.Runs)
	}
}

// limitCatch is a run where regrant-within-limits is caught: node 2
// crashes, and its sessions' grants of a large semaphore are adopted by
// a node that holds two of its own, its most (--max-sessions 2); held
// long (most of the run), the grants past the limit wait, broken, for a
// user given back, and no view serves meanwhile: a request waits past
// Bound (unanswered). Holds that long need acquires only, of a unit per
// client, which never wait behind a holder (checkHold). Caught in 12 of
// seeds 1..30.
func limitCatch(t *testing.T) Config {
	return Config{Nodes: 3, Clients: 6, Horizon: 100000, Delay: delay(t), Faults: Faults{Faults: ctlsim.Faults{Crashes: []sim.Crash{{P: 2, At: 20000}}}},
		Semaphores: 1, Units: 6, AcquireOnly: true, Hold: 200000, MaxSessions: 2}
}

// TestRegrantWithinLimits: the broken variant is caught (unanswered) on
// seed 2 of limitCatch's run, and the faithful model, on the same
// settings, finds nothing over fresh seeds while the adopter is past
// its limit (sessions adopted, requests refused).
func TestRegrantWithinLimits(t *testing.T) {
	cfg := limitCatch(t)
	cfg.Variant, cfg.Seed = "regrant-within-limits", 2
	r, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.ByRule["unanswered"] == 0 {
		t.Errorf("regrant-within-limits, seed 2: not caught (%+v)", r.ByRule)
	} else {
		t.Logf("regrant-within-limits, seed 2: %s", r.First[0])
	}
	first := rand.Uint64() >> 1
	t.Logf("faithful: seeds %d.. (fresh each run)", first)
	cfg.Variant = ""
	sum, err := Sweep(cfg, seeds(int(first), 12), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := sum.FirstFailed; f != nil {
		t.Errorf("faithful: %d of %d runs with findings; seed %d: %v", sum.Failed, sum.Runs, f.Seed, f.First)
	}
	if sum.Adopted == 0 || sum.Refused == 0 {
		t.Errorf("faithful: a sweep that tries little: %+v", sum)
	}
	t.Logf("faithful: %d adopted, %d refused, %d units granted in %d runs", sum.Adopted, sum.Refused, sum.Units, sum.Runs)
}

// lateGrants counts the grants answered to clients from tick from on: a
// lock's and a semaphore's unit's.
type lateGrants struct {
	from        proc.Time
	locks, sems int
}

func (g *lateGrants) Event(e proc.Event) {
	if e.Kind != proc.EvEnter || e.Time < g.from || e.S == nil {
		return
	}
	if e.S.Units > 0 {
		g.sems++
	} else {
		g.locks++
	}
}

// TestLimitsKeepServing: at their limits (--max-locks 1, --max-sessions
// 2, eight clients), across a crash and a restart that move sessions
// and grants, the nodes still grant locks and units in the run's last
// quarter: the users and sessions given back are counted back (a leak
// would leave every request refused, an answer the checker accepts).
// Fresh seeds each run.
func TestLimitsKeepServing(t *testing.T) {
	first := rand.Uint64() >> 1
	t.Logf("seeds %d.. (fresh each run)", first)
	f := Faults{Faults: ctlsim.Faults{Crashes: []sim.Crash{{P: 0, At: 5000}}, Restarts: []sim.Restart{{P: 0, At: 7000}}}}
	for i := range uint64(4) {
		g := &lateGrants{from: 15000}
		r, err := Run(Config{Nodes: 3, Clients: 8, Seed: first + i, Horizon: 20000, Delay: delay(t), Faults: f,
			Semaphores: 1, Units: 4, MaxSessions: 2, MaxLocks: 1, Sink: g})
		if err != nil {
			t.Fatal(err)
		}
		if r.Findings > 0 || r.Refused == 0 || g.locks == 0 || g.sems == 0 {
			t.Errorf("seed %d: %d refused, %d locks and %d units granted after t=15000, findings %v", r.Seed, r.Refused, g.locks, g.sems, r.First)
		}
	}
}

// TestTrySweep: half the clients' requests are tries, on 3 and 5 nodes,
// locks only and with a semaphore (central-pool, which cannot say it
// waits behind another: its tries give up on TryWait), over fresh random
// seeds (printed): no finding, and tries both granted and answered
// TAKEN. The 300-seed sweeps are allot sim --kind service --try 50.
func TestTrySweep(t *testing.T) {
	first := rand.Uint64() >> 1
	t.Logf("seeds %d.. (fresh each run)", first)
	for _, c := range []struct{ nodes, sems, units int }{{3, 0, 0}, {5, 0, 0}, {3, 1, 2}} {
		cfg := Config{Nodes: c.nodes, Clients: 4, Horizon: 20000, Delay: delay(t), Random: true, Semaphores: c.sems, Units: c.units, Try: 50}
		sum, err := Sweep(cfg, seeds(int(first), 8), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f := sum.FirstFailed; f != nil {
			t.Errorf("%+v: %d of %d runs with findings; seed %d: %v", c, sum.Failed, sum.Runs, f.Seed, f.First)
		}
		if sum.TriesGranted == 0 || sum.Taken == 0 || sum.Adopted == 0 {
			t.Errorf("%+v: a sweep that tries little: %+v", c, sum)
		}
		t.Logf("%+v: tries %d, granted %d, taken %d, grants %d in %d runs", c, sum.Tries, sum.TriesGranted, sum.Taken, sum.Grants, sum.Runs)
	}
}

// TestNamesStale: a regrant that keeps its names' ids of the view before
// (names-stale) is caught by one-holder on seed 1 of eight clients (6 of
// seeds 1..300: allot sim --kind service --random-faults --clients 8
// --seeds 300 --variant names-stale): another client's request of the
// name gets the id its home gives it afresh in the new view, and the
// holder holds the old one. The model resolving again finds nothing over
// fresh seeds of the same settings, its requests asking homes.
func TestNamesStale(t *testing.T) {
	cfg := Config{Nodes: 3, Clients: 8, Horizon: 20000, Delay: delay(t), Random: true, Seed: 1, Variant: "names-stale"}
	r, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.ByRule["one-holder"] == 0 {
		t.Errorf("names-stale, seed 1: not caught by one-holder (%+v)", r.ByRule)
	} else {
		t.Logf("names-stale, seed 1: %s", r.First[0])
	}
	cfg.Variant, cfg.Seed = "", 0
	first := rand.Uint64() >> 1
	t.Logf("seeds %d.. (fresh each run)", first)
	sum, err := Sweep(cfg, seeds(int(first), 48), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.FirstFailed != nil {
		f := sum.FirstFailed
		t.Errorf("%d of %d runs with findings; seed %d: %v", sum.Failed, sum.Runs, f.Seed, f.First)
	}
	if sum.Grants == 0 || sum.Adopted == 0 {
		t.Errorf("a sweep that tries little: %+v", sum)
	}
	t.Logf("%+v", sum)
}
