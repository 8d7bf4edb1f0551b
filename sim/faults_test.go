package sim_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// ledger is a durable toy: it persists how many messages it has been
// delivered (its "log"), keeps the arrival times only in memory, and arms
// a timer of 50 ticks at every start. Process 0 pings process 1 every 10
// ticks from tick 0 to tick 100.
type ledger struct {
	persisted *int // shared with nothing: Restarted copies it
	arrivals  []proc.Time
	log       *[]string // the test's record, across incarnations
}

type ping struct{ N int }

func (ping) Kind() string { return "ping" }

type beat struct{}

func (l *ledger) Start(env proc.Env) {
	*l.log = append(*l.log, fmt.Sprintf("start@%d with %d", env.Now(), *l.persisted))
	env.After(50, beat{})
	if env.Self() == 0 {
		env.After(10, ping{})
	}
}

func (l *ledger) Deliver(env proc.Env, _ proc.ID, m proc.Message) {
	*l.persisted++
	l.arrivals = append(l.arrivals, env.Now())
	*l.log = append(*l.log, fmt.Sprintf("got %d@%d", m.(ping).N, env.Now()))
}

func (l *ledger) Fire(env proc.Env, t proc.Timer) {
	switch t := t.(type) {
	case beat:
		*l.log = append(*l.log, fmt.Sprintf("beat@%d", env.Now()))
	case ping:
		env.Send(1, ping{t.N + 1})
		if env.Now() < 100 {
			env.After(10, ping{t.N + 1})
		}
	}
}

func (l *ledger) Restarted() proc.Process {
	n := *l.persisted
	return &ledger{persisted: &n, log: l.log}
}

func runLedger(t *testing.T, net sim.Network) (logs [2][]string, res sim.Result, events []proc.Event) {
	t.Helper()
	var ev collect
	procs := make([]proc.Process, 2)
	for i := range procs {
		n := 0
		procs[i] = &ledger{persisted: &n, log: &logs[i]}
	}
	if net.Delay == dist.Const(0) {
		net.Delay = dist.Const(1)
	}
	res, err := sim.Run(sim.Config{Seed: 1, Net: net, Horizon: 300, Sink: &ev}, &algo.Problem{}, procs)
	if err != nil {
		t.Fatal(err)
	}
	return logs, res, ev
}

type collect []proc.Event

func (c *collect) Event(e proc.Event) { *c = append(*c, e) }

func TestRestartKeepsOnlyWhatPersisted(t *testing.T) {
	// Process 1 crashes at 35 (3 pings in: 11, 21, 31) and comes back at
	// 60: the pings of 41 and 51 are lost, the beat armed at 0 for 50 is
	// lost with the crashed incarnation, the new one arms its own (110).
	logs, res, ev := runLedger(t, sim.Network{
		Crashes:  []sim.Crash{{P: 1, At: 35}},
		Restarts: []sim.Restart{{P: 1, At: 60}},
	})
	want := []string{"start@0 with 0", "got 1@11", "got 2@21", "got 3@31",
		"start@60 with 3", "got 6@61", "got 7@71", "got 8@81", "got 9@91", "got 10@101", "beat@110"}
	if !reflect.DeepEqual(logs[1], want) {
		t.Errorf("process 1:\n got %q\nwant %q", logs[1], want)
	}
	var kinds []string
	for _, e := range ev {
		kinds = append(kinds, fmt.Sprintf("%s p%d@%d", e.Kind, e.P, e.Time))
	}
	if want := []string{"crash p1@35", "restart p1@60"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("events %q, want %q", kinds, want)
	}
	if res.Delivered != 8 {
		t.Errorf("delivered %d, want 8 (3 before the crash, 5 after the restart)", res.Delivered)
	}
}

func TestFastRestart(t *testing.T) {
	// A restart of a running process is a crash and a restart in one
	// tick: nothing is delivered to the old incarnation after it.
	logs, _, ev := runLedger(t, sim.Network{Restarts: []sim.Restart{{P: 1, At: 25}}})
	want := []string{"start@0 with 0", "got 1@11", "got 2@21", "start@25 with 2",
		"got 3@31", "got 4@41", "got 5@51", "got 6@61", "got 7@71", "beat@75",
		"got 8@81", "got 9@91", "got 10@101"}
	if !reflect.DeepEqual(logs[1], want) {
		t.Errorf("process 1:\n got %q\nwant %q", logs[1], want)
	}
	if len(ev) != 2 || ev[0].Kind != proc.EvCrash || ev[1].Kind != proc.EvRestart || ev[1].Time != 25 {
		t.Errorf("events %v, want a crash and a restart at 25", ev)
	}
}

