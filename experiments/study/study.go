// Package study holds what every reproduction shares: a claim of a paper
// checked against measurements, the options a reproduction runs with, and
// the Experiment that `allot repro NAME` runs. Each paper's experiments live
// in a package of their own under experiments/; they run their points on the
// shared engine of package sweep and read only events and metrics.
package study

import "context"

// Claim is one statement of a paper checked against measurements.
type Claim struct {
	ID       string `json:"id"`       // short, stable: "locality/threshold-fl2"
	Paper    string `json:"paper"`    // "sivilotti §5"
	Claim    string `json:"claim"`    // the paper's statement, in one sentence
	Measured string `json:"measured"` // what was measured, with the numbers
	Pass     bool   `json:"pass"`
}

// Options set how an experiment runs.
type Options struct {
	Quick bool   // the small configuration the tests use
	Seed  uint64 // base seed; each run derives its own from it
	// OutDir, when set, is where figures (SVG) are written.
	OutDir string
	// Progress, when set, is told about finished units of work.
	Progress func(done, total int)
}

// Experiment is one reproduction, named for `allot repro NAME`.
type Experiment struct {
	Name    string
	Paper   string
	Summary string
	Run     func(ctx context.Context, o Options) ([]Claim, error)
}
