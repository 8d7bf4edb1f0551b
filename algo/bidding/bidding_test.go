package bidding

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/workload"
)

func TestParams(t *testing.T) {
	tests := []struct {
		name                     string
		opts                     map[string]string
		priority                 bool
		k, v, lambda1, c, draws0 int
		groups, attempts, h1, h2 int
		group1, group3, group8   int
	}{
		// ρ = 1, μ = 1: β = 2, λ1 = 3, c = 2(3+1)+1 = 9, attempts ⌊8/3⌋ = 2.
		{"defaults", nil, false, 3, 3, 3, 9, 18, 1, 2, 2, 1, 0, 0, 0},
		// k = 8, v = 5, ρ = 2: β = 3, λ1 = 5, c = (2(5+2)+1)·4 = 60.
		{"options", map[string]string{"k": "8", "v": "5", "ratio": "2", "mu": "2"}, true,
			8, 5, 5, 60, 120, 4, 11, 4, 2, 3, 1, 0},
		// ρ = 1.5: λ1 = 4, c = ⌈(2(4+1)+1)·2.25⌉ = 25, βkv = ⌈2.5·9⌉ = 23.
		{"fractional ratio", map[string]string{"ratio": "1.5"}, true, 3, 3, 4, 25, 23, 3, 6, 2, 1, 2, 0, 0},
		// §3.2 as printed, ρ = 2, μ = 2: λ1 = 2ρ = 4, c = (2(2+2)+1)·4 = 36,
		// attempts ⌊34/4⌋ = 8.
		{"paper constants", map[string]string{"k": "8", "v": "5", "ratio": "2", "mu": "2", "constants": "paper"}, false,
			8, 5, 4, 36, 120, 1, 8, 4, 2, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pb := fixedProblem(ringSets(6, 3), 6, tc.opts)
			p, err := NewParams(pb, tc.priority)
			if err != nil {
				t.Fatal(err)
			}
			got := []int{p.K, p.V, p.Lambda1, p.C, p.Draws(0), p.Groups, p.Attempts(), p.H(1), p.H(2), p.Group(1), p.Group(3), p.Group(8)}
			want := []int{tc.k, tc.v, tc.lambda1, tc.c, tc.draws0, tc.groups, tc.attempts, tc.h1, tc.h2, tc.group1, tc.group3, tc.group8}
			if !slices.Equal(got, want) {
				t.Errorf("K V λ1 c βkv groups attempts h1 h2 g(1) g(3) g(8) = %v, want %v", got, want)
			}
		})
	}
}

func TestGroupsCoverDemands(t *testing.T) {
	// Every demand 1..k falls in its group's interval [⌊k/2^{m+1}⌋, ⌈k/2^m⌉].
	for k := 1; k <= 70; k++ {
		pb := fixedProblem(ringSets(6, 3), 6, map[string]string{"k": fmt.Sprint(k)})
		p, err := NewParams(pb, true)
		if err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= k; n++ {
			m := p.Group(n)
			if lo, hi := k>>(m+1), p.H(m); n < lo || n > hi || m >= p.Groups {
				t.Fatalf("k=%d: demand %d in group %d = [%d, %d] of %d groups", k, n, m, lo, hi, p.Groups)
			}
		}
		if p.Group(1) != p.Groups-1 {
			t.Errorf("k=%d: demand 1 is in group %d, not the last (%d)", k, p.Group(1), p.Groups-1)
		}
	}
}

func TestBadProblems(t *testing.T) {
	tests := []struct {
		name string
		pb   *algo.Problem
		want string
	}{
		{"pool", &algo.Problem{Kind: algo.Pool, Users: 2, Units: 1}, "exclusive"},
		{"no resources", &algo.Problem{Kind: algo.Exclusive, Users: 2}, "at least one"},
		{"unknown option", fixedProblem(ringSets(4, 2), 4, map[string]string{"speed": "2"}), "unknown option"},
		{"bad k", fixedProblem(ringSets(4, 2), 4, map[string]string{"k": "0"}), "k="},
		{"bad ratio", fixedProblem(ringSets(4, 2), 4, map[string]string{"ratio": "0.5"}), "ratio"},
		{"bad constants", fixedProblem(ringSets(4, 2), 4, map[string]string{"constants": "lynch"}), "constants="},
		{"huge", fixedProblem(ringSets(4, 2), 4, map[string]string{"k": "1000000", "v": "1000000"}), "too large"},
		{"out of range", fixedProblem([][]proc.ResID{{0, 9}}, 4, nil), "out of range"},
	}
	for _, tc := range tests {
		for _, a := range []algo.Algorithm{Algorithm, Priority} {
			if _, err := a.Build(tc.pb); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s/%s: error %v, want one containing %q", a.Name, tc.name, err, tc.want)
			}
		}
	}
}

