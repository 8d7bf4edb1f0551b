package explore

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/proc"
)

// baton is a toy control plane of three nodes. Node 0 serves epoch 1
// under a lease of 10 ticks and hands over to node 1 at once; node 1
// waits `wait` ticks after the hand-over arrives, then serves epoch 2.
// With wait ≥ 10 the lease has run out before epoch 2 serves; a shorter
// wait is the lease wait skipped. Node 0 persists that it handed over;
// forget makes a restarted node 0 serve epoch 1 again.
type baton struct {
	wait    proc.Time
	forget  bool
	handed  *bool // persisted
	serving bool
	noise   int // differs between builds, never read (see TestTimedUnhashed)
}

type handoff struct{}
type lease struct{}
type waited struct{}

func (handoff) Kind() string { return "handoff" }

var all3 = []proc.ID{0, 1, 2}

func (b *baton) Start(env proc.Env) {
	if env.Self() != 0 || *b.handed && !b.forget {
		return
	}
	env.Emit(proc.Event{Kind: proc.EvView, Epoch: 1, Members: all3})
	b.serving = true
	env.After(10, lease{})
	*b.handed = true
	env.Send(1, handoff{})
}

func (b *baton) Deliver(env proc.Env, _ proc.ID, _ proc.Message) { env.After(b.wait, waited{}) }

func (b *baton) Fire(env proc.Env, t proc.Timer) {
	switch t.(type) {
	case lease:
		if b.serving {
			env.Emit(proc.Event{Kind: proc.EvFence, Epoch: 1})
			b.serving = false
		}
	case waited:
		env.Emit(proc.Event{Kind: proc.EvView, Epoch: 2, Members: all3})
	}
}

func (b *baton) Restarted() proc.Process {
	h := *b.handed
	return &baton{wait: b.wait, forget: b.forget, handed: &h}
}

func batons(wait proc.Time, forget bool) func() ([]proc.Process, error) {
	return func() ([]proc.Process, error) {
		ps := make([]proc.Process, 3)
		for i := range ps {
			ps[i] = &baton{wait: wait, forget: forget, handed: new(bool)}
		}
		return ps, nil
	}
}

func judge() (proc.Sink, *check.Report) {
	c := &check.Control{Nodes: 3}
	return c, &c.Report
}

