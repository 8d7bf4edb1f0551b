package drinking

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// For returns the drinking philosophers algorithm with sub as the dining
// subroutine, named drinking-<sub>.
func For(sub algo.Algorithm) algo.Algorithm {
	return forVariant(sub, variant{})
}

// variant holds deliberately broken behaviours, for the tests that show the
// checkers catch them. The zero value is the algorithm.
type variant struct {
	yieldWhileDrinking bool // hand a requested bottle over even while drinking with it
	noYieldOnArrival   bool // apply the yielding rule only when a request arrives, not when a bottle does
}

// Broken returns the drinking philosophers over sub with each broken
// behaviour the package's tests keep, named drinking-<sub>/<variant>:
// yield-while-drinking and no-yield-on-arrival (see variant). Neither is in
// the catalogue.
func Broken(sub algo.Algorithm) []algo.Algorithm {
	var out []algo.Algorithm
	for _, b := range []struct {
		name string
		v    variant
	}{{"yield-while-drinking", variant{yieldWhileDrinking: true}}, {"no-yield-on-arrival", variant{noYieldOnArrival: true}}} {
		a := forVariant(sub, b.v)
		a.Name += "/" + b.name
		a.Summary = "BROKEN on purpose: " + a.Summary + ", " + b.name
		out = append(out, a)
	}
	return out
}

func forVariant(sub algo.Algorithm, v variant) algo.Algorithm {
	return algo.Algorithm{
		Name:      "drinking-" + sub.Name,
		Kind:      algo.Exclusive,
		Summary:   "Chandy–Misra drinking philosophers (Welch–Lynch modular form): bottles per pair, " + sub.Name + " as the dining layer",
		NeedsFIFO: sub.NeedsFIFO,
		Options:   sub.Options,
		PerShared: bottles,
		Build: func(pb *algo.Problem) ([]proc.Process, error) {
			return build(sub, pb, v)
		},
		Messages: slices.Concat([]proc.Message{Request{}, Bottle{}}, sub.Messages),
		Timers:   sub.Timers,
	}
}

// Request asks the neighbour for the bottle of resource Res on the edge
// between them (it is the pair's request token).
type Request struct{ Res proc.ResID }

// Bottle hands over the bottle of resource Res on that edge.
type Bottle struct{ Res proc.ResID }

// Kinds are prefixed so that they never merge with a subroutine's.
func (Request) Kind() string { return "drinking.request" }
func (Bottle) Kind() string  { return "drinking.bottle" }

func build(sub algo.Algorithm, pb *algo.Problem, v variant) ([]proc.Process, error) {
	name := "drinking-" + sub.Name
	if sub.Kind != algo.Exclusive {
		return nil, fmt.Errorf("%s: subroutine %s solves %s, not exclusive", name, sub.Name, sub.Kind)
	}
	if pb.Kind != algo.Exclusive {
		return nil, fmt.Errorf("%s: solves exclusive problems, not %s", name, pb.Kind)
	}
	if pb.Users < 1 {
		return nil, fmt.Errorf("%s: need at least one user", name)
	}
	sp, err := subProblem(pb)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	subProcs, err := sub.Build(sp)
	if err != nil {
		return nil, fmt.Errorf("%s: subroutine: %w", name, err)
	}
	if len(subProcs) < pb.Users {
		return nil, fmt.Errorf("%s: subroutine %s built %d processes for %d users", name, sub.Name, len(subProcs), pb.Users)
	}
	procs := make([]proc.Process, 0, len(subProcs))
	users := make([]user, pb.Users)
	for i := range users {
		a, ok := subProcs[i].(proc.Allocator)
		if !ok {
			return nil, fmt.Errorf("%s: subroutine %s: user %d is not an allocator", name, sub.Name, i)
		}
		u := &users[i]
		u.id, u.sub, u.v = proc.ID(i), a, v
		u.maxSet = sp.MaxSets[i]
		for _, k := range u.maxSet {
			if k < 0 || int(k) >= pb.Resources {
				return nil, fmt.Errorf("%s: user %d: resource %d outside 0..%d", name, i, k, pb.Resources-1)
			}
		}
		for _, q := range sp.Conflict.Neighbors(u.id) {
			for _, k := range intersect(u.maxSet, sp.MaxSets[q]) {
				var bits uint8
				if u.id < q {
					bits = hasBottle
				} else {
					bits = hasToken
				}
				u.bottles = append(u.bottles, bottle{peer: q, res: k, bits: bits})
			}
		}
		slices.SortFunc(u.bottles, func(a, b bottle) int {
			return cmp.Or(cmp.Compare(a.peer, b.peer), cmp.Compare(a.res, b.res))
		})
		procs = append(procs, u)
	}
	if err := checkShared(sp); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, h := range subProcs[pb.Users:] {
		procs = append(procs, &proc.Host{Inner: h})
	}
	return procs, nil
}

// subProblem is the problem the dining subroutine is built for: the same
// users, resources, maximum sets and conflict graph (computed from the
// maximum sets when the caller left it out; every resource when the sets are
// unknown). Each user asks the subroutine for its whole maximum set, so
// the subroutine excludes exactly the users' conflict neighbours: the
// dining problem of the conflict graph.
func subProblem(pb *algo.Problem) (*algo.Problem, error) {
	sp, err := pb.Completed()
	if err != nil {
		return nil, err
	}
	for u, s := range sp.MaxSets {
		if !slices.IsSorted(s) {
			return nil, fmt.Errorf("maximum set of user %d is not sorted", u)
		}
	}
	if sp.Conflict.N() != pb.Users {
		return nil, fmt.Errorf("conflict graph has %d nodes for %d users", sp.Conflict.N(), pb.Users)
	}
	return sp, nil
}

// checkShared makes sure that every two users whose maximum sets meet are
// neighbours of the conflict graph: bottles lie on its edges only, and the
// dining layer must order every two users that share a bottle.
func checkShared(sp *algo.Problem) error {
	byRes := make([][]proc.ID, 0)
	for u, s := range sp.MaxSets {
		for _, k := range s {
			for int(k) >= len(byRes) {
				byRes = append(byRes, nil)
			}
			byRes[k] = append(byRes[k], proc.ID(u))
		}
	}
	mark := make([]int32, sp.Users) // mark[w] == u+1: w is a neighbour of u
	for u, s := range sp.MaxSets {
		for _, w := range sp.Conflict.Neighbors(proc.ID(u)) {
			mark[w] = int32(u) + 1
		}
		for _, k := range s {
			for _, w := range byRes[k] {
				if int(w) != u && mark[w] != int32(u)+1 {
					return fmt.Errorf("users %d and %d share resource %d but are not neighbours in the conflict graph", u, w, k)
				}
			}
		}
	}
	return nil
}

// intersect is the sorted intersection of two sorted sets.
func intersect(a, b []proc.ResID) []proc.ResID {
	var out []proc.ResID
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// bottles bounds the bottles a run keeps: for each pair of conflicting
// users, the smaller of their maximum sets (every resource, for users
// without fixed sets).
func bottles(pb *algo.Problem) int64 {
	g := pb.Conflict
	if g == nil {
		return 0
	}
	size := func(u proc.ID) int64 {
		if pb.MaxSets == nil {
			return int64(pb.Resources)
		}
		return int64(len(pb.MaxSets[u]))
	}
	var n int64
	for u := proc.ID(0); int(u) < g.N(); u++ {
		for _, v := range g.Neighbors(u) {
			if v > u {
				n += min(size(u), size(v))
			}
		}
	}
	return n
}
