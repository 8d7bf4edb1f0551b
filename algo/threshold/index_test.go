package threshold

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/graph"
	"github.com/allot-dev/allot/proc"
)

// twinEnv records, in order, what a process sends and when it eats, and
// puts what it sends in flight.
type twinEnv struct {
	fakeEnv
	out []string
	net *[]flight
}

type flight struct {
	from, to proc.ID
	m        proc.Message
}

func (e *twinEnv) Send(to proc.ID, m proc.Message) {
	e.out = append(e.out, fmt.Sprintf("%d→%d %+v", e.self, to, m))
	*e.net = append(*e.net, flight{e.self, to, m})
}

func (e *twinEnv) Emit(proc.Event) { e.out = append(e.out, fmt.Sprintf("%d eats", e.self)) }

// TestIndexedStepsAsThePlain: on random graphs, inputs and message orders
// (channels reorder), processes stepping from the index send the same
// messages in the same order, and eat at the same steps, as processes
// looking at every flag; with clean/dirty priorities and with heights.
// The index is forced on every process, whatever its degree. Each run
// logs its seed.
func TestIndexedStepsAsThePlain(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	rise := func(_ proc.ID, h int64, nbr []int64) int64 { return slices.Max(append([]int64{h}, nbr...)) + 1 }
	for run := range 200 {
		n := 4 + rng.IntN(30)
		g, err := graph.Parse(fmt.Sprintf("random:%d:%.2f", n, 0.2+0.8*rng.Float64()), rand.New(rand.NewPCG(seed, uint64(run))))
		if err != nil {
			t.Fatal(err)
		}
		var r Rise
		if run%2 == 1 {
			r = rise
		}
		var sys [2][]proc.Process
		var nets [2][]flight
		for k := range sys {
			if sys[k], err = Build(algo.DiningProblem(g), r); err != nil {
				t.Fatal(err)
			}
			for _, p := range sys[k] {
				if p := p.(*Proc); k == 0 {
					p.ix = nil
				} else {
					p.ix = newIndex(p.flag)
				}
			}
		}
		for step := range 3000 {
			// One input, the same to both: a request, a release, or a
			// message in flight delivered, chosen by one draw.
			var what string
			var do func(k int, env *twinEnv)
			p := proc.ID(rng.IntN(n))
			switch c := rng.IntN(10); {
			case c == 0 && sys[0][p].(*Proc).state == thinking:
				what = fmt.Sprintf("request at %d", p)
				do = func(k int, env *twinEnv) { sys[k][p].(*Proc).Request(env, proc.Request{}) }
			case c == 1 && sys[0][p].(*Proc).state == eating:
				what = fmt.Sprintf("release at %d", p)
				do = func(k int, env *twinEnv) { sys[k][p].(*Proc).Release(env) }
			case len(nets[0]) > 0:
				j := rng.IntN(len(nets[0]))
				f := nets[0][j]
				what = fmt.Sprintf("%+v from %d at %d", f.m, f.from, f.to)
				p = f.to
				do = func(k int, env *twinEnv) {
					nets[k] = slices.Delete(nets[k], j, j+1)
					sys[k][f.to].Deliver(env, f.from, f.m)
				}
			default:
				continue
			}
			var outs [2][]string
			for k := range sys {
				env := &twinEnv{fakeEnv: fakeEnv{self: p}, net: &nets[k]}
				do(k, env)
				outs[k] = env.out
			}
			if !slices.Equal(outs[0], outs[1]) {
				t.Fatalf("seed %d, run %d (%d users, heights %v), step %d, %s: plain %q, indexed %q", seed, run, n, r != nil, step, what, outs[0], outs[1])
			}
		}
		for i, p := range sys[1] {
			p := p.(*Proc)
			if want := newIndex(p.flag); fmt.Sprint(*p.ix) != fmt.Sprint(*want) {
				t.Fatalf("seed %d, run %d: process %d's index %v, its flags' %v", seed, run, i, *p.ix, *want)
			}
			if !slices.Equal(p.flag, sys[0][i].(*Proc).flag) {
				t.Fatalf("seed %d, run %d: process %d's flags differ", seed, run, i)
			}
		}
	}
}

// TestIndexSeesAWrongStep: the comparison above catches an index whose
// count is wrong (a threshold point missed: R gives up a clean fork).
func TestIndexSeesAWrongStep(t *testing.T) {
	g, _ := graph.Parse("line:3", nil)
	var outs [2][]string
	for k := range outs {
		ps, _ := Build(algo.DiningProblem(g), nil)
		p := ps[1].(*Proc)
		if k == 1 {
			p.ix = newIndex(p.flag)
		}
		var net []flight
		env := &twinEnv{fakeEnv: fakeEnv{self: 1}, net: &net}
		// TestActions's script, to the threshold point protecting a fork.
		p.Deliver(env, 2, Req{})
		p.Request(env, proc.Request{})
		p.Deliver(env, 2, Fork{Clean: false})
		p.Deliver(env, 0, Fork{Clean: true})
		p.Deliver(env, 2, Req{})
		p.Deliver(env, 0, Req{})
		p.Release(env)
		p.Request(env, proc.Request{})
		p.Deliver(env, 2, Fork{Clean: true})
		p.Deliver(env, 2, Req{})
		p.Deliver(env, 0, Fork{Clean: true}) // at the threshold point
		if k == 1 {
			p.ix.short++ // the wrong index: short of it
		}
		p.Deliver(env, 0, Req{}) // the threshold point keeps the clean fork
		outs[k] = env.out
	}
	if slices.Equal(outs[0], outs[1]) {
		t.Fatalf("a wrong index stepped as the plain: %q", outs[0])
	}
}
