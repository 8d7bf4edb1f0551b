package run

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/all"
	"github.com/allot-dev/allot/scenario"
)

func plan(t *testing.T, edit func(*scenario.Scenario)) *scenario.Plan {
	t.Helper()
	s := scenario.Default()
	s.Requests = 400
	edit(&s)
	p, err := scenario.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExecuteIsDeterministicAndMeasured(t *testing.T) {
	p := plan(t, func(s *scenario.Scenario) { s.Graph = "ring:8" })
	a, _ := all.Lookup("hygienic")
	r1, err := Execute(p, a, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := Execute(p, a, nil, nil)
	r1.WallSeconds, r1.EventsPerSecond, r2.WallSeconds, r2.EventsPerSecond = 0, 0, 0, 0
	if !reflect.DeepEqual(r1, r2) {
		t.Errorf("same plan, different results:\n%+v\n%+v", r1, r2)
	}
	if r1.Served < 400 || r1.SafetyViolations != 0 || r1.Starved != 0 || r1.Deadlock || r1.Messages.Total == 0 || r1.Processes != 8 {
		t.Errorf("result %+v", r1)
	}
}

func TestExecuteCrashBeyondTheProcessesIsBadInput(t *testing.T) {
	p := plan(t, func(s *scenario.Scenario) { s.Graph = "ring:5"; s.Crash = []string{"7@10"} })
	a, _ := all.Lookup("hygienic")
	_, err := Execute(p, a, nil, nil)
	if _, ok := err.(BadInput); !ok {
		t.Errorf("got %v, want BadInput", err)
	}
}

func TestExecuteReportsFailureLocality(t *testing.T) {
	p := plan(t, func(s *scenario.Scenario) { s.Graph = "grid:4x4"; s.Crash = []string{"5@100"} })
	a, _ := all.Lookup("threshold")
	r, err := Execute(p, a, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.FailureLocality == nil || *r.FailureLocality > 2 {
		t.Errorf("threshold's failure locality %v, want at most 2", r.FailureLocality)
	}
}

func TestBuildRefusesWhatCannotFit(t *testing.T) {
	p := plan(t, func(s *scenario.Scenario) { s.Graph = "ring:1000" })
	a, _ := all.Lookup("hygienic")
	p.Memory = Footprint(p.Problem, a) - 1
	_, err := Build(p, a)
	if !errors.Is(err, algo.ErrTooLarge) || !strings.Contains(err.Error(), "GiB") {
		t.Errorf("got %v, want a refusal with the estimate", err)
	}
	p.Memory = Footprint(p.Problem, a)
	if _, err := Build(p, a); err != nil {
		t.Errorf("a run that fits: %v", err)
	}
	central, _ := all.Lookup("central")
	bidding, _ := all.Lookup("bidding")
	dyn := plan(t, func(s *scenario.Scenario) { s.Graph, s.Users, s.Resources, s.Demand = "", 10, 100000, "1" })
	if c, b := Footprint(dyn.Problem, central), Footprint(dyn.Problem, bidding); b < c-100000*central.ResourceBytes+100000*bytesPerProcess {
		t.Errorf("bidding's granters are not counted: central %d, bidding %d bytes", c, b)
	}
}

// TestFaultFreeRunsStarveNoOne: every catalogue algorithm, on small
// workloads of its kind, answers every request of a fault-free run that
// drains: none starved, none left open.
func TestFaultFreeRunsStarveNoOne(t *testing.T) {
	for _, a := range all.List() {
		for _, edit := range []func(*scenario.Scenario){
			func(s *scenario.Scenario) { s.Graph = "grid:3x3" },
			func(s *scenario.Scenario) { s.Graph, s.Users, s.Resources, s.Demand = "", 8, 6, "1:3" },
		} {
			s := scenario.Default()
			s.Requests, s.Algo, s.FIFO = 300, []string{a.Name}, a.NeedsFIFO
			edit(&s)
			switch a.Kind {
			case algo.Pool:
				if s.Graph == "" {
					continue
				}
				s.Kind, s.Units = "pool", 3
			case algo.Quota:
				if s.Graph == "" {
					continue
				}
				s.Kind, s.Budget, s.Waste = "quota", 200, 20
			}
			p, err := scenario.Compile(s)
			if err != nil {
				t.Fatalf("%s: %v", a.Name, err)
			}
			r, err := Execute(p, a, nil, nil)
			if err != nil {
				t.Fatalf("%s on %s: %v", a.Name, s.Graph, err)
			}
			if r.Starved != 0 || r.Open != 0 || r.Deadlock {
				t.Errorf("%s on %q (%d users): %d starved, %d open, deadlock %v", a.Name, s.Graph, r.Users, r.Starved, r.Open, r.Deadlock)
			}
		}
	}
}

// A coordinator's tables grow with the resources, not only with the users:
// ten users over a hundred million resources are refused for their size.
func TestFootprintCountsResourceTables(t *testing.T) {
	p := plan(t, func(s *scenario.Scenario) { s.Graph, s.Users, s.Resources, s.Demand = "", 10, 1000, "1" })
	a, _ := all.Lookup("central")
	small := Footprint(p.Problem, a)
	p.Problem.Resources = 100_000_000
	if big := Footprint(p.Problem, a); big-small < (100_000_000-1000)*a.ResourceBytes || a.ResourceBytes == 0 {
		t.Fatalf("footprint %d at 1e8 resources, %d at 1000: the coordinator's tables are not counted", big, small)
	}
	p.Memory = 6 << 30
	if _, err := Build(p, a); !errors.Is(err, algo.ErrTooLarge) || !strings.Contains(err.Error(), "100000000 resources") {
		t.Errorf("got %v, want a refusal naming the resources", err)
	}
}

// TestFitsGraphIsALowerBound: a graph is refused before it is built only
// when no algorithm of any kind could fit on it (each one's Footprint is at
// least GraphFootprint), and a graph that cannot fit is refused with its
// size and the machine's.
func TestFitsGraphIsALowerBound(t *testing.T) {
	for _, kind := range []string{"exclusive", "pool", "quota"} {
		p := plan(t, func(s *scenario.Scenario) {
			s.Kind, s.Graph = kind, "grid:10x10"
			switch kind {
			case "pool":
				s.Units = 3
			case "quota":
				s.Budget, s.Waste = 50, 5
			}
		})
		least := GraphFootprint(100, 180)
		for _, a := range all.OfKind(p.Kind) {
			if f := Footprint(p.Problem, a); f < least {
				t.Errorf("%s on grid:10x10: Footprint %d below the bound %d that refuses graphs", a.Name, f, least)
			}
		}
	}
	if err := FitsGraph("ring:50000000", 20<<30); !errors.Is(err, algo.ErrTooLarge) || !strings.Contains(err.Error(), "50.7 GiB") || !strings.Contains(err.Error(), "20.0 GiB") {
		t.Errorf("ring:50000000 in 20 GiB: %v, want a refusal saying 50.7 GiB and 20.0 GiB", err)
	}
	for _, ok := range []struct {
		spec   string
		memory int64
	}{{"ring:1000", 20 << 30}, {"ring:50000000", 0}, {"matrix:3:4", 1}} {
		if err := FitsGraph(ok.spec, ok.memory); err != nil {
			t.Errorf("%s in %d B: %v, want no refusal", ok.spec, ok.memory, err)
		}
	}
}
