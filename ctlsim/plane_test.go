package ctlsim

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
	"github.com/allot-dev/allot/trace"
)

func seedsFrom(first uint64, n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = first + uint64(i)
	}
	return s
}

func plane(t *testing.T, variant string) Build {
	t.Helper()
	b, err := Plane(variant)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPlaneSweep: the control plane under random fault schedules of fresh
// seeds, 3 and 5 nodes: no finding (the full sweep is `allot sim --kind
// control --random-faults --seeds 1000`).
func TestPlaneSweep(t *testing.T) {
	first := rand.Uint64() >> 1
	t.Logf("seeds %d.. (fresh each run)", first)
	for _, n := range []int{3, 5} {
		cfg := Config{Nodes: n, Horizon: 20000, Delay: dist.Uniform(1, 10), Random: true, Build: plane(t, "")}
		s, err := Sweep(cfg, seedsFrom(first, 40), 0, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.Failed > 0 {
			f := s.FirstFailed
			t.Errorf("%d nodes: %d of %d runs with findings; seed %d, faults %+v: %v", n, s.Failed, s.Runs, f.Seed, f.Faults, f.First)
		}
		if s.Views < s.Runs {
			t.Errorf("%d nodes: %d views served in %d runs", n, s.Views, s.Runs)
		}
	}
}

// TestBrokenPlaneCaught: a node cut off from the others (both ways) while
// it serves; the faithful plane fences it before the majority's view
// serves, the plane without leases serves on beside it — caught, on
// every seed.
func TestBrokenPlaneCaught(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	var cuts []sim.Cut
	for _, q := range []proc.ID{1, 2} {
		cuts = append(cuts, sim.Cut{From: 0, To: q, Start: 5000, End: 12000}, sim.Cut{From: q, To: 0, Start: 5000, End: 12000})
	}
	for _, c := range []struct {
		variant string
		caught  bool
	}{{"", false}, {"no-lease", true}} {
		r, err := Run(Config{Nodes: 3, Seed: seed, Horizon: 15000, Delay: dist.Uniform(1, 10),
			Faults: Faults{Cuts: cuts}, Build: plane(t, c.variant)})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Findings > 0; got != c.caught {
			t.Errorf("%q: findings %v, want caught %v (views %+v)", c.variant, r.First, c.caught, r.Served)
		}
		if c.caught && !strings.Contains(strings.Join(r.First, "\n"), "while p0 still serves") {
			t.Errorf("%q: findings %v, want the isolated p0 still serving", c.variant, r.First)
		}
	}
}

// TestPlaneIsDeterministic: one seed, one trace, byte for byte.
func TestPlaneIsDeterministic(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	var out [2]bytes.Buffer
	for i := range out {
		tw := trace.NewWriter(&out[i])
		_, err := Run(Config{Nodes: 5, Seed: seed, Horizon: 15000, Delay: dist.Uniform(1, 10), Random: true,
			Build: plane(t, ""), Sink: tw})
		if err != nil {
			t.Fatal(err)
		}
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) || out[0].Len() == 0 {
		t.Errorf("two runs of seed %d: %d and %d bytes of trace, not the same", seed, out[0].Len(), out[1].Len())
	}
}

func TestPlaneVariants(t *testing.T) {
	if _, err := Plane("no-such"); err == nil || !strings.Contains(err.Error(), "no-lease") {
		t.Errorf("unknown variant: %v", err)
	}
}

// TestFullRestartContinuesEpochs: every node killed at once and restarted
// on its disk; the plane serves again, in epochs above every one before.
func TestFullRestartContinuesEpochs(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	var f Faults
	for p := range proc.ID(3) {
		f.Crashes = append(f.Crashes, sim.Crash{P: p, At: 5000})
		f.Restarts = append(f.Restarts, sim.Restart{P: p, At: 6000 + 50*proc.Time(p)})
	}
	r, err := Run(Config{Nodes: 3, Seed: seed, Horizon: 15000, Delay: dist.Uniform(1, 10), Faults: f, Build: plane(t, "")})
	if err != nil {
		t.Fatal(err)
	}
	var before, after uint64
	for _, v := range r.Served {
		switch {
		case v.From < 5000:
			before = max(before, v.Epoch)
		case v.From > 6000:
			if after == 0 {
				after = v.Epoch
			}
		}
	}
	if r.Findings > 0 || before == 0 || after <= before || r.Recovery < 0 {
		t.Errorf("findings %v; newest epoch before %d, first after %d; recovery %d", r.First, before, after, r.Recovery)
	}
}
