package conformance_test

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/pool"
	"github.com/allot-dev/allot/conformance"
	"github.com/allot-dev/allot/proc"
)

// regrant wraps an R-RESOURCES node so that it misbehaves: in mode
// "regrant" a node that has passed a unit on grants that unit to itself
// on its next request, without asking anyone; in mode "ignore-3" node 3
// never gets an answer to its requests.
type regrant struct {
	*pool.Node
	mode string
	gone int32 // a unit this node has sent away, -1 none
	fake bool  // the unit in use was granted by the bug
	sent map[proc.ID][]bool
}

// spy watches the node's messages for units it sends away.
type spy struct {
	proc.Env
	r *regrant
}

func (s spy) Send(to proc.ID, m proc.Message) {
	var row []bool
	switch m := m.(type) {
	case pool.Request:
		row = m.M
	case pool.Release:
		row = m.M
	}
	// A unit passed on: its flag is up in this message and was down in
	// the previous one on the same link.
	if prev, ok := s.r.sent[to]; ok {
		for u, away := range row {
			if away && !prev[u] {
				s.r.gone = int32(u)
			}
		}
	}
	s.r.sent[to] = row
	s.Env.Send(to, m)
}

func (r *regrant) Request(env proc.Env, q proc.Request) {
	switch {
	case r.mode == "ignore-3" && env.Self() == 3:
		return
	case r.mode == "regrant" && r.gone >= 0:
		r.fake = true
		env.Emit(proc.Event{Kind: proc.EvGrant, Unit: r.gone})
		return
	}
	r.Node.Request(spy{env, r}, q)
}

func (r *regrant) Release(env proc.Env) {
	if r.fake {
		r.fake = false
		return
	}
	r.Node.Release(spy{env, r})
}

func (r *regrant) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	r.Node.Deliver(spy{env, r}, from, m)
}

func brokenPool(mode string) algo.Algorithm {
	a := pool.Algorithm
	a.Name = "pool-" + mode
	a.Build = func(pb *algo.Problem) ([]proc.Process, error) {
		ps, err := pool.Build(pb)
		for i, p := range ps {
			ps[i] = &regrant{Node: p.(*pool.Node), mode: mode, gone: -1, sent: map[proc.ID][]bool{}}
		}
		return ps, err
	}
	return a
}

// TestPoolSuiteCatchesBrokenVariants shows the pool checks can fail: a
// node granting a unit it has passed on (one unit, two holders) and a node
// whose requests are never answered.
func TestPoolSuiteCatchesBrokenVariants(t *testing.T) {
	cases := conformance.PoolCases(1)
	for _, c := range []struct{ mode, want string }{
		{"regrant", "pool safety"},
		{"ignore-3", "deadlock"},
	} {
		fails := conformance.CheckPool(brokenPool(c.mode), cases)
		if len(fails) == 0 {
			t.Errorf("%s: the suite found nothing wrong", c.mode)
			continue
		}
		if !strings.Contains(fails[0].Why, c.want) || !strings.Contains(fails[0].String(), "seed=") {
			t.Errorf("%s: first failure %q, want a %s failure naming its seed", c.mode, fails[0], c.want)
		}
	}
}
