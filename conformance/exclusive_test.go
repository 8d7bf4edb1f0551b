package conformance_test

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/conformance"
	"github.com/allot-dev/allot/proc"
)

// broken wraps central's coordinator so that it misbehaves in one way.
type broken struct {
	*central.Coordinator
	mode string
}

func (b *broken) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	switch b.mode {
	case "grant-all": // grants every request at once: exclusion fails
		if _, ok := m.(central.Req); ok {
			env.Send(from, central.Grant{})
		}
	case "never": // grants nothing: every run deadlocks
	case "starve-0": // never serves user 0, serves the rest correctly
		if _, ok := m.(central.Req); ok && from == 0 {
			return
		}
		b.Coordinator.Deliver(env, from, m)
	}
}

func variant(mode string) algo.Algorithm {
	return algo.Algorithm{
		Name: "central-" + mode,
		Kind: algo.Exclusive,
		Build: func(pb *algo.Problem) ([]proc.Process, error) {
			ps, err := central.Build(pb)
			if err != nil {
				return nil, err
			}
			ps[len(ps)-1] = &broken{Coordinator: central.NewCoordinator(), mode: mode}
			return ps, nil
		},
	}
}

// TestSuiteCatchesBrokenVariants shows that each check of the suite can
// fail: exclusion, deadlock and starvation.
func TestSuiteCatchesBrokenVariants(t *testing.T) {
	cases := conformance.Cases(1)
	for _, c := range []struct{ mode, want string }{
		{"grant-all", "exclusion"},
		{"never", "deadlock"},
		{"starve-0", "deadlock"}, // quiescent with user 0 waiting forever
	} {
		fails := conformance.Check(variant(c.mode), cases)
		if len(fails) == 0 {
			t.Errorf("%s: the suite found nothing wrong", c.mode)
			continue
		}
		if !strings.Contains(fails[0].Why, c.want) {
			t.Errorf("%s: first failure %q, want a %s failure", c.mode, fails[0], c.want)
		}
		if !strings.Contains(fails[0].String(), "seed=") {
			t.Errorf("%s: failure does not name its seed: %s", c.mode, fails[0])
		}
	}
}
