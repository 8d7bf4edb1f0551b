package ctlsim

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// static is a fake control plane with one view for ever: every node serves
// epoch 1 of all n nodes from its start (and again after a restart). With
// alone set, each node instead serves a view of itself, epoch id+1: no
// majority, and several views at once.
type static struct {
	n     int
	alone bool
}

type hello struct{}

func (hello) Kind() string { return "hello" }

type beat struct{}

func (s *static) Start(env proc.Env) {
	members := make([]proc.ID, s.n)
	for i := range members {
		members[i] = proc.ID(i)
	}
	epoch := uint64(1)
	if s.alone {
		members, epoch = []proc.ID{env.Self()}, uint64(env.Self())+1
	}
	env.Emit(proc.Event{Kind: proc.EvView, Epoch: epoch, Members: members})
	env.After(10, beat{})
}

func (s *static) Deliver(proc.Env, proc.ID, proc.Message) {}

func (s *static) Fire(env proc.Env, _ proc.Timer) {
	env.Send((env.Self()+1)%proc.ID(s.n), hello{})
	env.After(10, beat{})
}

func (s *static) Restarted() proc.Process { return &static{n: s.n, alone: s.alone} }

func build(alone bool) Build {
	return func(n int, _ uint64) ([]proc.Process, error) {
		ps := make([]proc.Process, n)
		for i := range ps {
			ps[i] = &static{n: n, alone: alone}
		}
		return ps, nil
	}
}

func TestRunMeasures(t *testing.T) {
	r, err := Run(Config{Nodes: 3, Seed: 1, Horizon: 1000, Delay: dist.Const(2), Build: build(false),
		Faults: Faults{Crashes: []sim.Crash{{P: 1, At: 100}}, Restarts: []sim.Restart{{P: 1, At: 300}},
			Cuts: []sim.Cut{{From: 0, To: 1, Start: 0, End: 500}}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Findings != 0 || r.Views != 1 || r.LastEpoch != 1 {
		t.Errorf("findings %d %v, views %d, last epoch %d; want 0, 1, 1", r.Findings, r.First, r.Views, r.LastEpoch)
	}
	if want := []proc.Time{1000, 800, 1000}; !reflect.DeepEqual(r.Serving, want) {
		t.Errorf("serving %v, want %v", r.Serving, want)
	}
	if r.Unserved != 0 || r.Dropped == 0 {
		t.Errorf("unserved %d, dropped %d; want 0 and some", r.Unserved, r.Dropped)
	}
	if r.Healed != 500 || r.Recovery != 0 {
		t.Errorf("healed %d, recovery %d; want 500 (the cut's end) and 0 (a majority served through)", r.Healed, r.Recovery)
	}
	// Every node down at 100, back at 300, 400 and 500: the faults heal at
	// 500, when two already serve again.
	all := Faults{}
	for p, up := range []proc.Time{300, 400, 500} {
		all.Crashes = append(all.Crashes, sim.Crash{P: proc.ID(p), At: 100})
		all.Restarts = append(all.Restarts, sim.Restart{P: proc.ID(p), At: up})
	}
	r, _ = Run(Config{Nodes: 3, Seed: 1, Horizon: 1000, Build: build(false), Faults: all})
	if r.Healed != 500 || r.Recovery != 0 || r.Unserved != 200 {
		t.Errorf("full restart: healed %d, recovery %d, unserved %d; want 500, 0, 200", r.Healed, r.Recovery, r.Unserved)
	}
	// A pause of two nodes after a cut that never heals: no heal, no
	// recovery measured; a plane that never serves again: -1.
	r, _ = Run(Config{Nodes: 3, Seed: 1, Horizon: 1000, Build: build(false),
		Faults: Faults{Cuts: []sim.Cut{{From: 0, To: 1, Start: 10}}}})
	if r.Healed != -1 || r.Recovery != -1 {
		t.Errorf("a cut for good: healed %d, recovery %d; want -1, -1", r.Healed, r.Recovery)
	}
	r, _ = Run(Config{Nodes: 3, Seed: 1, Horizon: 1000, Build: build(false),
		Faults: Faults{Crashes: []sim.Crash{{P: 0, At: 50}, {P: 1, At: 60}}, Pauses: []sim.Pause{{P: 2, Start: 70, End: 80}}}})
	if r.Healed != 80 || r.Recovery != -1 {
		t.Errorf("two of three down for good: healed %d, recovery %d; want 80, -1", r.Healed, r.Recovery)
	}
}

func TestRunFindsABrokenPlane(t *testing.T) {
	r, err := Run(Config{Nodes: 3, Seed: 1, Horizon: 100, Build: build(true)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Findings == 0 || !strings.Contains(strings.Join(r.First, "\n"), "no majority") {
		t.Errorf("a plane of one-node views: findings %v", r.First)
	}
}

// TestRandomFaults checks the generator over fresh seeds: deterministic,
// valid for the simulator, healed by the end, a minority crashed for good.
func TestRandomFaults(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	for i := range uint64(200) {
		for _, n := range []int{3, 5} {
			const horizon = 10000
			f := RandomFaults(rand.New(rand.NewPCG(seed+i, 1)), n, horizon)
			if g := RandomFaults(rand.New(rand.NewPCG(seed+i, 1)), n, horizon); !reflect.DeepEqual(f, g) {
				t.Fatalf("seed %d: two schedules", seed+i)
			}
			if f.Count() == 0 {
				t.Errorf("seed %d, %d nodes: no fault", seed+i, n)
			}
			down := map[proc.ID]bool{}
			for _, c := range f.Crashes {
				down[c.P] = true
			}
			for _, r := range f.Restarts {
				delete(down, r.P)
			}
			if 2*len(down) >= n {
				t.Errorf("seed %d, %d nodes: %d crashed for good", seed+i, n, len(down))
			}
			for _, c := range f.Cuts {
				if c.End > horizon || c.From == c.To {
					t.Errorf("seed %d: cut %+v", seed+i, c)
				}
			}
			for _, p := range f.Pauses {
				if p.End > horizon {
					t.Errorf("seed %d: pause %+v", seed+i, p)
				}
			}
			if _, err := Run(Config{Nodes: n, Seed: seed + i, Horizon: horizon, Build: build(false), Faults: f}); err != nil {
				t.Errorf("seed %d: %v", seed+i, err)
			}
		}
	}
}

func TestSweepIsDeterministic(t *testing.T) {
	cfg := Config{Nodes: 3, Horizon: 2000, Delay: dist.Uniform(1, 9), Random: true, Build: build(false)}
	seeds := []uint64{1, 2, 3, 4, 5, 6, 7}
	var one, four []Result
	s1, err := Sweep(cfg, seeds, 1, func(r Result) { one = append(one, r) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	s4, _ := Sweep(cfg, seeds, 4, func(r Result) { four = append(four, r) }, nil)
	if !reflect.DeepEqual(s1, s4) || !reflect.DeepEqual(one, four) {
		t.Errorf("1 worker and 4 differ:\n%+v\n%+v", s1, s4)
	}
	if s1.Runs != 7 || s1.Faults == 0 || s1.Failed != 0 {
		t.Errorf("summary %+v", s1)
	}
	cfg.Build = build(true)
	if s, _ := Sweep(cfg, seeds, 2, nil, nil); s.Failed != 7 || s.FirstFailed == nil || s.FirstFailed.Seed != 1 {
		t.Errorf("broken plane: summary %+v", s)
	}
}
