package control

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// TestRandomFaults runs 3- and 5-node clusters under a random schedule of
// crashes, restarts (fast and slow), symmetric, one-way and
// non-transitive partitions and pauses, then heals everything: the checker
// finds nothing, and every node serves one view again.
func TestRandomFaults(t *testing.T) {
	seed := freshSeed(t)
	runs := 6
	if testing.Short() || *seedFlag != 0 {
		runs = 1
	}
	for r := range runs {
		s := seed + uint64(r)
		c := randomRun(t, s, 100*lease)
		c.verify()
		if c.prevs == 0 {
			t.Errorf("seed %d: no Adopt named the view it replaced", s)
		}
	}
}

// TestDeterministic: a seed replays its run, to the byte.
func TestDeterministic(t *testing.T) {
	seed := freshSeed(t)
	a := strings.Join(randomRun(t, seed, 30*lease).log, "\n")
	b := strings.Join(randomRun(t, seed, 30*lease).log, "\n")
	if a != b {
		t.Fatalf("seed %d: two runs differ", seed)
	}
}

// randomRun runs a 3- or 5-node cluster under a random schedule of faults
// for d, then heals everything and lets it settle.
func randomRun(t *testing.T, s uint64, d proc.Time) *cluster {
	return randomRunOf(t, s, d, 0, 0)
}

// randomRunOf is randomRun of nodes taking a snapshot every every
// entries, keeping keep behind it.
func randomRunOf(t *testing.T, s uint64, d proc.Time, every, keep int) *cluster {
	n := 3 + 2*int(s%2)
	var ids []proc.ID
	for i := range n {
		ids = append(ids, proc.ID(i))
	}
	c := newCompactingCluster(t, Bootstrap(ids), n, s, every, keep, 0)
	rng := newRand(s)
	c.settle(30*lease, n)
	type undo struct {
		at proc.Time
		f  func()
	}
	var pending []undo
	for end := c.now + d; c.now < end; {
		c.step()
		kept := pending[:0]
		for _, u := range pending {
			if u.at <= c.now {
				u.f()
			} else {
				kept = append(kept, u)
			}
		}
		pending = kept
		if rng.IntN(lease) != 0 {
			continue
		}
		a, b := proc.ID(rng.IntN(n)), proc.ID(rng.IntN(n))
		back := c.now + proc.Time(1+rng.IntN(5*lease))
		switch rng.IntN(5) {
		case 0: // crash, restart on its data
			if c.up[a] {
				c.crash(a)
				pending = append(pending, undo{back, func() { c.start(a) }})
			}
		case 1: // crash, restart at once
			if c.up[a] {
				c.crash(a)
				c.start(a)
			}
		case 2: // isolate
			c.isolate(a, true)
			c.logf("isolate %d", a)
			pending = append(pending, undo{back, func() { c.isolate(a, false); c.logf("heal %d", a) }})
		case 3: // one link, one way (a pair of them: non-transitive)
			if a != b {
				c.cut[[2]proc.ID{a, b}] = true
				c.logf("cut %d->%d", a, b)
				pending = append(pending, undo{back, func() { c.cut[[2]proc.ID{a, b}] = false; c.logf("mend %d->%d", a, b) }})
			}
		case 4: // pause
			if c.up[a] && !c.paused[a] {
				c.pause(a, true)
				pending = append(pending, undo{back, func() { c.pause(a, false) }})
			}
		}
		if err := check(c.spans, n, c.now); err != nil {
			t.Fatalf("seed %d, %d nodes: %v\n%s", s, n, err, strings.Join(c.log, "\n"))
		}
	}
	for _, u := range pending {
		u.f()
	}
	for i := range n {
		if !c.up[i] {
			c.start(proc.ID(i))
		}
	}
	c.settleAbove(50*lease, n, 0)
	return c
}
