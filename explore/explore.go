package explore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/app"
	"github.com/allot-dev/allot/proc"
)

// Config is one exploration: an instance, the workload, the bounds.
type Config struct {
	Algorithm algo.Algorithm
	Problem   *algo.Problem
	// Next is the users' request generator (nil: the whole maximum set,
	// as in app.Workload). It draws from the user's own seeded stream.
	Next func(u proc.ID, rnd *rand.Rand) proc.Request
	// Requests is how many requests each user makes (≥ 1).
	Requests int
	// FIFO channels: only the head of each link may be delivered.
	FIFO bool
	// Crash lists the processes that may crash, each at any step (or
	// never): a crash is one more enabled input.
	Crash []proc.ID
	// Locality is the failure locality claimed with crashes: a live user
	// starved at distance > Locality from every crashed process is a
	// violation. Negative: measured, not judged.
	Locality int
	// Seed seeds the processes' and users' random sources, as the
	// simulator does: the exploration covers every interleaving for this
	// seed's draws.
	Seed uint64
	// Bounds (0: none). MaxDepth cuts paths, MaxStates the distinct states
	// kept, Timeout the wall time.
	MaxDepth  int
	MaxStates int
	Timeout   time.Duration
	// NoLiveness skips the fair-cycle check (it keeps every transition).
	NoLiveness bool
	// Progress, when set, is called now and then.
	Progress func(Progress)
}

// Progress is the search so far.
type Progress struct {
	States          int
	Depth           int
	StatesPerSecond float64
}

// Result is what a search found.
type Result struct {
	Algorithm string `json:"algorithm"`
	Processes int    `json:"processes"`
	Users     int    `json:"users"`
	States    int    `json:"states"`      // distinct states reached
	Edges     int64  `json:"transitions"` // transitions taken (to new or known states)
	Depth     int    `json:"depth"`       // the longest shortest path: BFS levels
	Terminal  int    `json:"terminal"`    // states with no enabled input
	// Complete: every reachable state was expanded; the verdict holds for
	// every execution of the instance (for this seed). Otherwise Cut says
	// which bound stopped the search.
	Complete bool   `json:"complete"`
	Cut      string `json:"cut,omitempty"`
	// Cycles is the number of cyclic components of the state graph (runs
	// that can go on for ever); Unfair of them are not fair to every input.
	Cycles int `json:"cycles"`
	Unfair int `json:"unfair_cycles"`
	// Timed: a process reads Env.Now, so states are told apart by their
	// step count too (never merged across depths; no cycle can be found).
	Timed bool `json:"timed,omitempty"`
	// FailureLocality is the largest failure locality reached (with
	// crashes; -1 without).
	FailureLocality int             `json:"failure_locality"`
	Violations      int             `json:"violations"`
	Counterexample  *Counterexample `json:"counterexample,omitempty"`
	Seconds         float64         `json:"wall_seconds"`
	StatesPerSecond float64         `json:"states_per_second"`
}

// Violation kinds.
const (
	Safety   = "safety"   // an event checker failed
	Deadlock = "deadlock" // no enabled input while a request is open
	Livelock = "livelock" // a fair cycle on which a request stays open
	Locality = "locality" // with crashes: a user too far from the crash starves
	Panic    = "panic"    // an algorithm's own assertion
)

// Explorer runs one search.
type Explorer struct {
	cfg   Config
	w     walker
	app   *app.Cycle
	seen  []uint64
	roots []any // the initial processes: the owners of the frozen memory
	// nowRead: a process read Env.Now; timed: the fingerprints hold the
	// step count, so that equal states at different times stay apart.
	nowRead, timed bool
}

// Run explores cfg's instance breadth-first from the initial state, so the
// first violation found has a shortest path, and stops there.
func Run(cfg Config) (*Result, error) {
	if cfg.Problem == nil {
		return nil, errors.New("explore: no problem")
	}
	if cfg.Requests < 1 {
		return nil, fmt.Errorf("explore: %d requests per user: want at least 1", cfg.Requests)
	}
	x := &Explorer{cfg: cfg}
	x.app = app.New(cfg.Problem, app.Workload{Next: cfg.Next, PerUser: cfg.Requests}, cfg.Seed)
	res, err := x.search()
	if err == errTimed {
		// A process reads the clock: start again with the step count in
		// every fingerprint.
		x.timed = true
		res, err = x.search()
	}
	return res, err
}

var errTimed = errors.New("explore: a process read Env.Now")

// graph is what the search keeps: fingerprints, not states.
type graph struct {
	ids    map[uint64]int32
	parent []int32
	via    []uint64 // the label of the input from the parent
	wait   []uint64 // live users waiting (bit u), for the fair-cycle check
	done   []bool   // expanded
	src    []int32  // transitions, when liveness is checked
	dst    []int32
	lab    []uint64
}

func (g *graph) add(fp uint64, parent int32, via uint64, s *state) int32 {
	id := int32(len(g.parent))
	g.ids[fp] = id
	g.parent = append(g.parent, parent)
	g.via = append(g.via, via)
	var m uint64
	for _, u := range s.waiting() {
		if u < 64 {
			m |= 1 << u
		}
	}
	g.wait = append(g.wait, m)
	g.done = append(g.done, false)
	return id
}

type node struct {
	s  *state
	id int32
}

