package svcsim

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/explore"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// exploreAdoption searches cfg from 2 ticks before the first adoption
// (at), and fails the test on an error or a finding.
func exploreAdoption(t *testing.T, cfg ExploreConfig) (r *explore.TimedResult, at proc.Time) {
	t.Helper()
	at, err := cfg.Locate(proc.EvAdopted, 20000)
	if err != nil {
		t.Fatal(err)
	}
	cfg.From = at - 2
	if r, err = Explore(cfg); err != nil {
		t.Fatal(err)
	}
	if r.Violations > 0 {
		t.Fatalf("%s", r.Counter.What)
	}
	return r, at
}

// TestExploreViewChange: node 1, the node the client's session is on,
// crashes at tick 2000 (the warm-up's schedule), may restart at any step
// of the search, and the search starts 2 ticks before its backup adopts
// its session: every order of events the timing allows through the
// adoption, judged by check.Service, no finding; the states after the
// adoption are counted.
// (The documented run, allot explore --kind service --crash 1@2000
// --restart 1 --from adopt, goes deeper.)
func TestExploreViewChange(t *testing.T) {
	cfg := ExploreConfig{Nodes: 3, Clients: 1, Seed: 1, MinDelay: 1, MaxDelay: 3,
		CrashAt: []sim.Crash{{P: 1, At: 2000}}, Restart: []proc.ID{1}, MaxDepth: 8, MaxStates: 300}
	r, at := exploreAdoption(t, cfg)
	if r.WarmupEnd < 2000 || r.WarmupEnd >= at || r.Marked["adopted"] == 0 || r.Restarts == 0 {
		t.Errorf("adopted at %d: %+v", at, r)
	}
	t.Logf("adopted at tick %d; %+v", at, r)
}

// TestExploreCatchesVariant: adopt-fresh-ttl (an adopter gives the
// session a fresh TTL) with node 0, the session's, crashed at tick 3000
// on seed 3: the session its backup adopts runs 95 ticks past its bound
// (rule outlived), found by the search from tick 6998 with a
// counterexample; the faithful data plane, searched the same, has no
// finding.
func TestExploreCatchesVariant(t *testing.T) {
	cfg := ExploreConfig{Nodes: 3, Clients: 1, Seed: 3, MinDelay: 1, MaxDelay: 3,
		CrashAt: []sim.Crash{{P: 0, At: 3000}}, From: 6998, MaxDepth: 10, Variant: "adopt-fresh-ttl"}
	r, err := Explore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Counter == nil || !strings.Contains(r.Counter.What, "outlived") || r.Counter.Length == 0 {
		t.Fatalf("adopt-fresh-ttl not caught in the search: %+v", r)
	}
	t.Logf("caught: %s (%d steps after tick %d)", r.Counter.What, r.Counter.Length, r.WarmupEnd)
	cfg.Variant = ""
	if r, err = Explore(cfg); err != nil || r.Violations > 0 {
		t.Errorf("the faithful plane: %+v, %v", r, err)
	}
}

// TestExploreSemaphores: two clients contending for a semaphore of one
// unit, a small one (R-RESOURCES on the slots), and of two, a large one
// (central-pool), and the lock, node 2 (the sessions') crashed at tick
// 2000 on seed 2 and back at any step: every order of events through its
// sessions' adoption, their grants held again in the new view, and no
// finding (capacity among the rules).
func TestExploreSemaphores(t *testing.T) {
	for _, units := range []int{1, 2} {
		cfg := ExploreConfig{Nodes: 3, Clients: 2, Seed: 2, MinDelay: 1, MaxDelay: 3, Semaphores: 1, Units: units,
			CrashAt: []sim.Crash{{P: 2, At: 2000}}, Restart: []proc.ID{2}, MaxDepth: 8, MaxStates: 400}
		r, at := exploreAdoption(t, cfg)
		if r.Marked["adopted"] == 0 || r.Marked["regrant"] == 0 {
			t.Errorf("%d units: adopted at %d: %+v", units, at, r)
		}
		t.Logf("%d units: adopted at tick %d; %+v", units, at, r)
	}
	if _, err := Explore(ExploreConfig{Nodes: 3, Clients: 1, MinDelay: 1, MaxDelay: 3, MaxDepth: 1, Variant: "sem-no-regrant"}); err == nil {
		t.Errorf("sem-no-regrant explored without semaphores")
	}
}

// TestExploreQuotas: two clients taking permits of a quota of 6 (waste
// 2: a chunk of one permit on 3 nodes, each permit past the first
// waiting for its node's report), node 2 (the sessions') crashed at
// tick 2000 and back on its disk at any step (its counts with it):
// every order of events through its sessions' adoption, and no finding
// (budget among the rules).
func TestExploreQuotas(t *testing.T) {
	cfg := ExploreConfig{Nodes: 3, Clients: 2, Seed: 1, MinDelay: 1, MaxDelay: 3, Quotas: 1, Budget: 6, Waste: 2,
		CrashAt: []sim.Crash{{P: 2, At: 2000}}, Restart: []proc.ID{2}, MaxDepth: 8, MaxStates: 400}
	r, at := exploreAdoption(t, cfg)
	if r.Marked["adopted"] == 0 || r.Restarts == 0 {
		t.Errorf("adopted at %d: %+v", at, r)
	}
	t.Logf("adopted at tick %d; %+v", at, r)
	if _, err := Explore(ExploreConfig{Nodes: 3, Clients: 1, MinDelay: 1, MaxDelay: 3, MaxDepth: 1, Variant: "quota-no-persist"}); err == nil {
		t.Errorf("quota-no-persist explored without quotas")
	}
}
