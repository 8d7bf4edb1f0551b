// Package algo describes an allocation problem instance and the algorithms
// that solve it. Each algorithm lives in its own package under algo/ and
// exports an Algorithm value; package algo/all lists them.
//
// A run has Problem.Users application processes, ids 0..Users-1, which the
// driver calls as proc.Allocator. An algorithm may add helper processes
// after them (a coordinator, resource managers, granting processes): Build
// returns every process of the run, users first.
//
// # Messages and timers
//
// Every algorithm declares the types its processes send and arm, in its
// Algorithm's Messages and Timers, one zero value of each type:
//
//	var Algorithm = algo.Algorithm{
//		Name:     "central",
//		...
//		Messages: []proc.Message{Req{}, Grant{}, Rel{}},
//	}
//
// The declarations are the registry the wire codec (package codec) reads:
// what is not declared cannot be encoded, so it can neither cross the
// network nor be fingerprinted by the explorer. A type is exported, named,
// and a plain value built of booleans, integers, floats, strings, slices,
// arrays and structs with exported fields (no maps, pointers, funcs or
// channels; a field of type proc.Message or proc.Timer holds a declared
// type). An algorithm that hosts a subroutine lists the subroutine's types
// after its own (modular.For, drinking.For), and one that reuses another
// package's messages lists that package's declaration (unhygienic). The
// codec's tests run every catalogue entry in the simulator and fail on any
// message or timer that is not declared or does not survive the codec, so
// a new algorithm cannot forget one.
package algo

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// Kind is the problem an algorithm solves.
type Kind uint8

const (
	Exclusive Kind = iota // sets of exclusive resources (dining, drinking, dynamic)
	Pool                  // one unit out of R identical units
	Quota                 // permits out of a global budget
)

