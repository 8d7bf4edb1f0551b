// Package unhygienic implements the unhygienic variant of the dynamic
// threshold-point algorithm, Sivilotti, Pike and Sridhar §6 (after Joshi and
// Misra): the partial order of priorities is kept by integer heights,
// distinct between neighbours, a smaller height having priority. After
// eating a process must rise — to a greater height that no neighbour has —
// but need not rise above all, or any, of its neighbours. A failure model
// sets how far: a failure-prone process rises little and so stays, on
// average, below its neighbours (with priority over them), where its crash
// harms fewer processes (§6: the failure set of the threshold algorithm
// reaches two hops only through the neighbours with priority over the
// crashed process; keeping w, their proportion, near 0 brings the expected
// failure locality near 1).
//
// The fork collection is package threshold's (actions H, P, E, R); only the
// priority changes hands: a fork carries its sender's height, and the
// priority over an edge is read from the two heights instead of the fork's
// colour ("requested forks may arrive dirty").
//
// # Failure model and rise rule
//
// The failure likelihood of user u is algo.Problem.Failure[u] in [0, 1]
// (nil: 0 for all). Eating at height h with neighbours at heights nbr, let
// top = max(nbr)+1 (above all of them, at least h+1). Then
//
//	rule=aware (default)  h + max(1, ⌈(1−f)·(top−h)⌉)
//	rule=blind            top, whatever f (every process rises above all its
//	                      neighbours, as in the hygienic algorithm)
//
// and in both cases the first height from there up that no neighbour has.
// A process with f = 0 behaves as under the blind rule; one with f = 1 rises
// by the least amount allowed. Progress needs only that heights grow
// (§6 (i)); acyclicity needs only that neighbours differ (§6 (ii)).
//
// Initially process p of n is at height n−1−p (the larger id has priority,
// as in packages hygienic and threshold).
//
// Options: rule=aware|blind.
package unhygienic

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/threshold"
	"github.com/allot-dev/allot/proc"
)

// Algorithm is the catalogue entry.
var Algorithm = algo.Algorithm{
	Name:    "unhygienic",
	Kind:    algo.Exclusive,
	Summary: "threshold points with integer heights set by a failure model (Sivilotti–Pike–Sridhar §6)",
	Options: []string{"rule"},
	Build:   Build,

	Messages: threshold.Algorithm.Messages, // it runs the threshold processes
}

// Build builds the processes; see the package comment for the options.
func Build(pb *algo.Problem) ([]proc.Process, error) {
	blind := false
	for _, k := range slices.Sorted(maps.Keys(pb.Options)) { // the first bad one, the same every time
		v := pb.Options[k]
		switch {
		case k == "rule" && v == "aware":
		case k == "rule" && v == "blind":
			blind = true
		default:
			return nil, fmt.Errorf("unhygienic: unknown option %s=%s (want rule=aware or rule=blind)", k, v)
		}
	}
	if pb.Failure != nil && len(pb.Failure) != pb.Users {
		return nil, fmt.Errorf("unhygienic: %d failure likelihoods for %d users", len(pb.Failure), pb.Users)
	}
	for u, f := range pb.Failure {
		if !(f >= 0 && f <= 1) {
			return nil, fmt.Errorf("unhygienic: failure likelihood %v of user %d is not in [0,1]", f, u)
		}
	}
	fail := slices.Clone(pb.Failure)
	if fail == nil || blind {
		fail = make([]float64, pb.Users)
	}
	return threshold.Build(pb, func(p proc.ID, h int64, nbr []int64) int64 {
		return Rise(fail[p], h, nbr)
	})
}

// Rise is the aware rule for a process of failure likelihood f at height h
// with neighbours at heights nbr.
func Rise(f float64, h int64, nbr []int64) int64 {
	top := h + 1
	for _, x := range nbr {
		top = max(top, x+1)
	}
	step := max(1, int64(math.Ceil((1-f)*float64(top-h))))
	n := h + step
	for slices.Contains(nbr, n) {
		n++
	}
	return n
}
