// Package study holds what every reproduction shares: a claim of a paper
// checked against measurements, the options a reproduction runs with, and
// the Experiment that `allot repro NAME` runs. Each paper's experiments live
// in a package of their own under experiments/; they run their points on the
// shared engine of package sweep and read only events and metrics.
package study

import (
	"context"
	"errors"

	"github.com/allot-dev/allot/experiments/sweep"
)

// Claim is one statement of a paper checked against measurements.
type Claim struct {
	ID       string `json:"id"`       // short, stable: "locality/threshold-fl2"
	Paper    string `json:"paper"`    // "sivilotti §5"
	Claim    string `json:"claim"`    // the paper's statement, in one sentence
	Measured string `json:"measured"` // what was measured, with the numbers
	// Figures are the numbers Measured quotes, by name ("slope", "r2",
	// "n=8:hygienic"), for a program that reads the JSON: taken from the
	// same variables as the prose, never parsed back from it.
	Figures map[string]float64 `json:"figures,omitempty"`
	Pass    bool               `json:"pass"`
	// Finding, on a claim that fails, says that the failure is a result
	// and not a fault of the reproduction: the claim was judged as the
	// paper states it (its words, its range, its metric) and did not
	// hold. It quotes the paper's words beside the numbers that contradict
	// them. Empty on a claim that passes, and on a failure nobody has
	// read as the paper's: that one is a fault to look for.
	Finding string `json:"finding,omitempty"`
}

// The verdicts of a claim, as Verdict names them.
const (
	VerdictPass    = "pass"
	VerdictFail    = "fail"
	VerdictFinding = "finding"
)

// Verdict is "pass", "finding" (it fails, as a result about the paper) or
// "fail" (it fails, and nothing says why: a fault until read).
func (c Claim) Verdict() string {
	switch {
	case c.Pass:
		return VerdictPass
	case c.Finding != "":
		return VerdictFinding
	}
	return VerdictFail
}

// Options set how an experiment runs.
type Options struct {
	Quick bool   // the small configuration the tests use
	Seed  uint64 // base seed; each run derives its own from it
	// OutDir, when set, is where figures (SVG) are written.
	OutDir string
	// Progress, when set, is told about finished units of work.
	Progress func(done, total int)
	// Points, when set, runs the stages of an experiment built on
	// sweep.Each and sweep.Repeat: a shard of them, or none when their
	// results come from merged shards. Nil runs every point in memory.
	Points *sweep.Points
}

// Steps runs an experiment's steps in order and joins their claims. A
// sharded step (sweep.ErrPartial) has no claims, but the steps after it
// still run their share; Steps then returns sweep.ErrPartial.
func Steps(ctx context.Context, o Options, steps ...func(context.Context, Options) ([]Claim, error)) ([]Claim, error) {
	var claims []Claim
	partial := false
	for _, step := range steps {
		cs, err := step(ctx, o)
		switch {
		case errors.Is(err, sweep.ErrPartial):
			partial = true
		case err != nil:
			return nil, err
		}
		claims = append(claims, cs...)
	}
	if partial {
		return nil, sweep.ErrPartial
	}
	return claims, nil
}

// Experiment is one reproduction, named for `allot repro NAME`.
type Experiment struct {
	Name    string
	Paper   string
	Summary string
	Run     func(ctx context.Context, o Options) ([]Claim, error)
}