var kindNames = []string{"exclusive", "pool", "quota"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind is the inverse of Kind.String.
func ParseKind(s string) (Kind, error) {
	if i := slices.Index(kindNames, s); i >= 0 {
		return Kind(i), nil
	}
	return 0, fmt.Errorf("unknown kind %q (want exclusive, pool or quota)", s)
}

// Problem is one instance an algorithm is built for.
type Problem struct {
	Kind  Kind
	Users int // application processes, ids 0..Users-1

	// Exclusive problems.
	//
	// Resources are 0..Resources-1. MaxSets[u] is every resource user u may
	// ever request, sorted: its whole incident edge set on a dining graph,
	// its fixed set with fixed sets, else every resource. Conflict joins two
	// users whose MaxSets intersect: dining algorithms put one fork on each
	// of its edges. Dining is true when the instance is a dining graph (every
	// request is the user's whole MaxSet).
	Resources int
	MaxSets   [][]proc.ResID
	Conflict  *graph.Graph
	// NoConflict says why Conflict is nil when the workload had one too
	// large to build (it wraps ErrTooLarge); algorithms that need the
	// graph refuse the problem with it.
	NoConflict error
	Dining     bool
	// MaxDemand is the most resources one request names, when the workload
	// knows a bound below the largest MaxSet (a dynamic workload whose
	// users may ask for any K of all the resources); 0 means the largest
	// MaxSet is the bound.
	MaxDemand int

	// Graph is the communication graph for pool and quota problems.
	Graph *graph.Graph
	Units int // pool: R
	// Quota: the budget M and the allowed waste W.
	Budget, Waste int

	// FIFO is true when the network delivers in order on every link.
	FIFO bool
	// Failure is an optional per-user failure likelihood in [0,1] (the
	// failure model of the unhygienic algorithm); nil means unknown.
	Failure []float64
	// Options are algorithm-specific settings (name=value), for example from
	// a scenario file. An algorithm rejects the ones it does not know.
	Options map[string]string
}

// Algorithm is one entry of the catalogue.
type Algorithm struct {
	Name string
	Kind Kind
	// Summary is one line for listings.
	Summary string
	// NeedsFIFO is true for algorithms proved only on FIFO channels.
	NeedsFIFO bool
	// Options are the keys of Problem.Options that Build reads (nil:
	// none). A driver hands an algorithm only these, so that several
	// algorithms can run side by side on one problem; a key no algorithm
	// of a run takes is the user's error.
	Options []string
	// PerResource is true when Build adds one process per resource (a
	// resource manager, a granting process): a run's size then grows with
	// the resources, not only with the users.
	PerResource bool
	// PerShared, when set, is how many resources the algorithm keeps
	// state for per pair of conflicting users (a bottle per shared
	// resource), so that a run's size can be told before Build makes it.
	PerShared func(p *Problem) int64
	// ResourceBytes is the memory the processes keep per resource of the
	// problem, at its peak (tables indexed by resource id, grown as ids
	// appear), so that a run's size can be told before Build makes it.
	ResourceBytes int64
	// Build returns all processes of a run, users first. It returns an
	// error for a problem the algorithm cannot solve.
	Build func(p *Problem) ([]proc.Process, error)
	// Process, when set, builds process id of the run Build would return
	// for p, alone: the same process as Build(p)[id] (id ≥ 0 and below
	// Build's count), made without building the others or knowing the
	// users' sets. Only an algorithm whose processes do not depend on the
	// whole user and resource set has one (central, ordered; modular over
	// such a subroutine: Rhee's dynamic problem, §3, where users appear at any
	// time with any set). A host then builds a process when it is first
	// used, on a problem far larger than the processes it ever makes (the
	// service's locks). It returns an error for a problem Build refuses
	// or an id outside the run.
	Process func(p *Problem, id proc.ID) (proc.Process, error)
	// Messages holds a value of every message type the processes of a run
	// send, and Timers a value of every timer type they arm, the
	// subroutine's included for an algorithm that hosts one (they travel
	// inside proc.Wrapped and proc.WrappedTimer, which are never listed).
	// See "Messages and timers" in the package comment.
	Messages []proc.Message
	Timers   []proc.Timer
}

// ErrTooLarge says a conflict graph would be too large to build: a
// workload where many users may ask for the same resources (every user may
// ask for every resource without fixed sets) conflicts everyone with
// everyone.
var ErrTooLarge = errors.New("too large")

// TooLarge is an error, formatted as fmt.Errorf does, that is ErrTooLarge.
func TooLarge(format string, args ...any) error {
	return tooLarge{fmt.Sprintf(format, args...)}
}

type tooLarge struct{ msg string }

func (e tooLarge) Error() string        { return e.msg }
func (e tooLarge) Is(target error) bool { return target == ErrTooLarge }

// ConflictGraph joins users whose resource sets intersect, in a fixed edge
// order: resource by resource, pairs of its users in order, each pair at
// its first shared resource. Resources shared by many users make it dense;
// that is the conflict graph's nature. A graph of more than graph.MaxEdges
// edges is refused (ErrTooLarge) before any is built.
func ConflictGraph(users int, maxSets [][]proc.ResID) (*graph.Graph, error) {
	type pair = [2]proc.ID
	if bound := conflictBound(users, maxSets); bound > graph.MaxEdges {
		return nil, TooLarge("the conflict graph of %d users would have up to %.3g edges (at most %d)", users, bound, graph.MaxEdges)
	}
	if same(maxSets) { // every user may ask for the same resources
		if len(maxSets) == 0 || len(maxSets[0]) == 0 {
			return graph.New(users, nil)
		}
		edges := make([]pair, 0, users*(users-1)/2)
		for i := 0; i < users; i++ {
			for j := i + 1; j < users; j++ {
				edges = append(edges, pair{proc.ID(i), proc.ID(j)})
			}
		}
		return graph.New(users, edges)
	}
	byRes := map[proc.ResID][]proc.ID{}
	for u, set := range maxSets {
		for _, r := range set {
			byRes[r] = append(byRes[r], proc.ID(u))
		}
	}
	seen := map[pair]bool{}
	var edges []pair
	for _, r := range slices.Sorted(maps.Keys(byRes)) {
		us := byRes[r]
		for i := range us {
			for j := i + 1; j < len(us); j++ {
				e := pair{us[i], us[j]}
				if !seen[e] {
					seen[e] = true
					edges = append(edges, e)
				}
			}
		}
	}
	return graph.New(users, edges)
}

// conflictBound bounds the conflict graph's edge count without building
// it: pairs of users sharing some resource, at most every pair.
func conflictBound(users int, maxSets [][]proc.ResID) float64 {
	all := float64(users) * float64(users-1) / 2
	if same(maxSets) {
		if len(maxSets) == 0 || len(maxSets[0]) == 0 {
			return 0
		}
		return all
	}
	count := map[proc.ResID]float64{}
	for _, set := range maxSets {
		for _, r := range set {
			count[r]++
		}
	}
	var b float64
	for _, n := range count { // any order: whole numbers, summed exactly
		b += n * (n - 1) / 2
	}
	return min(b, all)
}

// same reports whether every set is the first one (the same slice, as a
// workload without fixed sets hands every user).
func same(sets [][]proc.ResID) bool {
	for _, s := range sets {
		if len(s) != len(sets[0]) || len(s) > 0 && &s[0] != &sets[0][0] {
			return false
		}
	}
	return true
}

// DiningProblem is the exclusive problem of a conflict graph: each node is
// a user, each edge a resource, each request the user's incident edges.
func DiningProblem(g *graph.Graph) *Problem {
	sets := make([][]proc.ResID, g.N())
	all := make([]proc.ResID, 0, 2*g.M()) // one array for every set
	for p := range sets {
		start := len(all)
		all = append(all, g.Edges(proc.ID(p))...)
		sets[p] = all[start:len(all):len(all)]
		slices.Sort(sets[p])
	}
	return &Problem{Kind: Exclusive, Users: g.N(), Resources: g.M(), MaxSets: sets, Conflict: g, Dining: true}
}

// ConflictGraph returns the problem's conflict graph, or why it has none:
// NoConflict says why a workload built none. A nil graph with a nil error
// means nobody has tried.
func (p *Problem) ConflictGraph() (*graph.Graph, error) {
	if p.Conflict == nil && p.NoConflict != nil {
		return nil, fmt.Errorf("needs the conflict graph: %w", p.NoConflict)
	}
	return p.Conflict, nil
}

// Completed returns a copy of the exclusive problem p with what a hosted
// subroutine needs filled in: MaxSets (every resource for every user when
// the sets are unknown) and Conflict (computed from MaxSets when missing).
// The modular and drinking algorithms build their subroutines for it.
func (p *Problem) Completed() (*Problem, error) {
	sp := *p
	if sp.MaxSets == nil {
		all := make([]proc.ResID, p.Resources)
		for k := range all {
			all[k] = proc.ResID(k)
		}
		sp.MaxSets = make([][]proc.ResID, p.Users)
		for u := range sp.MaxSets {
			sp.MaxSets[u] = all
		}
		sp.Conflict = nil
	}
	if len(sp.MaxSets) != p.Users {
		return nil, fmt.Errorf("%d maximum sets for %d users", len(sp.MaxSets), p.Users)
	}
	if sp.Conflict == nil {
		if p.NoConflict != nil {
			return nil, fmt.Errorf("needs the conflict graph: %w", p.NoConflict)
		}
		g, err := ConflictGraph(p.Users, sp.MaxSets)
		if err != nil {
			return nil, err
		}
		sp.Conflict = g
	}
	return &sp, nil
}
