// Package experiments lists the reproductions of the papers' claims. Each
// paper's experiments run in the simulator, measure, and state every claim
// with the measured numbers and a pass/fail rule (package study); `allot
// repro` runs them and the tests run the --quick configuration.
package experiments

import (
	"allot/experiments/controller"
	"allot/experiments/pool"
	"allot/experiments/study"
)

// All lists the reproductions, one per paper, in the order `allot repro`
// runs them.
func All() []study.Experiment {
	return []study.Experiment{Locality(), Rhee(), Bidding(), pool.Experiment(), controller.Experiment()}
}
