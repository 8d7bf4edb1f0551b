package experiments

// All lists the reproductions, one per paper, in the order `allot repro`
// runs them.
func All() []Experiment {
	return []Experiment{Locality(), Rhee(), Bidding()}
}