func TestCutDropsOneWay(t *testing.T) {
	// 0>1 cut in [30, 60): the pings sent at 30, 40 and 50 are lost;
	// 1>0 stays open.
	logs, res, _ := runLedger(t, sim.Network{Cuts: []sim.Cut{{From: 0, To: 1, Start: 30, End: 60}}})
	want := []string{"start@0 with 0", "got 1@11", "got 2@21", "beat@50",
		"got 6@61", "got 7@71", "got 8@81", "got 9@91", "got 10@101"}
	if !reflect.DeepEqual(logs[1], want) {
		t.Errorf("process 1:\n got %q\nwant %q", logs[1], want)
	}
	if res.Dropped != 3 {
		t.Errorf("dropped %d, want 3", res.Dropped)
	}
	// A message in flight when its link is cut is lost too: the ping sent
	// at 20 with a delay of 5 arrives at 25, inside [22, 26).
	logs, res, _ = runLedger(t, sim.Network{Delay: dist.Const(5), Cuts: []sim.Cut{{From: 0, To: 1, Start: 22, End: 26}}})
	if res.Dropped != 1 || len(logs[1]) != 1+9+1 {
		t.Errorf("in-flight cut: dropped %d, log %q", res.Dropped, logs[1])
	}
	// The other direction is cut, not this one: nothing is lost (process
	// 1 sends nothing).
	_, res, _ = runLedger(t, sim.Network{Cuts: []sim.Cut{{From: 1, To: 0, Start: 0}}})
	if res.Dropped != 0 || res.Delivered != 10 {
		t.Errorf("cut 1>0: dropped %d, delivered %d; want 0 and 10", res.Dropped, res.Delivered)
	}
}

func TestPauseHoldsInputs(t *testing.T) {
	// Process 1 stopped in [15, 45): the pings arriving at 21, 31, 41 and
	// its beat (50) wait; the three pings are handled at 45, in order.
	logs, _, ev := runLedger(t, sim.Network{Pauses: []sim.Pause{{P: 1, Start: 15, End: 45}}})
	want := []string{"start@0 with 0", "got 1@11", "got 2@45", "got 3@45", "got 4@45",
		"beat@50", "got 5@51", "got 6@61", "got 7@71", "got 8@81", "got 9@91", "got 10@101"}
	if !reflect.DeepEqual(logs[1], want) {
		t.Errorf("process 1:\n got %q\nwant %q", logs[1], want)
	}
	if len(ev) != 2 || !reflect.DeepEqual(ev[0], proc.Event{Time: 15, Kind: proc.EvPause, P: 1}) ||
		!reflect.DeepEqual(ev[1], proc.Event{Time: 45, Kind: proc.EvResume, P: 1}) {
		t.Errorf("events %v, want a pause of p1 at 15 and its resume at 45", ev)
	}
	// Overlapping pauses resume once, at the end of the later one.
	_, _, ev = runLedger(t, sim.Network{Pauses: []sim.Pause{{P: 1, Start: 15, End: 45}, {P: 1, Start: 30, End: 60}}})
	if len(ev) != 3 || !reflect.DeepEqual(ev[2], proc.Event{Time: 60, Kind: proc.EvResume, P: 1}) {
		t.Errorf("overlapping pauses: events %v, want pause, pause, resume at 60", ev)
	}
	// A paused process's timers wait too: process 1's beat, due at 50,
	// fires when it resumes at 70.
	logs, _, _ = runLedger(t, sim.Network{Pauses: []sim.Pause{{P: 1, Start: 48, End: 70}}})
	if got := logs[1][5]; got != "beat@70" {
		t.Errorf("after a pause over the beat: %q, want beat@70 (log %q)", got, logs[1])
	}
}

func TestFaultsAreDeterministic(t *testing.T) {
	net := func() sim.Network {
		return sim.Network{Delay: dist.Uniform(1, 20),
			Crashes:  []sim.Crash{{P: 1, At: 33}},
			Restarts: []sim.Restart{{P: 1, At: 47}, {P: 0, At: 80}},
			Cuts:     []sim.Cut{{From: 0, To: 1, Start: 60, End: 70}},
			Pauses:   []sim.Pause{{P: 1, Start: 85, End: 95}}}
	}
	a, ra, _ := runLedger(t, net())
	b, rb, _ := runLedger(t, net())
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(ra, rb) {
		t.Errorf("same seed and faults, different runs:\n%q\n%q", a, b)
	}
}

func TestFaultsRefused(t *testing.T) {
	nd := func() []proc.Process { return []proc.Process{&chatter{}, &chatter{}} }
	for _, c := range []struct {
		name string
		net  sim.Network
	}{
		{"restart of a process that persists nothing", sim.Network{Restarts: []sim.Restart{{P: 1, At: 5}}}},
		{"restart of no process", sim.Network{Restarts: []sim.Restart{{P: 2, At: 5}}}},
		{"cut from itself", sim.Network{Cuts: []sim.Cut{{From: 1, To: 1, Start: 5, End: 6}}}},
		{"empty cut", sim.Network{Cuts: []sim.Cut{{From: 0, To: 1, Start: 5, End: 5}}}},
		{"empty pause", sim.Network{Pauses: []sim.Pause{{P: 0, Start: 5, End: 4}}}},
		{"pause of no process", sim.Network{Pauses: []sim.Pause{{P: -1, Start: 5, End: 9}}}},
	} {
		_, err := sim.Run(sim.Config{Net: c.net}, &algo.Problem{}, nd())
		var fe *sim.FaultError
		if !errors.As(err, &fe) {
			t.Errorf("%s: error %v, want a *sim.FaultError", c.name, err)
		}
	}
}
