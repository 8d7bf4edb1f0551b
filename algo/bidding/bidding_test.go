package bidding

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"allot/algo"
	"allot/proc"
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

// scenario is one random configuration of the harness.
type scenario struct {
	name  string
	delay func(r *rand.Rand) proc.Time
	speed func(p proc.ID, now proc.Time, r *rand.Rand) float64
}

var delays = []struct {
	name string
	f    func(r *rand.Rand) proc.Time
}{
	{"const1", func(r *rand.Rand) proc.Time { return 1 }},
	{"uniform1-10", func(r *rand.Rand) proc.Time { return 1 + proc.Time(r.IntN(10)) }},
	// Mostly fast, sometimes far slower than a step: the timing bounds
	// break, exclusion must not.
	{"heavy", func(r *rand.Rand) proc.Time {
		if r.IntN(20) == 0 {
			return 1 + proc.Time(r.IntN(300))
		}
		return 1 + proc.Time(r.IntN(3))
	}},
}

var speeds = []struct {
	name string
	f    func(p proc.ID, now proc.Time, r *rand.Rand) float64
}{
	{"nominal", nil},
	{"tame-random", func(p proc.ID, now proc.Time, r *rand.Rand) float64 { return 1 + 2*r.Float64() }},
	{"untame", func(p proc.ID, now proc.Time, r *rand.Rand) float64 { return 0.01 + 50*r.Float64()*r.Float64() }},
}

// randomProblem is one of: k-fork ring, random fixed sets, dynamic requests.
func randomProblem(r *rand.Rand) (*algo.Problem, func(u proc.ID, r *rand.Rand) []proc.ResID, string) {
	switch r.IntN(3) {
	case 0:
		n, k := 3+r.IntN(10), 1+r.IntN(3)
		pb := fixedProblem(ringSets(n, k), n, nil)
		return pb, nil, fmt.Sprintf("ring%d-k%d", n, k)
	case 1:
		users, res := 2+r.IntN(12), 1+r.IntN(10)
		sets := make([][]proc.ResID, users)
		for u := range sets {
			sets[u] = randomSet(r, res, 1+r.IntN(min(res, 4)))
		}
		return fixedProblem(sets, res, nil), nil, fmt.Sprintf("fixed%dx%d", users, res)
	default:
		users, res, k := 2+r.IntN(15), 1+r.IntN(12), 1+r.IntN(4)
		k = min(k, res)
		sets := make([][]proc.ResID, users)
		all := make([]proc.ResID, res)
		for i := range all {
			all[i] = proc.ResID(i)
		}
		for u := range sets {
			sets[u] = all
		}
		pb := fixedProblem(sets, res, map[string]string{"k": fmt.Sprint(k), "v": fmt.Sprint(min(users, 6))})
		next := func(u proc.ID, r *rand.Rand) []proc.ResID { return randomSet(r, res, 1+r.IntN(k)) }
		return pb, next, fmt.Sprintf("dynamic%dx%d-k%d", users, res, k)
	}
}

func randomSet(r *rand.Rand, n, k int) []proc.ResID {
	perm := r.Perm(n)[:k]
	set := make([]proc.ResID, k)
	for i, x := range perm {
		set[i] = proc.ResID(x)
	}
	return set
}

// TestExclusionAndProgress runs random problems under every delay and
// speed pattern: exclusion always, and every run keeps serving.
func TestExclusionAndProgress(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	for _, a := range []algo.Algorithm{Algorithm, Priority} {
		for _, d := range delays {
			for _, sp := range speeds {
				for seed := range uint64(seeds) {
					r := rand.New(rand.NewPCG(seed, 99))
					pb, next, name := randomProblem(r)
					h := newHarness(t, a, pb, seed)
					h.delay, h.speed = d.f, sp.f
					h.cs = func(r *rand.Rand) proc.Time { return 1 + proc.Time(r.IntN(8)) }
					if next != nil {
						h.next = next
					}
					const want = 150
					h.run(want, 1<<30)
					if h.served < want {
						t.Fatalf("%s %s %s %s seed %d: served %d of %d by t=%d", a.Name, d.name, sp.name, name, seed, h.served, want, h.now)
					}
				}
			}
		}
	}
}

// TestLiteralTimeoutBreaksExclusion shows that the checks catch the paper's
// listing taken literally: a granter that withdraws its offer after λ1
// steps, while the winner's Accept is still in flight, lets two users hold
// the resource once messages are slower than the bound.
func TestLiteralTimeoutBreaksExclusion(t *testing.T) {
	found := 0
	for seed := range uint64(20) {
		pb := fixedProblem(ringSets(6, 2), 6, nil)
		h := newHarness(t, Algorithm, pb, seed)
		for _, p := range h.procs {
			if g, ok := p.(*Granter); ok {
				q := *g.p
				q.literalTimeout = true
				g.p = &q
			}
		}
		h.tolerate = true
		h.delay = delays[2].f
		h.run(300, 1<<30)
		found += h.violations
	}
	if found == 0 {
		t.Fatal("the literal timeout variant never broke exclusion: the check cannot fail")
	}
	t.Logf("%d violations found in the broken variant", found)
}

func TestDeterministic(t *testing.T) {
	for _, a := range []algo.Algorithm{Algorithm, Priority} {
		var runs [2][]proc.Time
		for i := range runs {
			pb := fixedProblem(ringSets(9, 3), 9, nil)
			h := newHarness(t, a, pb, 7)
			h.delay = delays[1].f
			h.run(300, 1<<30)
			runs[i] = h.resp
		}
		if !slices.Equal(runs[0], runs[1]) {
			t.Errorf("%s: two runs with the same seed differ", a.Name)
		}
	}
}

// TestPrioritySmallFirst: with mixed demands, priority bidding serves the
// small requests faster than uniform bidding does.
func TestPrioritySmallFirst(t *testing.T) {
	mean := func(a algo.Algorithm) (small, large float64) {
		n := 24
		sets := make([][]proc.ResID, n)
		for u := range sets {
			k := 8
			if u%2 == 1 {
				k = 1
			}
			for j := 0; j < k; j++ {
				sets[u] = append(sets[u], proc.ResID((u+j*3)%n))
			}
		}
		pb := fixedProblem(sets, n, nil)
		h := newHarness(t, a, pb, 3)
		var s, l []float64
		h.run(3000, 1<<30)
		for u := 0; u < n; u++ {
			st := h.procs[u].(*User).Stats()
			x := float64(st.RoundsToServe) / float64(max(1, st.Served))
			if u%2 == 1 {
				s = append(s, x)
			} else {
				l = append(l, x)
			}
		}
		avg := func(v []float64) float64 {
			t := 0.0
			for _, x := range v {
				t += x
			}
			return t / float64(len(v))
		}
		return avg(s), avg(l)
	}
	us, ul := mean(Algorithm)
	ps, pl := mean(Priority)
	t.Logf("rounds to serve: uniform small %.1f large %.1f; priority small %.1f large %.1f", us, ul, ps, pl)
	if ps >= us {
		t.Errorf("priority small requests wait %.1f rounds, uniform %.1f", ps, us)
	}
}
