package pool_test

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo/pool"
	"github.com/allot-dev/allot/conformance"
)

// TestLiteralReadingsBreak runs the two damaged places of the listing as
// printed (see the package doc) through the pool suite: raising TH[j]
// instead of TH[k] lets two crossing messages both be accepted, so a unit
// is held twice; updating HRSN[j] before the request test drops every
// accepted request, so its sender waits forever.
func TestLiteralReadingsBreak(t *testing.T) {
	for _, c := range []struct{ which, want string }{
		{"TH", "pool safety"},
		{"HRSN", "deadlock"},
	} {
		fails := conformance.CheckPool(pool.Literal(c.which), conformance.PoolCases(2))
		if len(fails) == 0 {
			t.Errorf("literal %s: the suite found nothing wrong", c.which)
			continue
		}
		found := false
		for _, f := range fails {
			found = found || strings.Contains(f.Why, c.want)
		}
		if !found {
			t.Errorf("literal %s: %d failures, none a %s failure; first: %s", c.which, len(fails), c.want, fails[0])
		}
		t.Logf("literal %s: %d of %d cases fail; first: %s", c.which, len(fails), len(conformance.PoolCases(2)), fails[0])
	}
}
