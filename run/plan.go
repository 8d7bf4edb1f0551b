// Package run turns a scenario into simulator runs and their reports: it
// validates the scenario, builds the problem once, runs each algorithm on
// it with the same seed, and measures every run with the checkers and
// metrics, which read only the event stream.
//
//	Scenario ──Compile──> Plan ──Execute(algo)──> sim.Run ──events──> check, metrics, trace
//	                                                  └──────────────> Report (JSON / table)
package run

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"allot/algo"
	"allot/algo/all"
	"allot/dist"
	"allot/graph"
	"allot/proc"
	"allot/sim"
	"allot/workload"
)

// Plan is a validated scenario, ready to run.
type Plan struct {
	Scenario workload.Scenario
	Kind     algo.Kind
	Algos    []algo.Algorithm
	Problem  *algo.Problem
	Next     func(proc.ID, *rand.Rand) proc.Request
	Config   sim.Config // without Sink
	Graph    string     // the graph spec, or "" for a dynamic workload
	// Skipped names the algorithms left out of a default list because
	// they need FIFO channels and the scenario has none.
	Skipped []string
}

// Compile validates s and builds its problem. Errors are the user's: they
// name the flag or field at fault.
func Compile(s workload.Scenario) (*Plan, error) {
	p := &Plan{Scenario: s}
	var err error
	if s.Kind == "" {
		s.Kind = "exclusive"
	}
	if p.Kind, err = algo.ParseKind(s.Kind); err != nil {
		return nil, fmt.Errorf("--kind: %w", err)
	}
	if len(s.Algo) == 0 {
		for _, a := range all.OfKind(p.Kind) {
			if a.NeedsFIFO && !s.FIFO {
				p.Skipped = append(p.Skipped, a.Name)
				continue
			}
			p.Algos = append(p.Algos, a)
		}
		if len(p.Algos) == 0 {
			return nil, fmt.Errorf("no %s algorithms are available yet", p.Kind)
		}
	}
	for _, name := range s.Algo {
		a, err := all.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("--algo: %w", err)
		}
		if a.Kind != p.Kind {
			return nil, fmt.Errorf("--algo %s solves %s problems, not %s (set --kind)", a.Name, a.Kind, p.Kind)
		}
		if a.NeedsFIFO && !s.FIFO {
			return nil, fmt.Errorf("--algo %s needs FIFO channels: pass --fifo", a.Name)
		}
		p.Algos = append(p.Algos, a)
	}
	if s.Requests < 0 {
		return nil, fmt.Errorf("--requests must be positive, not %d", s.Requests)
	}
	if s.Requests == 0 && s.Horizon <= 0 {
		return nil, fmt.Errorf("--requests or --horizon must be set, or the run never ends")
	}
	if s.Horizon < 0 || s.Cost < 0 {
		return nil, fmt.Errorf("--horizon and --cost must not be negative")
	}
	c := sim.Config{Seed: s.Seed, Requests: s.Requests, Horizon: proc.Time(s.Horizon), Net: sim.Network{FIFO: s.FIFO, Cost: proc.Time(s.Cost)}}
	for _, d := range []struct {
		flag, spec string
		to         *dist.Dist
	}{{"--think", s.Think, &c.Work.Think}, {"--cs", s.CS, &c.Work.CS}, {"--delay", s.Delay, &c.Net.Delay}} {
		if d.spec == "" {
			continue
		}
		if *d.to, err = dist.Parse(d.spec); err != nil {
			return nil, fmt.Errorf("%s: %w", d.flag, err)
		}
	}
	// Drain long enough for a queue of requests to clear, short enough to
	// stop a run whose timers never fall silent.
	c.Drain = proc.Time(1000 + 200*(c.Net.Delay.Mean()+c.Work.CS.Mean()))
	rnd := rand.New(rand.NewPCG(s.Seed, 0x70726f62))
	if err := p.problem(&s, rnd); err != nil {
		return nil, err
	}
	p.Problem.FIFO = s.FIFO
	p.Problem.Options = s.Options
	if len(s.Failure) > 0 {
		f := make([]float64, p.Problem.Users)
		for u := range f {
			f[u] = s.Failure[min(u, len(s.Failure)-1)]
			if f[u] < 0 || f[u] > 1 {
				return nil, fmt.Errorf("failure: likelihood %v is not in [0,1]", f[u])
			}
		}
		p.Problem.Failure = f
	}
	for _, cr := range s.Crash {
		for _, one := range strings.Split(cr, ",") {
			ps, ts, ok := strings.Cut(one, "@")
			pid, err1 := strconv.Atoi(ps)
			at, err2 := strconv.ParseInt(ts, 10, 64)
			if !ok || err1 != nil || err2 != nil || pid < 0 || at < 0 {
				return nil, fmt.Errorf("--crash %q: want P@T with a process id and a tick", one)
			}
			c.Net.Crashes = append(c.Net.Crashes, sim.Crash{P: proc.ID(pid), At: proc.Time(at)})
		}
	}
	if s.Speeds != "" {
		sp, err := sim.ParseSpeeds(s.Speeds)
		if err != nil {
			return nil, fmt.Errorf("--speeds: %w", err)
		}
		// The schedule is a function of (process, time): the algorithms
		// run one after another may share it.
		sp.Users, sp.Seed = p.Problem.Users, s.Seed
		c.Net.Speed = sp
	}
	c.Work.Next = p.Next
	p.Config = c
	p.Scenario = s
	return p, nil
}