func TestTimed(t *testing.T) {
	for _, c := range []struct {
		name   string
		cfg    TimedConfig
		want   string // "" for none
		faults bool   // the violation needs the crash and the restart
	}{
		{"lease respected", TimedConfig{Build: batons(10, false)}, "", false},
		{"lease wait skipped", TimedConfig{Build: batons(5, false)}, "p1 serves epoch 2 while p0 still serves epoch 1", false},
		{"a restart that forgets, with the faults", TimedConfig{Build: batons(10, true), Crash: []proc.ID{0}, Restart: []proc.ID{0}}, "serves epoch 1 after", true},
		{"the right restart, with the faults", TimedConfig{Build: batons(10, false), Crash: []proc.ID{0}, Restart: []proc.ID{0}}, "", false},
	} {
		cfg := c.cfg
		cfg.Judge, cfg.MinDelay, cfg.MaxDelay, cfg.MaxTime = judge, 1, 3, 40
		r, err := RunTimed(cfg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		switch {
		case c.want == "" && (r.Violations > 0 || !r.Complete):
			t.Errorf("%s: %+v", c.name, r)
		case c.want != "" && (r.Counter == nil || !strings.Contains(r.Counter.What, c.want)):
			t.Errorf("%s: found %+v, want %q", c.name, r.Counter, c.want)
		case c.faults:
			var crash, restart bool
			for _, s := range r.Counter.Steps {
				crash = crash || strings.Contains(s.Input, "crash 0")
				restart = restart || strings.Contains(s.Input, "restart 0")
			}
			if !crash || !restart {
				t.Errorf("%s: the counterexample has no crash and restart: %+v", c.name, r.Counter.Steps)
			}
		}
		if c.want == "" && r.States < 3 {
			t.Errorf("%s: %d states", c.name, r.States)
		}
	}
}

func TestTimedCountsFaultPaths(t *testing.T) {
	cfg := TimedConfig{Build: batons(10, false), Judge: judge, MinDelay: 1, MaxDelay: 3, MaxTime: 40}
	plain, err := RunTimed(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Crash, cfg.Restart = []proc.ID{0, 1}, []proc.ID{0}
	faulty, err := RunTimed(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if faulty.States <= plain.States || faulty.Crashes == 0 || faulty.Restarts == 0 {
		t.Errorf("with faults %+v, without %+v", faulty, plain)
	}
	// A depth bound cuts the search and says so.
	cfg.MaxDepth = 2
	cut, _ := RunTimed(cfg)
	if cut.Complete || cut.Cut != "max-depth" {
		t.Errorf("depth 2: %+v", cut)
	}
}

func TestTimedRefusesWhatDoesNotReplay(t *testing.T) {
	n := proc.Time(10)
	build := func() ([]proc.Process, error) {
		n++ // each replay's node 1 waits one tick longer: not a function of its inputs
		return []proc.Process{&baton{wait: 10, handed: new(bool)}, &baton{wait: n, handed: new(bool)}, &baton{handed: new(bool)}}, nil
	}
	_, err := RunTimed(TimedConfig{Build: build, Judge: judge, MinDelay: 1, MaxDelay: 3, MaxTime: 40})
	if err == nil || !strings.Contains(err.Error(), "diverged") {
		t.Errorf("error %v, want a diverged replay", err)
	}
}

func TestTimedWarmup(t *testing.T) {
	r, err := RunTimed(TimedConfig{Build: batons(10, false), Judge: judge, MinDelay: 1, MaxDelay: 3, MaxTime: 40,
		Warmup: func(es []proc.Event) bool { return len(es) > 0 }})
	if err != nil {
		t.Fatal(err)
	}
	if r.Warmup != 0 {
		// node 0 serves in Start: the warm-up is over before any step
		t.Errorf("warm-up %d steps", r.Warmup)
	}
	r, err = RunTimed(TimedConfig{Build: batons(10, false), Judge: judge, MinDelay: 1, MaxDelay: 3, MaxTime: 40,
		Warmup: func(es []proc.Event) bool { return len(es) > 1 }})
	// the hand-over arrives at 1, the lease ends at 10
	if err != nil || r.Warmup != 2 || r.WarmupEnd != 10 || r.Edges != 1 {
		t.Errorf("warm-up to the fence: %+v, %v", r, err)
	}
	if _, err := RunTimed(TimedConfig{Build: batons(10, false), Judge: judge, MaxTime: 40,
		Warmup: func([]proc.Event) bool { return false }}); err == nil {
		t.Error("a warm-up that never ends: no error")
	}
}

// TestTimedUnhashed: a field that differs between replays but decides
// nothing stops the search, unless it is named unhashed; a name that
// matches no field is refused.
func TestTimedUnhashed(t *testing.T) {
	n := 0
	build := func() ([]proc.Process, error) {
		ps, _ := batons(10, false)()
		n++
		ps[1].(*baton).noise = n
		return ps, nil
	}
	cfg := TimedConfig{Build: build, Judge: judge, MinDelay: 1, MaxDelay: 3, MaxTime: 40}
	if _, err := RunTimed(cfg); err == nil || !strings.Contains(err.Error(), "diverged") {
		t.Errorf("noise hashed: error %v, want a diverged replay", err)
	}
	cfg.Unhashed = []string{"github.com/allot-dev/allot/explore.baton.noise"}
	if r, err := RunTimed(cfg); err != nil || !r.Complete {
		t.Errorf("noise unhashed: %+v, %v", r, err)
	}
	cfg.Unhashed = []string{"github.com/allot-dev/allot/explore.baton.nothing"}
	if _, err := RunTimed(cfg); err == nil || !strings.Contains(err.Error(), "no such field") {
		t.Errorf("unknown field: error %v", err)
	}
}

// views is a Marker: the views served so far.
type views struct{ n int }

func (v *views) Event(e proc.Event) {
	if e.Kind == proc.EvView {
		v.n++
	}
}
func (v *views) Marks() map[string]int { return map[string]int{"view": v.n} }

// TestTimedScript: a crash scripted in the warm-up, the restart at any
// step of the search: the forgetting restart is caught, its
// counterexample starting after the crash; the right one is not, and the
// states after the hand-over's view are counted by the marker.
func TestTimedScript(t *testing.T) {
	script := []Scripted{{P: 0, At: 2}}
	for _, forget := range []bool{true, false} {
		r, err := RunTimed(TimedConfig{Build: batons(10, forget), Judge: judge, MinDelay: 1, MaxDelay: 3, MaxTime: 40,
			Script: script, Restart: []proc.ID{0}, Marks: func() Marker { return &views{} }})
		if err != nil {
			t.Fatal(err)
		}
		if r.Warmup != 2 || r.WarmupEnd != 2 {
			// the hand-over's delivery at 1, then the crash at 2
			t.Errorf("forget %v: warm-up of %d steps to tick %d, want 2 to 2", forget, r.Warmup, r.WarmupEnd)
		}
		if !forget {
			if r.Violations > 0 || !r.Complete || r.Marked["view"] == 0 || r.Marked["view"] >= r.States {
				t.Errorf("the right restart: %+v", r)
			}
			continue
		}
		if r.Counter == nil || !strings.Contains(r.Counter.What, "serves epoch 1 after") {
			t.Fatalf("the forgetting restart: %+v", r)
		}
		if in := r.Counter.Steps[0].Input; strings.Contains(in, "crash") {
			t.Errorf("the scripted crash is in the counterexample: %q", in)
		}
	}
	// WarmupTo moves the search's start on: the hand-over at 1, the
	// lease's end at 10; the next input, node 1's wait, is at 11.
	r, err := RunTimed(TimedConfig{Build: batons(10, false), Judge: judge, MinDelay: 1, MaxDelay: 3, MaxTime: 40, WarmupTo: 11})
	if err != nil || r.WarmupEnd != 10 || r.Warmup != 2 {
		t.Errorf("warm-up to tick 10: %+v, %v", r, err)
	}
	for _, bad := range [][]Scripted{{{P: 0, At: 2, Restart: true}}, {{P: 0, At: 2}, {P: 0, At: 3}}, {{P: 7, At: 1}}} {
		if _, err := RunTimed(TimedConfig{Build: batons(10, false), Judge: judge, MaxTime: 40, Script: bad}); err == nil {
			t.Errorf("script %+v: no error", bad)
		}
	}
}

// pinger: process 1 sends process 0 a ping every 4 ticks; process 0
// emits an event for each it receives.
type pinger struct{}

type pingMsg struct{}
type every struct{}

func (pingMsg) Kind() string { return "ping" }

func (pinger) Start(env proc.Env) {
	if env.Self() == 1 {
		env.After(4, every{})
	}
}
func (pinger) Deliver(env proc.Env, _ proc.ID, _ proc.Message) {
	env.Emit(proc.Event{Kind: proc.EvEnter})
}
func (pinger) Fire(env proc.Env, _ proc.Timer) {
	env.Send(0, pingMsg{})
	env.After(4, every{})
}

// downJudge reports an event of a process after its crash.
type downJudge struct {
	check.Report
	down map[proc.ID]bool
}

func (j *downJudge) Event(e proc.Event) {
	switch {
	case e.Kind == proc.EvCrash:
		j.down[e.P] = true
	case j.down[e.P]:
		j.Violations++
		j.First = append(j.First, "a crashed process took an input")
	}
}

// TestTimedCrashedReceivesNothing: a message sent to a process while it
// is down is lost, not delivered to the crashed run.
func TestTimedCrashedReceivesNothing(t *testing.T) {
	r, err := RunTimed(TimedConfig{
		Build: func() ([]proc.Process, error) { return []proc.Process{pinger{}, pinger{}}, nil },
		Judge: func() (proc.Sink, *check.Report) {
			j := &downJudge{down: map[proc.ID]bool{}}
			return j, &j.Report
		},
		MinDelay: 1, MaxDelay: 2, MaxTime: 30, Crash: []proc.ID{0}})
	if err != nil || r.Violations > 0 || !r.Complete || r.Crashes == 0 {
		t.Errorf("%+v, %v", r, err)
	}
}