func fixedProblem(sets [][]proc.ResID, resources int, opts map[string]string) *algo.Problem {
	return &algo.Problem{Kind: algo.Exclusive, Users: len(sets), Resources: resources, MaxSets: sets, Options: opts}
}

func ringSets(n, k int) [][]proc.ResID {
	sets := make([][]proc.ResID, n)
	for i := range sets {
		for j := 0; j < k; j++ {
			sets[i] = append(sets[i], proc.ResID((i+j)%n))
		}
		slices.Sort(sets[i])
	}
	return sets
}

// randomSpeed draws a fresh factor in [lo, hi) for every timer: speeds that
// change all the time, tame (hi/lo ≤ ratio) or not.
type randomSpeed struct {
	lo, hi float64
	r      *rand.Rand
}

func (s randomSpeed) Duration(p proc.ID, now, d proc.Time) proc.Time {
	f := s.lo + (s.hi-s.lo)*s.r.Float64()*s.r.Float64()
	return proc.Time(float64(d)*f + 0.5)
}

// randomProblem is one of: k-fork ring, random fixed sets, dynamic requests.
func randomProblem(r *rand.Rand) (*algo.Problem, func(proc.ID, *rand.Rand) proc.Request, string) {
	switch r.IntN(3) {
	case 0:
		n, k := 3+r.IntN(10), 1+r.IntN(3)
		return fixedProblem(ringSets(n, k), n, nil), nil, fmt.Sprintf("ring%d-k%d", n, k)
	case 1:
		users, res := 2+r.IntN(12), 1+r.IntN(10)
		sets := make([][]proc.ResID, users)
		for u := range sets {
			sets[u] = randomSet(r, res, 1+r.IntN(min(res, 4)))
		}
		return fixedProblem(sets, res, nil), nil, fmt.Sprintf("fixed%dx%d", users, res)
	default:
		d := workload.Dynamic{Users: 2 + r.IntN(15), Resources: 1 + r.IntN(12), MinDemand: 1}
		d.MaxDemand = min(1+r.IntN(4), d.Resources)
		pb, next, err := d.Problem(r)
		if err != nil {
			panic(err)
		}
		pb.Options = map[string]string{"v": fmt.Sprint(min(d.Users, 6))}
		return pb, next, fmt.Sprintf("dynamic%dx%d-k%d", d.Users, d.Resources, d.MaxDemand)
	}
}

func randomSet(r *rand.Rand, n, k int) []proc.ResID {
	set := make([]proc.ResID, k)
	for i, x := range r.Perm(n)[:k] {
		set[i] = proc.ResID(x)
	}
	slices.Sort(set)
	return set
}

// simulate runs a on pb to quiescence with perUser requests per user.
func simulate(t *testing.T, a algo.Algorithm, pb *algo.Problem, next func(proc.ID, *rand.Rand) proc.Request,
	cfg sim.Config, perUser int, tweak func(*Params)) (sim.Result, *check.Exclusion, []proc.Event) {
	t.Helper()
	procs, err := a.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	if tweak != nil {
		// Every process shares one Params: change a copy for all of them.
		var q *Params
		for _, p := range procs {
			switch x := p.(type) {
			case *User:
				if q == nil {
					c := *x.p
					tweak(&c)
					q = &c
				}
				x.p = q
			case *Granter:
				x.p = q
			}
		}
	}
	var excl check.Exclusion
	var events recorder
	cfg.Work.Next, cfg.Work.PerUser = next, perUser
	cfg.Sink = proc.Sinks{&excl, &events}
	res, err := sim.Run(cfg, pb, procs)
	if err != nil {
		t.Fatal(err)
	}
	return res, &excl, events
}

type recorder []proc.Event

func (r *recorder) Event(e proc.Event) { *r = append(*r, e) }

