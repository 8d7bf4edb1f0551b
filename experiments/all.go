// Package experiments lists the reproductions of the papers' claims, one
// package per paper (experiments/locality, experiments/rhee,
// experiments/bidding, …), all on the shared engine of experiments/sweep
// with the types of experiments/study. Each paper's experiments run in the
// simulator, measure from events and metrics only, and state every claim
// with the measured numbers and a pass/fail rule; `allot repro` runs them
// and the tests run the --quick configuration.
package experiments

import (
	"github.com/allot-dev/allot/experiments/applications"
	"github.com/allot-dev/allot/experiments/bidding"
	"github.com/allot-dev/allot/experiments/controller"
	"github.com/allot-dev/allot/experiments/locality"
	"github.com/allot-dev/allot/experiments/pool"
	"github.com/allot-dev/allot/experiments/rhee"
	"github.com/allot-dev/allot/experiments/study"
)

// All lists the reproductions, one per paper, in the order `allot repro`
// runs them.
func All() []study.Experiment {
	return []study.Experiment{locality.Experiment(), rhee.Experiment(), bidding.Experiment(), applications.Experiment(), pool.Experiment(), controller.Experiment()}
}
