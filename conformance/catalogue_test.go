package conformance_test

import (
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/all"
	"github.com/allot-dev/allot/conformance"
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
