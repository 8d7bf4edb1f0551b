package conformance_test

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/controller"
	"github.com/allot-dev/allot/algo/counter"
	"github.com/allot-dev/allot/conformance"
	"github.com/allot-dev/allot/proc"
)

// quotaVariant builds a deliberately broken quota algorithm: the central
// counter or the controller run with a wrong budget, or with an Env that
// loses the exhausted signal, or a counter that never answers.
func quotaVariant(mode string) algo.Algorithm {
	return algo.Algorithm{
		Name: "broken-" + mode,
		Kind: algo.Quota,
		Build: func(pb *algo.Problem) ([]proc.Process, error) {
			b := *pb
			switch mode {
			case "over-budget": // one permit too many
				b.Budget++
				return counter.Build(&b)
			case "early-reject": // the root keeps W+1 permits back
				b.Budget -= min(b.Budget, b.Waste+1)
				b.Waste = 0
				return controller.Build(&b, true)
			case "no-signal", "silent":
				ps, err := counter.Build(&b)
				for i := range ps {
					ps[i] = &muffled{Allocator: ps[i].(proc.Allocator), mode: mode}
				}
				return ps, err
			}
			panic(mode)
		},
	}
}

// muffled drops events on their way out: the exhausted signal
// (no-signal), or every answer to requests made at node 1 (silent).
type muffled struct {
	proc.Allocator
	mode string
}

type muffledEnv struct {
	proc.Env
	mode string
}

func (e muffledEnv) Emit(ev proc.Event) {
	if e.mode == "no-signal" && ev.Kind == proc.EvExhausted || e.mode == "silent" && e.Self() == 1 {
		return
	}
	e.Env.Emit(ev)
}

func (m *muffled) Start(env proc.Env) { m.Allocator.Start(muffledEnv{env, m.mode}) }
func (m *muffled) Deliver(env proc.Env, from proc.ID, msg proc.Message) {
	m.Allocator.Deliver(muffledEnv{env, m.mode}, from, msg)
}
func (m *muffled) Request(env proc.Env, r proc.Request) {
	m.Allocator.Request(muffledEnv{env, m.mode}, r)
}

// TestQuotaSuiteCatchesBrokenVariants shows that each check of the quota
// suite can fail.
func TestQuotaSuiteCatchesBrokenVariants(t *testing.T) {
	cases := conformance.QuotaCases(1)
	for _, c := range []struct{ mode, want string }{
		{"over-budget", "exceeds the budget"},
		{"early-reject", "M-W"},
		{"no-signal", "exhausted signals=0"},
		{"silent", "deadlock"},
	} {
		fails := conformance.CheckQuota(quotaVariant(c.mode), cases)
		if len(fails) == 0 {
			t.Errorf("%s: the suite found nothing wrong", c.mode)
			continue
		}
		found := false
		for _, f := range fails {
			found = found || strings.Contains(f.Why, c.want)
		}
		if !found {
			t.Errorf("%s: no failure says %q; first: %s", c.mode, c.want, fails[0])
		}
		if !strings.Contains(fails[0].String(), "seed=") {
			t.Errorf("%s: failure does not name its seed: %s", c.mode, fails[0])
		}
	}
}
