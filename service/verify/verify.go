// Package verify checks an allot cluster from its nodes' event logs
// (package service/eventlog) alone: the checkers of package check, per
// algorithm instance, read them as they read a simulated stream; the
// fencing tokens are checked beside them, and the holders of exclusion and
// of the semaphores across views (holders.go). Tests and the chaos harness
// use it; the node does not, so the daemon does not link the checkers.
package verify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/check"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/eventlog"
	"github.com/allot-dev/allot/service/internal/space"
)

// Verdict is what the merged event logs of a cluster's nodes show: the
// checkers of package check, per algorithm instance, read them as they read
// a simulated stream, and the fencing tokens are checked beside them.
type Verdict struct {
	Records  int // records read
	Answered int // requests answered (enter, grant)
	Fenced   int // tokens issued
	Open     int // requests never answered
	// Retired counts the instances of views a later view replaced (their
	// open requests were asked again in the later one, not counted here).
	Retired int
	// Closed counts the requests still open in an instance that a node
	// closed at its shutdown: a stopped cluster answers no more, so they
	// are reported, not judged (the clients' histories judge liveness).
	Closed int
	// Violations counts the failures of exclusion (two holders of a
	// resource at once), of the pool (a unit held twice, more than R
	// units), and of fencing (a token of a key not above the last one).
	Violations int
	First      []string
}

// OK reports whether the logs show no violation and no open request.
func (v Verdict) OK() bool { return v.Violations == 0 && v.Open == 0 }

func (v Verdict) String() string {
	return fmt.Sprintf("%d records, %d answered, %d tokens, %d open, %d open at shutdown, %d violations %v", v.Records, v.Answered, v.Fenced, v.Open, v.Closed, v.Violations, v.First)
}

// Logs checks the records of every node's event log, merged by time.
func Logs(logs ...[]eventlog.Record) (Verdict, error) { return Partial(nil, logs...) }

// ranOn reports whether the instance named name ran on one of the nodes.
func ranOn(name string, nodes []int) bool {
	_, view, ok := strings.Cut(name, "@")
	v, err := space.ParseView(view)
	if !ok || err != nil {
		return len(nodes) > 0 // no view: it ran on every node
	}
	for _, k := range nodes {
		if v.Members.Rank(k) >= 0 {
			return true
		}
	}
	return false
}

// Partial is Logs for logs that miss what the nodes missing
// recorded (a killed node's log, which loses its tail, left out). A
// quota's instance that ran on a missing node is checked for everything
// but its ending (a reject only after M − W permits, exhausted signalled
// iff rejected): the permits the missing node issued are not in the logs,
// and what lay in a crashed member's bins is the quota's waste.
func Partial(missing []int, logs ...[]eventlog.Record) (Verdict, error) {
	var recs []eventlog.Record
	for _, l := range logs {
		recs = append(recs, l...)
	}
	slices.SortStableFunc(recs, func(a, b eventlog.Record) int { return int(a.T - b.T) })
	type checker struct {
		key    space.Key // the instance's, parsed once
		sink   proc.Sink
		rep    *check.Report
		finish func()
		waits  check.Waits
	}
	byInst := map[string]*checker{}
	type token struct{ epoch, counter uint64 }
	last := map[string]token{}
	retired, closed := map[string]bool{}, map[string]bool{}
	hs := newHolders()
	// A quota's permits over all its views, against its whole budget.
	type quota struct {
		name   string
		budget int
	}
	permits := map[quota]int{}
	v := Verdict{Records: len(recs)}
	fail := func(format string, args ...any) {
		v.Violations++
		if len(v.First) < 10 {
			v.First = append(v.First, fmt.Sprintf(format, args...))
		}
	}
	for _, r := range recs {
		hs.record(r)
		if r.Ev == eventlog.Owner {
			continue
		}
		if r.Ev == eventlog.Fenced {
			for i, k := range r.Keys {
				if i >= len(r.Counters) {
					return v, fmt.Errorf("a fenced record with %d keys and %d counters", len(r.Keys), len(r.Counters))
				}
				t, l := token{r.Epoch, r.Counters[i]}, last[k]
				if t.epoch < l.epoch || t.epoch == l.epoch && t.counter <= l.counter {
					fail("t=%d: %s got token %d.%d after %d.%d", r.T, k, t.epoch, t.counter, l.epoch, l.counter)
				} else {
					last[k] = t
				}
				v.Fenced++
			}
			continue
		}
		if r.Ev == eventlog.Retired {
			retired[r.Instance] = true
			continue
		}
		if r.Ev == eventlog.Closed {
			closed[r.Instance] = true
			continue
		}
		if r.Instance == "" {
			continue // the node's own: a view it serves, a fence
		}
		c := byInst[r.Instance]
		if c == nil {
			key, _, _ := strings.Cut(r.Instance, "@")
			k, err := space.ParseKey(key)
			if err != nil {
				return v, err
			}
			c = &checker{key: k}
			switch k.Kind {
			case algo.Pool:
				// A node killed with -9 loses the tail of its buffered
				// log, moves with it: holders are judged, places not.
				x := &check.Pool{Units: k.Units, IgnoreMoves: true}
				c.sink, c.rep = x, &x.Report
			case algo.Quota:
				x := &check.Quota{Budget: k.Left, Waste: min(k.Waste, k.Left)}
				c.sink, c.rep = x, &x.Report
				if !ranOn(r.Instance, missing) {
					c.finish = x.Finish
				}
			default:
				x := &check.Exclusion{}
				c.sink, c.rep = x, &x.Report
			}
			byInst[r.Instance] = c
		}
		e, err := r.Event()
		if err != nil {
			return v, err
		}
		if e.Kind == proc.EvPermit {
			k := c.key
			q := quota{k.Name, k.Budget}
			if permits[q]++; permits[q] == k.Budget+1 {
				fail("t=%d: quota %s issued more than its %d permits over its views", r.T, k.Name, k.Budget)
			}
		}
		if e.Served() {
			v.Answered++
		}
		c.sink.Event(e)
		c.waits.Event(e)
	}
	hs.check(fail)
	for name, c := range byInst {
		if c.finish != nil {
			c.finish()
		}
		if retired[name] {
			v.Retired++
		} else if closed[name] {
			v.Closed += c.waits.Open()
		} else {
			v.Open += c.waits.Open()
		}
		v.Violations += c.rep.Violations
		for _, s := range c.rep.First {
			if len(v.First) < 10 {
				v.First = append(v.First, name+": "+s)
			}
		}
	}
	slices.SortFunc(v.First, strings.Compare)
	return v, nil
}
