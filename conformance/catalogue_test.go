package conformance_test

import (
	"testing"

	"allot/algo"
	"allot/algo/all"
	"allot/conformance"
)

// TestCatalogue runs every catalogue entry through its kind's suite, so a
// new entry can never go untested.
func TestCatalogue(t *testing.T) {
	suites := map[algo.Kind]func(*testing.T, algo.Algorithm){
		algo.Exclusive: conformance.Exclusive,
		algo.Pool:      conformance.Pool,
		algo.Quota:     conformance.Quota,
	}
	for _, a := range all.List() {
		suite, ok := suites[a.Kind]
		if !ok {
			t.Errorf("%s: no conformance suite for %s algorithms", a.Name, a.Kind)
			continue
		}
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			suite(t, a)
		})
	}
}