// problem builds the instance: a graph, or a dynamic workload.
func (p *Plan) problem(s *workload.Scenario, rnd *rand.Rand) error {
	dynamic := s.Users != 0 || s.Resources != 0 || s.Demand != ""
	switch p.Kind {
	case algo.Exclusive:
		if dynamic && s.Graph != "" {
			return fmt.Errorf("--graph and --users/--resources/--demand describe two different workloads: give one")
		}
		if s.Units != 0 || s.Budget != 0 || s.Waste != 0 {
			return fmt.Errorf("--units, --budget and --waste are for --kind pool and quota")
		}
		if dynamic {
			d := workload.Dynamic{Users: s.Users, Resources: s.Resources, FixedSets: s.FixedSets}
			if err := parseDemand(s.Demand, &d); err != nil {
				return err
			}
			pb, next, err := d.Problem(rnd)
			if err != nil {
				return err
			}
			p.Problem, p.Next = pb, next
			return nil
		}
		if s.FixedSets {
			return fmt.Errorf("--fixed-sets goes with --users/--resources/--demand")
		}
		if workload.IsMatrix(s.Graph) {
			// A lower-bound network: users want a row and a column of a
			// matrix of resources (no conflict graph's edges).
			m, err := workload.ParseMatrix(s.Graph)
			if err != nil {
				return fmt.Errorf("--graph: %w", err)
			}
			p.Graph = s.Graph
			p.Problem, err = m.Problem()
			return err
		}
		g, err := parseGraph(s.Graph, rnd)
		if err != nil {
			return err
		}
		p.Graph = s.Graph
		p.Problem = algo.DiningProblem(g)
		return nil
	default:
		if dynamic {
			return fmt.Errorf("--users/--resources/--demand are for --kind exclusive; %s runs on --graph", p.Kind)
		}
		g, err := parseGraph(s.Graph, rnd)
		if err != nil {
			return err
		}
		p.Graph = s.Graph
		p.Problem = &algo.Problem{Kind: p.Kind, Users: g.N(), Graph: g, Units: s.Units, Budget: s.Budget, Waste: s.Waste}
		if p.Kind == algo.Pool && (s.Units < 1 || s.Units >= g.N()) {
			return fmt.Errorf("--units must be between 1 and the number of nodes - 1 (%d), not %d", g.N()-1, s.Units)
		}
		if p.Kind == algo.Quota && (s.Budget < 1 || s.Waste < 0 || s.Waste > s.Budget) {
			return fmt.Errorf("--budget must be positive and 0 ≤ --waste ≤ --budget (got %d, %d)", s.Budget, s.Waste)
		}
		return nil
	}
}

func parseGraph(spec string, rnd *rand.Rand) (*graph.Graph, error) {
	if spec == "" {
		return nil, fmt.Errorf("--graph is required (%s)", graph.Specs)
	}
	g, err := graph.Parse(spec, rnd)
	if err != nil {
		return nil, fmt.Errorf("--graph: %w", err)
	}
	return g, nil
}

func parseDemand(spec string, d *workload.Dynamic) error {
	if spec == "" {
		return fmt.Errorf("--demand is required with --users and --resources")
	}
	lo, hi, two := strings.Cut(spec, ":")
	k1, err1 := strconv.Atoi(lo)
	k2, err2 := k1, error(nil)
	if two {
		k2, err2 = strconv.Atoi(hi)
	}
	if err1 != nil || err2 != nil {
		return fmt.Errorf("--demand %q: want K or K:K2", spec)
	}
	d.MinDemand, d.MaxDemand = k1, k2
	return nil
}
