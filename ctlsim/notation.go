package ctlsim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/sim"
)

// The fault notation of `allot sim --kind control`, one fault per item of
// a comma-separated list:
//
//	crash    P@T         node P fail-stops at tick T
//	restart  P@T         node P comes back at T from what it persisted
//	                     (after a crash; a running node is killed and
//	                     restarted in that tick)
//	cut      A>B@T1-T2   messages A→B dropped in [T1, T2); B→A flows
//	         A-B@T1-T2   both ways; T2 left out: never healed
//	pause    P@T1-T2     node P stopped in [T1, T2)

// ParseFaults reads lists in the notation above into a schedule.
func ParseFaults(crash, restart, cut, pause []string) (Faults, error) {
	var f Faults
	for _, s := range items(crash) {
		p, t, err := nodeAt(s)
		if err != nil {
			return f, fmt.Errorf("crash %q: %v (want P@T)", s, err)
		}
		f.Crashes = append(f.Crashes, sim.Crash{P: p, At: t})
	}
	for _, s := range items(restart) {
		p, t, err := nodeAt(s)
		if err != nil {
			return f, fmt.Errorf("restart %q: %v (want P@T)", s, err)
		}
		f.Restarts = append(f.Restarts, sim.Restart{P: p, At: t})
	}
	for _, s := range items(cut) {
		c, err := parseCut(s)
		if err != nil {
			return f, fmt.Errorf("cut %q: %v (want A>B@T1-T2 one way, A-B@T1-T2 both ways)", s, err)
		}
		f.Cuts = append(f.Cuts, c...)
	}
	for _, s := range items(pause) {
		who, when, ok := strings.Cut(s, "@")
		p, err := node(who)
		if !ok || err != nil {
			return f, fmt.Errorf("pause %q: want P@T1-T2", s)
		}
		start, end, err := interval(when, false)
		if err != nil {
			return f, fmt.Errorf("pause %q: %v (want P@T1-T2)", s, err)
		}
		f.Pauses = append(f.Pauses, sim.Pause{P: p, Start: start, End: end})
	}
	return f, nil
}

func items(lists []string) []string {
	var r []string
	for _, l := range lists {
		for _, s := range strings.Split(l, ",") {
			if s = strings.TrimSpace(s); s != "" {
				r = append(r, s)
			}
		}
	}
	return r
}

func node(s string) (proc.ID, error) {
	p, err := strconv.ParseUint(strings.TrimSpace(s), 10, 31)
	if err != nil {
		return 0, fmt.Errorf("%q is no node number", s)
	}
	return proc.ID(p), nil
}

func tick(s string) (proc.Time, error) {
	t, err := strconv.ParseUint(strings.TrimSpace(s), 10, 62)
	if err != nil {
		return 0, fmt.Errorf("%q is no tick", s)
	}
	return proc.Time(t), nil
}

func nodeAt(s string) (proc.ID, proc.Time, error) {
	who, when, ok := strings.Cut(s, "@")
	if !ok {
		return 0, 0, fmt.Errorf("no @")
	}
	p, err := node(who)
	if err != nil {
		return 0, 0, err
	}
	t, err := tick(when)
	return p, t, err
}

// interval reads T1-T2 (or T1 alone, when open is allowed: End 0).
func interval(s string, open bool) (proc.Time, proc.Time, error) {
	a, b, ok := strings.Cut(s, "-")
	start, err := tick(a)
	if err != nil {
		return 0, 0, err
	}
	if !ok || strings.TrimSpace(b) == "" {
		if !open {
			return 0, 0, fmt.Errorf("no end")
		}
		return start, 0, nil
	}
	end, err := tick(b)
	if err != nil {
		return 0, 0, err
	}
	if end <= start {
		return 0, 0, fmt.Errorf("the interval %d-%d is empty", start, end)
	}
	return start, end, nil
}

func parseCut(s string) ([]sim.Cut, error) {
	link, when, ok := strings.Cut(s, "@")
	if !ok {
		return nil, fmt.Errorf("no @")
	}
	sep, both := ">", false
	if !strings.Contains(link, ">") {
		sep, both = "-", true
	}
	x, y, ok := strings.Cut(link, sep)
	if !ok {
		return nil, fmt.Errorf("no link A>B or A-B")
	}
	a, err := node(x)
	if err != nil {
		return nil, err
	}
	b, err := node(y)
	if err != nil {
		return nil, err
	}
	start, end, err := interval(when, true)
	if err != nil {
		return nil, err
	}
	cuts := []sim.Cut{{From: a, To: b, Start: start, End: end}}
	if both {
		cuts = append(cuts, sim.Cut{From: b, To: a, Start: start, End: end})
	}
	return cuts, nil
}

// Validate checks a schedule against a plane of n nodes (what the
// simulator would refuse, said before anything runs).
func (f Faults) Validate(n int) error {
	in := func(p proc.ID) bool { return p >= 0 && int(p) < n }
	for _, c := range f.Crashes {
		if !in(c.P) {
			return fmt.Errorf("crash %d@%d: there are nodes 0..%d", c.P, c.At, n-1)
		}
	}
	for _, r := range f.Restarts {
		if !in(r.P) {
			return fmt.Errorf("restart %d@%d: there are nodes 0..%d", r.P, r.At, n-1)
		}
	}
	for _, c := range f.Cuts {
		if !in(c.From) || !in(c.To) || c.From == c.To {
			return fmt.Errorf("cut %d>%d: want two different nodes of 0..%d", c.From, c.To, n-1)
		}
	}
	for _, p := range f.Pauses {
		if !in(p.P) {
			return fmt.Errorf("pause %d@%d-%d: there are nodes 0..%d", p.P, p.Start, p.End, n-1)
		}
	}
	return nil
}