func (x *Explorer) search() (*Result, error) {
	start := time.Now()
	s0, err := x.initial(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("explore: %s: %w", x.cfg.Algorithm.Name, err)
	}
	pb := x.cfg.Problem
	if x.nowRead && !x.timed {
		return nil, errTimed
	}
	res := &Result{Algorithm: x.cfg.Algorithm.Name, Processes: len(s0.procs), Users: pb.Users, FailureLocality: -1, Timed: x.timed}
	if len(x.cfg.Crash) > 0 {
		res.FailureLocality = 0
	}
	g := &graph{ids: map[uint64]int32{}}
	g.add(x.fingerprint(s0), -1, 0, s0)
	level := []node{{s0, 0}}
	var next []node
	var cs []choice
	expanded := 0
	finish := func() (*Result, error) {
		res.States = len(g.parent)
		res.Seconds = time.Since(start).Seconds()
		if res.Seconds > 0 {
			res.StatesPerSecond = float64(res.States) / res.Seconds
		}
		return res, nil
	}
	found := func(kind, what string, at int32, tail []uint64, loop int) (*Result, error) {
		res.Violations = 1
		path := append(x.pathTo(g, at), tail...)
		ce, err := x.counterexample(kind, what, path, loop)
		if err != nil {
			return nil, err
		}
		res.Counterexample = ce
		return finish()
	}
	if v, what := s0.chk.violations(); v > 0 {
		return found(Safety, what, 0, nil, -1)
	}
	for depth := 0; len(level) > 0; depth++ {
		res.Depth = depth
		if x.cfg.MaxDepth > 0 && depth >= x.cfg.MaxDepth {
			res.Cut = "depth"
			break
		}
		for li, nd := range level {
			s := nd.s
			level[li].s = nil // let the state go once expanded
			if expanded++; expanded&1023 == 0 {
				if x.cfg.Timeout > 0 && time.Since(start) > x.cfg.Timeout {
					res.Cut = "timeout"
					return finish()
				}
				if x.cfg.Progress != nil {
					el := time.Since(start).Seconds()
					x.cfg.Progress(Progress{States: len(g.parent), Depth: depth, StatesPerSecond: float64(len(g.parent)) / max(el, 1e-9)})
				}
			}
			g.done[nd.id] = true
			cs = x.choices(s, cs)
			if len(cs) == 0 {
				res.Terminal++
				if kind, what := x.judgeStuck(s, res); kind != "" {
					return found(kind, what, nd.id, nil, -1)
				}
				continue
			}
			for _, c := range cs {
				lab := s.label(c)
				n, err := x.step(s, c, nil, nil)
				if err != nil {
					return found(Panic, err.Error(), nd.id, []uint64{lab}, -1)
				}
				if x.nowRead && !x.timed {
					return nil, errTimed
				}
				res.Edges++
				// Checked on every transition, known target or not: the
				// checkers are not in the fingerprint, and a violation is a
				// property of the step (the parent had none).
				if v, what := n.chk.violations(); v > 0 {
					return found(Safety, what, nd.id, []uint64{lab}, -1)
				}
				fp := x.fingerprint(n)
				id, known := g.ids[fp]
				if !known {
					if x.cfg.MaxStates > 0 && len(g.parent) >= x.cfg.MaxStates {
						res.Cut = "states"
						return finish()
					}
					id = g.add(fp, nd.id, lab, n)
				}
				if !x.cfg.NoLiveness {
					g.src = append(g.src, nd.id)
					g.dst = append(g.dst, id)
					g.lab = append(g.lab, lab)
				}
				if known {
					continue
				}
				next = append(next, node{n, id})
			}
		}
		level, next = next, level[:0]
	}
	if res.Cut == "" {
		res.Complete = true
	}
	if !x.cfg.NoLiveness {
		if v := x.fairCycles(g, res); v != nil {
			return found(v.kind, v.what, v.at, v.loop, v.loopAt)
		}
	}
	return finish()
}

// judgeStuck judges a state with no enabled input: without crashes an
// open request is a deadlock; with crashes the starved users must lie
// within the claimed failure locality (check.Locality, fed by the path's
// events, decides with the run quiescent).
func (x *Explorer) judgeStuck(s *state, res *Result) (kind, what string) {
	if x.cfg.Problem.Kind == algo.Quota {
		q := s.chk.safety.(*quota).Quota
		q.Finish()
		if !q.OK() {
			return Safety, q.First[0]
		}
	}
	return x.judgeStarved(s.chk, s.waiting(), res, "no enabled input")
}

func (x *Explorer) judgeStarved(chk *checkers, starved []proc.ID, res *Result, why string) (kind, what string) {
	if len(starved) == 0 {
		return "", ""
	}
	if chk.loc == nil {
		if len(x.cfg.Crash) > 0 { // no conflict graph to measure on
			return "", ""
		}
		return Deadlock, fmt.Sprintf("%s while users %v wait", why, starved)
	}
	// The run stops here for ever: quiescent, every open request starved.
	lr := chk.loc.Result(0, true)
	if len(lr.Crashed) == 0 {
		return Deadlock, fmt.Sprintf("%s while users %v wait (no process crashed)", why, starved)
	}
	res.FailureLocality = max(res.FailureLocality, lr.FailureLocality)
	if x.cfg.Locality >= 0 && (lr.FailureLocality > x.cfg.Locality || lr.Unreachable > 0) {
		return Locality, fmt.Sprintf("%s: users %v starve after crashes %v, failure locality %d > %d", why, starved, lr.Crashed, lr.FailureLocality, x.cfg.Locality)
	}
	return "", ""
}

// pathTo is the labels of the inputs from the initial state to id.
func (x *Explorer) pathTo(g *graph, id int32) []uint64 {
	var path []uint64
	for ; id > 0; id = g.parent[id] {
		path = append(path, g.via[id])
	}
	slices.Reverse(path)
	return path
}
