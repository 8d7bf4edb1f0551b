package workload

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Dynamic is a dynamic exclusive workload: Users users share Resources
// resources, and each request names MinDemand..MaxDemand of them, drawn
// uniformly (the size uniformly in the range, then the set uniformly among
// sets of that size).
//
// With FixedSets each user draws one set for the whole run: it is then the
// user's declared maximum set, and the conflict graph joins users whose sets
// intersect. Without, a user may ask for any resources each time, so its
// maximum set is every resource and every two users conflict.
//
// Zipf, when positive, skews the draw of a set: resource r is drawn with
// weight 1/(r+1)^Zipf, one resource after the other without replacement
// (the hot data items of a database: a transaction's readset). Zero is
// the uniform draw.
type Dynamic struct {
	Users, Resources     int
	MinDemand, MaxDemand int
	FixedSets            bool
	Zipf                 float64
}

// Validate reports a workload that cannot be generated.
func (d Dynamic) Validate() error {
	switch {
	case d.Users < 1:
		return fmt.Errorf("--users must be at least 1, not %d", d.Users)
	case d.Resources < 1:
		return fmt.Errorf("--resources must be at least 1, not %d", d.Resources)
	case d.MinDemand < 1 || d.MaxDemand < d.MinDemand:
		return fmt.Errorf("--demand %d:%d: want 1 ≤ K ≤ K2", d.MinDemand, d.MaxDemand)
	case d.MaxDemand > d.Resources:
		return fmt.Errorf("--demand %d exceeds the %d resources", d.MaxDemand, d.Resources)
	case !(d.Zipf >= 0 && d.Zipf <= maxZipf):
		return fmt.Errorf("--zipf %g: want a skew in [0, %d]", d.Zipf, maxZipf)
	}
	return nil
}

// Problem builds the problem and the request generator to hand the
// simulator as sim.Config.Next. rnd draws the fixed sets.
func (d Dynamic) Problem(rnd *rand.Rand) (*algo.Problem, func(proc.ID, *rand.Rand) proc.Request, error) {
	if err := d.Validate(); err != nil {
		return nil, nil, err
	}
	sets := make([][]proc.ResID, d.Users)
	draw := d.draw
	if d.Zipf > 0 {
		draw = d.zipfDraw(d.zipfWeights())
	}
	if d.FixedSets {
		for u := range sets {
			sets[u] = draw(rnd)
		}
	} else {
		all := make([]proc.ResID, d.Resources)
		for r := range all {
			all[r] = proc.ResID(r)
		}
		for u := range sets {
			sets[u] = all
		}
	}
	pb := &algo.Problem{Kind: algo.Exclusive, Users: d.Users, Resources: d.Resources, MaxSets: sets, MaxDemand: d.MaxDemand}
	// Algorithms that need no conflict graph (central, bidding) run
	// workloads whose graph is too large to build.
	g, err := algo.ConflictGraph(d.Users, sets)
	switch {
	case errors.Is(err, algo.ErrTooLarge):
		pb.NoConflict = err
	case err != nil:
		return nil, nil, err
	default:
		pb.Conflict = g
	}
	next := func(u proc.ID, r *rand.Rand) proc.Request {
		if d.FixedSets {
			return proc.Request{Res: sets[u]}
		}
		return proc.Request{Res: draw(r)}
	}
	return pb, next, nil
}

// draw picks a sorted random set of MinDemand..MaxDemand resources.
func (d Dynamic) draw(r *rand.Rand) []proc.ResID {
	k := d.MinDemand + r.IntN(d.MaxDemand-d.MinDemand+1)
	set := make([]proc.ResID, 0, k)
	// Floyd's algorithm: k distinct values without a permutation of all.
	for j := d.Resources - k; j < d.Resources; j++ {
		t := proc.ResID(r.IntN(j + 1))
		if slices.Contains(set, t) {
			t = proc.ResID(j)
		}
		set = append(set, t)
	}
	slices.Sort(set)
	return set
}

// maxZipf bounds the skew: past it nearly every draw is the first few
// resources, and the weights of the last ones underflow.
const maxZipf = 10

// zipfWeights are the weights 1/(r+1)^Zipf of the resources.
func (d Dynamic) zipfWeights() []float64 {
	w := make([]float64, d.Resources)
	for r := range w {
		w[r] = math.Pow(float64(r+1), -d.Zipf)
	}
	return w
}

// zipfDraw returns a draw of a sorted set of MinDemand..MaxDemand
// resources, each drawn with its weight among those not yet drawn.
func (d Dynamic) zipfDraw(weights []float64) func(*rand.Rand) []proc.ResID {
	return func(r *rand.Rand) []proc.ResID {
		k := d.MinDemand + r.IntN(d.MaxDemand-d.MinDemand+1)
		set := make([]proc.ResID, 0, k)
		left := 0.0
		for _, w := range weights {
			left += w
		}
		for len(set) < k {
			x := r.Float64() * left
			pick := -1
			for i, w := range weights {
				if slices.Contains(set, proc.ResID(i)) {
					continue
				}
				pick = i // the last one not drawn, should rounding leave x ≥ 0
				if x -= w; x < 0 {
					break
				}
			}
			set = append(set, proc.ResID(pick))
			left -= weights[pick]
		}
		slices.Sort(set)
		return set
	}
}
