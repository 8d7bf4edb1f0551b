package explore

import (
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// A toy pool (a server owning the units) shows that check.Pool, fed by the
// paths' events, catches a server that grants a unit twice, with the
// shortest path to it (the catalogue's pools are explored in
// TestCatalogue, Carvalho's literal readings in TestBrokenVariants).

type acq struct{}
type rel struct{ U int32 }
type granted struct{ U int32 }

func (acq) Kind() string     { return "acq" }
func (rel) Kind() string     { return "rel" }
func (granted) Kind() string { return "granted" }

type poolUser struct {
	server proc.ID
	unit   int32
}

func (u *poolUser) Start(proc.Env)                       {}
func (u *poolUser) Fire(proc.Env, proc.Timer)            {}
func (u *poolUser) Request(env proc.Env, _ proc.Request) { env.Send(u.server, acq{}) }
func (u *poolUser) Release(env proc.Env)                 { env.Send(u.server, rel{u.unit}) }
func (u *poolUser) Deliver(env proc.Env, _ proc.ID, m proc.Message) {
	u.unit = m.(granted).U
	env.Emit(proc.Event{Kind: proc.EvGrant, Unit: u.unit})
}

type poolServer struct {
	used    []bool
	waiting []proc.ID
	broken  bool // never marks a unit used
}

func (s *poolServer) Start(proc.Env)            {}
func (s *poolServer) Fire(proc.Env, proc.Timer) {}
func (s *poolServer) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if r, ok := m.(rel); ok {
		s.used[r.U] = false
	} else {
		s.waiting = append(s.waiting, from)
	}
	for u := range s.used {
		if !s.used[u] && len(s.waiting) > 0 {
			s.used[u] = !s.broken
			env.Send(s.waiting[0], granted{int32(u)})
			s.waiting = s.waiting[1:]
		}
	}
}

func toyPool(broken bool) algo.Algorithm {
	return algo.Algorithm{Name: "toy-pool", Kind: algo.Pool, Build: func(pb *algo.Problem) ([]proc.Process, error) {
		var ps []proc.Process
		for range pb.Users {
			ps = append(ps, &poolUser{server: proc.ID(pb.Users)})
		}
		return append(ps, &poolServer{used: make([]bool, pb.Units), broken: broken}), nil
	}}
}

// TestPool: a pool of 1 unit shared by 3 users.
func TestPool(t *testing.T) {
	pb := &algo.Problem{Kind: algo.Pool, Users: 3, Units: 1}
	r, err := Run(Config{Algorithm: toyPool(false), Problem: pb, Requests: 2, Locality: -1})
	if err != nil || r.Violations > 0 || !r.Complete {
		t.Fatalf("%v %+v", err, r)
	}
	r, err = Run(Config{Algorithm: toyPool(true), Problem: pb, Requests: 1, Locality: -1})
	if err != nil {
		t.Fatal(err)
	}
	// Two acquire, both acq messages arrive, the server grants unit 0
	// twice, both grants arrive: 6 steps.
	if ce := r.Counterexample; ce == nil || ce.Kind != Safety || ce.Length != 6 {
		t.Fatalf("the double grant: %+v", ce)
	}
}