// TestExclusionAndProgress runs random problems with message delays that
// often exceed a step (step = 2 ticks) and speeds that change at every
// timer, tame and not: exclusion always, and every request is answered.
func TestExclusionAndProgress(t *testing.T) {
	seeds := 25
	if testing.Short() {
		seeds = 8
	}
	delays := []string{"const:1", "uniform:1:10", "exp:8"}
	// ratio is what the algorithm is told; the untame speeds ignore it.
	speeds := []struct {
		name          string
		lo, hi, ratio float64
	}{{"nominal", 1, 1, 1}, {"tame", 1, 3, 3}, {"untame", 0.01, 50, 3}}
	for _, a := range []algo.Algorithm{Algorithm, Priority} {
		for _, ds := range delays {
			delay, err := dist.Parse(ds)
			if err != nil {
				t.Fatal(err)
			}
			for _, sp := range speeds {
				for seed := range uint64(seeds) {
					r := rand.New(rand.NewPCG(seed, 99))
					pb, next, name := randomProblem(r)
					if pb.Options == nil {
						pb.Options = map[string]string{}
					}
					pb.Options["step"] = "2"
					pb.Options["ratio"] = fmt.Sprint(sp.ratio)
					const perUser = 10
					res, excl, _ := simulate(t, a, pb, next, sim.Config{Seed: seed, Net: sim.Network{Delay: delay, Speed: randomSpeed{sp.lo, sp.hi, rand.New(rand.NewPCG(seed, 7))}}, Work: app.Workload{Think: dist.Uniform(0, 20), CS: dist.Uniform(1, 8)}}, perUser, nil)
					what := fmt.Sprintf("%s %s %s %s seed %d", a.Name, ds, sp.name, name, seed)
					if !excl.OK() {
						t.Fatalf("%s: %d exclusion violations, first %s", what, excl.Violations, excl.First[0])
					}
					if !res.Quiescent || res.Served != pb.Users*perUser {
						t.Fatalf("%s: served %d of %d by t=%d", what, res.Served, pb.Users*perUser, res.End)
					}
				}
			}
		}
	}
}

// TestLiteralTimeoutBreaksExclusion shows that the exclusion checker
// catches the paper's listing taken literally: a granter that withdraws its
// offer after λ1 steps while the winner's Accept is still in flight lets
// two users hold the resource once messages are slower than the bound.
func TestLiteralTimeoutBreaksExclusion(t *testing.T) {
	found := 0
	for seed := range uint64(10) {
		pb := fixedProblem(ringSets(6, 2), 6, map[string]string{"step": "1"})
		cfg := sim.Config{Seed: seed, Net: sim.Network{Delay: dist.Exp(4)}, Work: app.Workload{Think: dist.Uniform(0, 10), CS: dist.Uniform(1, 8)}}
		_, excl, _ := simulate(t, Algorithm, pb, nil, cfg, 30, func(p *Params) { p.literalTimeout = true })
		found += excl.Violations
		// The same runs with the granter waiting for the answer are safe.
		_, excl, _ = simulate(t, Algorithm, pb, nil, cfg, 30, nil)
		if !excl.OK() {
			t.Fatalf("seed %d: the algorithm itself broke exclusion: %s", seed, excl.First[0])
		}
	}
	if found == 0 {
		t.Fatal("the literal-timeout variant never broke exclusion: the check cannot fail")
	}
	t.Logf("%d violations found in the broken variant", found)
}

// TestDeterministic: the same seed gives the same event stream (the
// priority granter keeps its winners in a map; its order must not leak).
func TestDeterministic(t *testing.T) {
	for _, a := range []algo.Algorithm{Algorithm, Priority} {
		var runs [2][]proc.Event
		for i := range runs {
			d := workload.Dynamic{Users: 12, Resources: 9, MinDemand: 1, MaxDemand: 4}
			pb, next, err := d.Problem(rand.New(rand.NewPCG(5, 5)))
			if err != nil {
				t.Fatal(err)
			}
			pb.Options = map[string]string{"v": "5"}
			_, _, runs[i] = simulate(t, a, pb, next, sim.Config{Seed: 7, Net: sim.Network{Delay: dist.Uniform(1, 20)}, Work: app.Workload{Think: dist.Exp(20), CS: dist.Uniform(1, 10)}}, 20, nil)
		}
		if len(runs[0]) == 0 || !slices.EqualFunc(runs[0], runs[1], func(a, b proc.Event) bool {
			return a.Time == b.Time && a.Kind == b.Kind && a.P == b.P && slices.Equal(a.Res, b.Res)
		}) {
			t.Errorf("%s: two runs with the same seed differ", a.Name)
		}
	}
}
