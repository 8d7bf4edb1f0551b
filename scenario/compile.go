package scenario

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/all"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/workload"
)

// FieldError is an error in one field of a scenario, or in fields that do
// not go together.
type FieldError struct {
	// Fields are the YAML keys at fault, which the CLI also uses as flag
	// names.
	Fields []string
	Err    error
}

func (e *FieldError) Error() string { return strings.Join(e.Fields, ", ") + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(field string, err error) error { return &FieldError{[]string{field}, err} }

func fieldErrf(field, format string, args ...any) error {
	return &FieldError{[]string{field}, fmt.Errorf(format, args...)}
}

// fieldsErr is an error in fields that do not go together.
func fieldsErr(fields []string, format string, args ...any) error {
	return &FieldError{fields, fmt.Errorf(format, args...)}
}

// Plan is a validated scenario, ready to run.
type Plan struct {
	Scenario Scenario
	Kind     algo.Kind
	Algos    []algo.Algorithm
	Problem  *algo.Problem
	Next     func(proc.ID, *rand.Rand) proc.Request
	Config   sim.Config // without Sink
	Graph    string     // the graph spec, or "" for a dynamic workload
	// Memory, when positive, is the memory a run may use, in bytes: a run
	// estimated to need more is refused before it is built (the driver's
	// machine is the caller's to know).
	Memory int64
	// Skipped names the algorithms left out of a default list because
	// they need FIFO channels and the scenario has none.
	Skipped []string
}

// Compile validates s and builds its problem. Errors are the user's: they
// name the flag or field at fault.
func Compile(s Scenario) (*Plan, error) {
	p := &Plan{Scenario: s}
	var err error
	if s.Kind == "" {
		s.Kind = "exclusive"
	}
	if p.Kind, err = algo.ParseKind(s.Kind); err != nil {
		return nil, fieldErr("kind", err)
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
			return nil, fieldErr("algo", err)
		}
		if a.Kind != p.Kind {
			return nil, fieldErrf("algo", "%s solves %s problems, not %s (set kind)", a.Name, a.Kind, p.Kind)
		}
		if a.NeedsFIFO && !s.FIFO {
			return nil, fieldsErr([]string{"algo", "fifo"}, "%s needs FIFO channels", a.Name)
		}
		p.Algos = append(p.Algos, a)
	}
	if s.Requests < 0 {
		return nil, fieldErrf("requests", "must be positive, not %d", s.Requests)
	}
	if s.Requests == 0 && s.Horizon <= 0 {
		return nil, fieldsErr([]string{"requests", "horizon"}, "one must be set, or the run never ends")
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"horizon", s.Horizon}, {"cost", s.Cost}} {
		if f.v < 0 || f.v > dist.MaxTicks {
			return nil, fieldErrf(f.name, "%d is out of range (0 to %d ticks)", f.v, int64(dist.MaxTicks))
		}
	}
	c := sim.Config{Seed: s.Seed, Requests: s.Requests, Horizon: proc.Time(s.Horizon), Net: sim.Network{FIFO: s.FIFO, Cost: proc.Time(s.Cost)}}
	for _, d := range []struct {
		field, spec string
		to          *dist.Dist
	}{{"think", s.Think, &c.Work.Think}, {"cs", s.CS, &c.Work.CS}, {"delay", s.Delay, &c.Net.Delay}} {
		if d.spec == "" {
			continue
		}
		if *d.to, err = dist.Parse(d.spec); err != nil {
			return nil, fieldErr(d.field, err)
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
	if err := checkOptions(s.Options, p.Algos); err != nil {
		return nil, err
	}
	p.Problem.Options = s.Options
	if len(s.Failure) > 0 {
		f := make([]float64, p.Problem.Users)
		for u := range f {
			f[u] = s.Failure[min(u, len(s.Failure)-1)]
			if !(f[u] >= 0 && f[u] <= 1) { // NaN too
				return nil, fieldErrf("failure", "likelihood %v is not in [0,1]", f[u])
			}
		}
		p.Problem.Failure = f
	}
	for _, cr := range s.Crash {
		for _, one := range strings.Split(cr, ",") {
			ps, ts, ok := strings.Cut(one, "@")
			pid, err1 := strconv.Atoi(ps)
			at, err2 := strconv.ParseInt(ts, 10, 64)
			if !ok || err1 != nil || err2 != nil || pid < 0 || at < 0 || at > dist.MaxTicks {
				return nil, fieldErrf("crash", "%q: want P@T with a process id and a tick", one)
			}
			c.Net.Crashes = append(c.Net.Crashes, sim.Crash{P: proc.ID(pid), At: proc.Time(at)})
		}
	}
	if s.Speeds != "" {
		sp, err := sim.ParseSpeeds(s.Speeds)
		if err != nil {
			return nil, fieldErr("speeds", err)
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
func (p *Plan) problem(s *Scenario, rnd *rand.Rand) error {
	dynamic := s.Users != 0 || s.Resources != 0 || s.Demand != ""
	switch p.Kind {
	case algo.Exclusive:
		if dynamic && s.Graph != "" {
			return fieldsErr([]string{"graph", "users", "resources", "demand"}, "a graph and a dynamic workload are two different workloads: give one")
		}
		if s.Units != 0 || s.Budget != 0 || s.Waste != 0 {
			return fieldsErr([]string{"units", "budget", "waste"}, "are for kind pool and quota")
		}
		if dynamic {
			d := workload.Dynamic{Users: s.Users, Resources: s.Resources, FixedSets: s.FixedSets, Zipf: s.Zipf}
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
			return fieldsErr([]string{"fixed-sets"}, "goes with a dynamic workload (users, resources, demand)")
		}
		if s.Zipf != 0 {
			return fieldsErr([]string{"zipf"}, "goes with a dynamic workload (users, resources, demand)")
		}
		if workload.IsMatrix(s.Graph) {
			// A lower-bound network: users want a row and a column of a
			// matrix of resources (no conflict graph's edges).
			m, err := workload.ParseMatrix(s.Graph)
			if err != nil {
				return fieldErr("graph", err)
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
			return fieldsErr([]string{"users", "resources", "demand"}, "are for kind exclusive; %s runs on a graph", p.Kind)
		}
		g, err := parseGraph(s.Graph, rnd)
		if err != nil {
			return err
		}
		p.Graph = s.Graph
		p.Problem = &algo.Problem{Kind: p.Kind, Users: g.N(), Graph: g, Units: s.Units, Budget: s.Budget, Waste: s.Waste}
		if !g.Connected() {
			return fieldErrf("graph", "%s is not connected: %s runs on one network", s.Graph, p.Kind)
		}
		if p.Kind == algo.Pool && (s.Budget != 0 || s.Waste != 0) {
			return fieldsErr([]string{"budget", "waste"}, "are for kind quota")
		}
		if p.Kind == algo.Pool {
			if err := poolUnits(s.Units, g.N()); err != nil {
				return err
			}
		}
		if p.Kind == algo.Quota {
			return quotaInput(s)
		}
		return nil
	}
}

// poolUnits checks the pool size R against the n nodes of the graph: the
// pool algorithms share R units among n > R nodes (Carvalho §1).
func poolUnits(units, n int) error {
	switch {
	case units == 0:
		return fieldErrf("units", "is required with kind pool: the pool size R, 1 ≤ R < %d (the nodes)", n)
	case units < 0:
		return fieldErrf("units", "must be positive, not %d", units)
	case units >= n:
		return fieldErrf("units", "%d is not below the %d nodes of the graph: a pool shares R units among n > R nodes", units, n)
	}
	return nil
}

// quotaInput checks the quota parameters: the budget M and the waste W,
// 0 ≤ W ≤ M.
func quotaInput(s *Scenario) error {
	switch {
	case s.Units != 0:
		return fieldErrf("units", "is for kind pool")
	case s.Budget < 1:
		return fieldErrf("budget", "(the permits M) must be given and positive, not %d", s.Budget)
	case s.Waste < 0:
		return fieldErrf("waste", "(the permits W that may go unused) must not be negative, not %d", s.Waste)
	case s.Waste > s.Budget:
		return fieldsErr([]string{"waste", "budget"}, "waste %d exceeds budget %d", s.Waste, s.Budget)
	}
	return nil
}

func parseGraph(spec string, rnd *rand.Rand) (*graph.Graph, error) {
	if spec == "" {
		return nil, fieldErrf("graph", "is required (%s)", graph.Specs)
	}
	g, err := graph.Parse(spec, rnd)
	if err != nil {
		return nil, fieldErr("graph", err)
	}
	return g, nil
}

func parseDemand(spec string, d *workload.Dynamic) error {
	if spec == "" {
		return fieldsErr([]string{"demand"}, "is required with users and resources")
	}
	lo, hi, two := strings.Cut(spec, ":")
	k1, err1 := strconv.Atoi(lo)
	k2, err2 := k1, error(nil)
	if two {
		k2, err2 = strconv.Atoi(hi)
	}
	if err1 != nil || err2 != nil {
		return fieldErrf("demand", "%q: want K or K:K2", spec)
	}
	d.MinDemand, d.MaxDemand = k1, k2
	return nil
}

// checkOptions refuses an option no algorithm of the run takes: a typo, or
// an option meant for an algorithm left out. Values are the algorithms'
// to check (their Build refuses a bad one).
func checkOptions(opts map[string]string, algos []algo.Algorithm) error {
	keys := slices.Sorted(maps.Keys(opts))
	for _, k := range keys {
		var takers []string
		for _, a := range algos {
			if slices.Contains(a.Options, k) {
				takers = append(takers, a.Name)
			}
		}
		if len(takers) > 0 {
			continue
		}
		var known []string
		for _, a := range algos {
			if len(a.Options) > 0 {
				known = append(known, a.Name+" takes "+strings.Join(a.Options, ", "))
			}
		}
		if len(known) == 0 {
			return fieldErrf("options", "%q: no algorithm of this run takes options", k)
		}
		return fieldErrf("options", "%q: no algorithm of this run takes it (%s)", k, strings.Join(known, "; "))
	}
	return nil
}
