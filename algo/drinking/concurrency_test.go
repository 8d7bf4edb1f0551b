package drinking

import (
	"math/rand/v2"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/algo/doorway"
	"github.com/allot-dev/allot/algo/hygienic"
	"github.com/allot-dev/allot/algo/threshold"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// counter counts enters per user and the most users inside at once.
type counter struct {
	enters      [3]int
	inside, top int
}

func (c *counter) Event(e proc.Event) {
	switch e.Kind {
	case proc.EvEnter:
		c.enters[e.P]++
		c.inside++
		c.top = max(c.top, c.inside)
	case proc.EvExit:
		c.inside--
	}
}

// concurrencyRun: three users whose maximum sets are all of resources 0..2,
// so every two conflict. Users 0 and 1 ask for resources 0 and 1 and
// drink (almost) forever; user 2 asks for resource 2 again and again.
// Their current requests are disjoint, so a drinking algorithm lets all
// three in at once and user 2 through every time.
func concurrencyRun(t *testing.T, a algo.Algorithm, seed uint64, fifo bool) *counter {
	t.Helper()
	sets := [][]proc.ResID{{0, 1, 2}, {0, 1, 2}, {0, 1, 2}}
	g, err := algo.ConflictGraph(3, sets)
	if err != nil {
		t.Fatal(err)
	}
	pb := &algo.Problem{Kind: algo.Exclusive, Users: 3, Resources: 3, MaxSets: sets, Conflict: g, FIFO: fifo}
	procs, err := a.Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	var c counter
	_, err = sim.Run(sim.Config{Seed: seed, Horizon: 5000, Sink: &c, Net: sim.Network{Delay: dist.Uniform(1, 20), FIFO: fifo}, Work: app.Workload{Think: dist.Uniform(0, 10), CSTime: func(u proc.ID, _ proc.Request, _ *rand.Rand) proc.Time {
		if u < 2 {
			return 1 << 40
		}
		return 5
	}, Next: func(u proc.ID, _ *rand.Rand) proc.Request {
		return proc.Request{Res: []proc.ResID{proc.ResID(u)}}
	}}}, pb, procs)
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

func TestConcurrency(t *testing.T) {
	for _, sub := range []algo.Algorithm{hygienic.Algorithm, central.Algorithm, doorway.Algorithm, threshold.Algorithm} {
		a := For(sub)
		t.Run(a.Name, func(t *testing.T) {
			for seed := uint64(1); seed <= 20; seed++ {
				c := concurrencyRun(t, a, seed, a.NeedsFIFO)
				if c.enters[0] != 1 || c.enters[1] != 1 || c.top < 3 {
					t.Fatalf("seed %d: users 0, 1 entered %d, %d times, at most %d users inside at once; want both drinking together with user 2",
						seed, c.enters[0], c.enters[1], c.top)
				}
				if c.enters[2] < 20 {
					t.Fatalf("seed %d: user 2, whose request conflicts with nobody's, entered only %d times", seed, c.enters[2])
				}
			}
		})
	}
	// The check can fail: the dining algorithm alone lets one user in at
	// a time.
	if c := concurrencyRun(t, hygienic.Algorithm, 1, false); c.top != 1 || c.enters[2] > 1 {
		t.Fatalf("bare hygienic: %d users inside at once, user 2 entered %d times; want 1 and at most 1", c.top, c.enters[2])
	}
}
