package chaos

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service/eventlog"
	"github.com/allot-dev/allot/service/verify"
)

// Fault is one fault the harness injected, from Start to End (equal for
// an instant one), and the client groups it touched ("*": every group).
type Fault struct {
	Kind    string   `json:"kind"`
	Target  string   `json:"target"`
	Start   int64    `json:"start"`
	End     int64    `json:"end"`
	Touched []string `json:"touched,omitempty"`
	// Nodes are the nodes the fault made unreachable for a while, to
	// some or all of the others: stopped, down, cut off from a peer or
	// from a client (none for a fault of the clients or of the machine).
	Nodes []int `json:"nodes,omitempty"`
	// Err: the fault's end failed (a node restarted was not ready
	// again): the service's failure, which fails the run.
	Err string `json:"err,omitempty"`
}

func (f Fault) touches(client string) bool {
	g := group(client)
	for _, t := range f.Touched {
		if t == "*" || t == g {
			return true
		}
	}
	return false
}

// Input is what the checker reads: the nodes' event logs, the clients'
// histories (with the harness's "killed" events), and the fault schedule
// as it happened.
type Input struct {
	Nodes [][]eventlog.Record
	// Missing are the nodes some of whose logs are left out (a killed
	// run's): see verify.Partial.
	Missing []int
	History []Event
	Faults  []Fault
	// Calm is when the faults stopped (0: no liveness check); every
	// client alive then must complete an operation within Bound.
	Calm  int64
	Bound time.Duration
	// Budget is the quota's M: the permits acknowledged stay within it.
	Budget int
}

// Report is the checker's verdict and the run's figures.
type Report struct {
	Node       verify.Verdict
	Violations int
	First      []string       // the first violations, for the failure message
	Ops        map[string]int // operations completed, by kind
	Writes     int            // writes the store acknowledged
	Refused    int            // stale reads and writes the store refused
	Permits    int            // quota permits acknowledged
	Clients    int
	Faults     map[string]int
	// Stalls are, per fault kind, the stall after each fault: from its
	// end until every client it touched completed an operation.
	Stalls map[string][]time.Duration
	// Typical are, per fault kind, the median over the clients it
	// touched of their stall after each fault.
	Typical map[string][]time.Duration
	// Unserved counts, per fault kind, the faults after which a client
	// it touched completed nothing till the end of the run.
	Unserved map[string]int
	// Worst describes, per fault kind, the fault with the longest stall
	// and the client that waited longest after it.
	Worst map[string]string
	// During are, per fault kind, the longest time within each fault
	// that lasts (a partition, a drop, a pause, a node down) in which no
	// client at all completed an operation: 0 when the rest of the
	// cluster served on, the fault's length when it stopped.
	During map[string][]time.Duration
	// Baseline is the same stall measured from fault-free instants of
	// the calm phase: what contention alone costs.
	Baseline, BaselineTypical []time.Duration
	// AfterCalm is the longest a live client waited, from the moment
	// the faults stopped, for its next completed operation.
	AfterCalm time.Duration
	// ExpiredAlive counts the answers ErrSessionExpired to a session
	// kept alive (each a violation: see Check); ExpiredExcused those the
	// rule lets pass because two nodes were unreachable meanwhile; and
	// DoneEarly the sessions whose Done closed before their TTL from the
	// last keep-alive answered (not a violation: the client closes Done
	// when no node has answered for its node's lease, shorter than the
	// TTL, for the lease may have run out: see client.Session.Done).
	ExpiredAlive, ExpiredExcused, DoneEarly int
}

// OK reports whether the run shows no violation.
func (r *Report) OK() bool { return r.Violations == 0 }

func (r *Report) fail(format string, args ...any) {
	r.Violations++
	if len(r.First) < 20 {
		r.First = append(r.First, fmt.Sprintf(format, args...))
	}
}

// interval is one holding of a key by a client, as the client knows it:
// from the grant's answer to the release's invocation, or to the moment
// it may have lost it (its session's Done, its abandonment, its kill).
type interval struct {
	client     string
	start, end int64
	token      client.Token
}

var served = map[string]bool{"lock": true, "acquire": true, "take": true}

// Check checks in: safety from the histories and the node logs, liveness
// after the calm, and measures the stalls.
func Check(in Input) (*Report, error) {
	r := &Report{Ops: map[string]int{}, Faults: map[string]int{}, Stalls: map[string][]time.Duration{}, Typical: map[string][]time.Duration{}, Unserved: map[string]int{}, Worst: map[string]string{}, During: map[string][]time.Duration{}}
	v, err := verify.Partial(in.Missing, in.Nodes...)
	if err != nil {
		return nil, err
	}
	r.Node = v
	if v.Violations > 0 || v.Open > 0 {
		r.fail("node event logs: %v", v)
	}
	for _, f := range in.Faults {
		if f.Err != "" {
			r.fail("%s %s: %s", f.Kind, f.Target, f.Err)
		}
	}
	h := slices.Clone(in.History)
	slices.SortStableFunc(h, func(a, b Event) int { return cmp.Compare(a.T, b.T) })
	var first, last int64
	if len(h) > 0 {
		first, last = h[0].T, h[len(h)-1].T
	}

	type state struct {
		lost bool          // the session is gone: a grant answered now is not held
		ttl  time.Duration // the session's TTL (0: not recorded)
		open []interval    // what the client holds, by key (one operation at a time)
		keys []string
	}
	clients := map[string]*state{}
	killedAt := map[string]int64{} // group → when its process was killed
	held := map[string][]interval{}
	written := map[string]map[int]string{} // key → version → writer
	oks := map[string][]int64{}            // client → times of completed operations
	born := map[string]int64{}             // client → its first event
	closeAll := func(c string, st *state, t int64) {
		for i, iv := range st.open {
			iv.end = t
			held[st.keys[i]] = append(held[st.keys[i]], iv)
		}
		st.open, st.keys = nil, nil
	}
	for _, e := range h {
		if e.Client == "harness" {
			if e.Op == "killed" {
				for _, g := range e.Keys {
					killedAt[g] = e.T
					for c, st := range clients {
						if group(c) == g {
							closeAll(c, st, e.T)
						}
					}
				}
			}
			continue
		}
		st := clients[e.Client]
		if st == nil {
			st = &state{}
			clients[e.Client] = st
			born[e.Client] = e.T
		}
		if e.Type == "ok" && served[e.Op] {
			r.Ops[e.Op]++
			oks[e.Client] = append(oks[e.Client], e.T)
		}
		if e.Renewed != 0 && st.ttl > 0 && !st.lost && e.T < e.Renewed+st.ttl.Nanoseconds() {
			expiredAlive(r, in.Faults, e, st.ttl)
		}
		switch {
		case e.Op == "session":
			st.lost, st.ttl = false, e.TTL
		case e.Op == "done" || e.Op == "abandon":
			st.lost = true
			closeAll(e.Client, st, e.T)
		case (e.Op == "unlock" || e.Op == "release") && e.Type == "invoke":
			closeAll(e.Client, st, e.T)
		case (e.Op == "lock" || e.Op == "acquire") && e.Type == "ok":
			if len(e.Tokens) != len(e.Keys) {
				return nil, fmt.Errorf("%s: %s with %d keys and %d tokens", e.Client, e.Op, len(e.Keys), len(e.Tokens))
			}
			closeAll(e.Client, st, e.T)
			if st.lost {
				continue // answered after the lease may have gone: not held
			}
			for i, k := range e.Keys {
				st.open = append(st.open, interval{client: e.Client, start: e.T, token: e.Tokens[i]})
				st.keys = append(st.keys, k)
			}
		case e.Op == "take" && e.Type == "ok":
			r.Permits += e.N
		case (e.Op == "read" || e.Op == "write") && e.Type == "fail":
			r.Refused++
		case e.Op == "write" && e.Type == "ok":
			r.Writes++
			k := e.Keys[0]
			if written[k] == nil {
				written[k] = map[int]string{}
			}
			if w, dup := written[k][e.Version]; dup {
				r.fail("store key %s: version %d written by %s and, acknowledged again, by %s (token %v): a write lost", k, e.Version, w, e.Client, e.Tokens)
			}
			written[k][e.Version] = e.Client
		}
	}
	for c, st := range clients {
		closeAll(c, st, last)
	}
	r.Clients = len(clients)

	// Exclusion and tokens, per key.
	sems := map[string][]interval{}
	for _, k := range slices.Sorted(maps.Keys(held)) {
		ivs := held[k]
		slices.SortFunc(ivs, func(a, b interval) int { return cmp.Compare(a.start, b.start) })
		for i := 1; i < len(ivs); i++ {
			a, b := ivs[i-1], ivs[i]
			if b.start < a.end {
				r.fail("%s held by %s [%d, %d] and by %s from %d: two holders", k, a.client, a.start, a.end, b.client, b.start)
			} else if !a.token.Less(b.token) {
				r.fail("%s: token %v after %v (%s, then %s)", k, b.token, a.token, a.client, b.client)
			}
		}
		if name, units, ok := semUnit(k); ok {
			sems[name+"/"+units] = append(sems[name+"/"+units], ivs...)
		}
	}
	for _, s := range slices.Sorted(maps.Keys(sems)) {
		var units int
		fmt.Sscanf(s[strings.LastIndexByte(s, '/')+1:], "%d", &units)
		if n, t := maxOverlap(sems[s]); n > units {
			r.fail("semaphore %s: %d holders at %d", s, n, t)
		}
	}
	if in.Budget > 0 && r.Permits > in.Budget {
		r.fail("quota: %d permits acknowledged, budget %d", r.Permits, in.Budget)
	}

	// Liveness after the calm.
	alive := func(c string, t int64) bool {
		k, ok := killedAt[group(c)]
		return born[c] <= t && (!ok || k > t)
	}
	next := func(c string, t int64) (int64, bool) {
		ts := oks[c]
		i, _ := slices.BinarySearch(ts, t)
		if i == len(ts) {
			return 0, false
		}
		return ts[i], true
	}
	if in.Calm > 0 {
		for _, c := range slices.Sorted(maps.Keys(clients)) {
			if !alive(c, in.Calm) || !alive(c, last) {
				continue
			}
			t, ok := next(c, in.Calm)
			if !ok || t > in.Calm+in.Bound.Nanoseconds() {
				r.fail("%s not served within %v after the faults stopped", c, in.Bound)
			}
			if ok {
				r.AfterCalm = max(r.AfterCalm, time.Duration(t-in.Calm))
			}
		}
		// Every kind of operation is served again, not only some: a
		// quota refused for good while locks go on is not live.
		tried, answered := map[string]int{}, map[string]bool{}
		for _, e := range h {
			if !served[e.Op] || e.T < in.Calm || e.T > in.Calm+in.Bound.Nanoseconds() {
				continue
			}
			tried[e.Op]++
			answered[e.Op] = answered[e.Op] || e.Type == "ok"
		}
		for _, op := range slices.Sorted(maps.Keys(tried)) {
			if !answered[op] {
				r.fail("no %s served within %v after the faults stopped (%d events of it)", op, in.Bound, tried[op])
			}
		}
	}

	// Stalls.
	// stall is the longest wait from t of the clients touches picks, the
	// client who waited it, and the median wait; false if one of them
	// was never served again.
	stall := func(t int64, touches func(string) bool) (time.Duration, string, time.Duration, bool) {
		var worst int64
		var who string
		var waits []time.Duration
		for _, c := range slices.Sorted(maps.Keys(clients)) {
			if !touches(c) || !alive(c, t) {
				continue
			}
			n, ok := next(c, t)
			if !ok {
				if alive(c, last) {
					return 0, c, 0, false
				}
				continue // killed before it was served again
			}
			waits = append(waits, time.Duration(n-t))
			if n-t > worst {
				worst, who = n-t, c
			}
		}
		return time.Duration(worst), who, quantile(waits, 0.5), true
	}
	var allOK []int64
	for _, ts := range oks {
		allOK = append(allOK, ts...)
	}
	slices.Sort(allOK)
	worst := map[string]time.Duration{}
	for _, f := range in.Faults {
		r.Faults[f.Kind]++
		if f.End > f.Start {
			r.During[f.Kind] = append(r.During[f.Kind], longestGap(allOK, f.Start, f.End))
		}
		d, who, med, ok := stall(f.End, f.touches)
		if !ok {
			r.Unserved[f.Kind]++
			continue
		}
		r.Stalls[f.Kind] = append(r.Stalls[f.Kind], d)
		r.Typical[f.Kind] = append(r.Typical[f.Kind], med)
		if d >= worst[f.Kind] {
			worst[f.Kind] = d
			r.Worst[f.Kind] = fmt.Sprintf("%s %s at +%v: %s waited %v", f.Kind, f.Target, time.Duration(f.End-first).Round(time.Millisecond), who, d.Round(time.Millisecond))
		}
	}
	if in.Calm > 0 {
		for t := in.Calm + int64(time.Second); t+int64(2*time.Second) < last; t += int64(500 * time.Millisecond) {
			if d, _, med, ok := stall(t, func(string) bool { return true }); ok {
				r.Baseline = append(r.Baseline, d)
				r.BaselineTypical = append(r.BaselineTypical, med)
			}
		}
	}
	slices.SortFunc(r.First, strings.Compare)
	return r, nil
}

// expiredAlive judges e, a session's Done or a call answered that the
// session expired, at e.T less than the session's TTL after e.Renewed,
// the sending of the last keep-alive its node answered (the rule "a
// client that keeps its session alive is never told it expired"). The
// node counts the TTL from that keep-alive's arrival, later than its
// sending, and answered no later than the client recorded the answer,
// on the same clock: a session that expired by its TTL cannot be
// answered so. What ends a session sooner is the loss of its node and of
// its backup together, which the histories cannot see (they do not
// know which nodes those are): so an answer is let pass when the faults
// that overlap [e.Renewed, e.T] made two nodes or more unreachable
// (Fault.Nodes), and is otherwise a violation. A Done is the client's
// own deadline, which is its node's lease when that is shorter than the
// TTL and no node has answered (the lease may have run out): counted
// apart (DoneEarly), not a violation.
func expiredAlive(r *Report, faults []Fault, e Event, ttl time.Duration) {
	down := map[int]bool{}
	for _, f := range faults {
		if f.Start <= e.T && f.End >= e.Renewed {
			for _, n := range f.Nodes {
				down[n] = true
			}
		}
	}
	switch {
	case len(down) >= 2:
		if e.Op != "done" {
			r.ExpiredExcused++
		}
	case e.Op == "done":
		r.DoneEarly++
	default:
		r.ExpiredAlive++
		r.fail("%s: %s answered %q at %d, %v after the session's last keep-alive answered (TTL %v), with nodes %v unreachable meanwhile: expired while kept alive",
			e.Client, e.Op, e.Err, e.T, time.Duration(e.T-e.Renewed).Round(time.Millisecond), ttl, slices.Sorted(maps.Keys(down)))
	}
}

// longestGap is the longest stretch of [from, to] holding none of the
// sorted times ts.
func longestGap(ts []int64, from, to int64) time.Duration {
	i, _ := slices.BinarySearch(ts, from)
	gap, last := int64(0), from
	for ; i < len(ts) && ts[i] <= to; i++ {
		gap, last = max(gap, ts[i]-last), ts[i]
	}
	return time.Duration(max(gap, to-last))
}

// semUnit splits a semaphore unit key "NAME/R/UNIT@EPOCH".
func semUnit(k string) (name, units string, ok bool) {
	k, _, _ = strings.Cut(k, "@")
	parts := strings.Split(k, "/")
	if len(parts) < 3 {
		return "", "", false
	}
	return strings.Join(parts[:len(parts)-2], "/"), parts[len(parts)-2], true
}

// maxOverlap is the largest number of intervals holding at once, and when.
func maxOverlap(ivs []interval) (int, int64) {
	type edge struct {
		t int64
		d int
	}
	var es []edge
	for _, iv := range ivs {
		es = append(es, edge{iv.start, 1}, edge{iv.end, -1})
	}
	// Ends before starts at the same instant: a release then a grant.
	slices.SortFunc(es, func(a, b edge) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.d, b.d)) })
	n, best, at := 0, 0, int64(0)
	for _, e := range es {
		n += e.d
		if n > best {
			best, at = n, e.t
		}
	}
	return best, at
}

// Summary is the report as text: the figures the closing note gives.
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "clients %d; operations completed: %d locks, %d semaphore units, %d takes (%d permits); store: %d writes acknowledged, %d stale reads/writes refused\n",
		r.Clients, r.Ops["lock"], r.Ops["acquire"], r.Ops["take"], r.Permits, r.Writes, r.Refused)
	fmt.Fprintf(&b, "node logs: %v\n", r.Node)
	fmt.Fprintf(&b, "after the faults stopped, every live client was served within %v\n", r.AfterCalm.Round(time.Millisecond))
	fmt.Fprintf(&b, "stall after each fault until every client it touched is served (all), and of the median client (median); quantiles over the faults\n")
	fmt.Fprintf(&b, "and the longest time within a lasting fault in which no client completed anything (none served, p50 and max)\n")
	fmt.Fprintf(&b, "%-12s %6s %10s %10s %10s %10s %10s %9s %10s %10s\n", "fault", "count", "all p50", "p90", "max", "median p50", "max", "unserved", "none p50", "max")
	row := func(name string, n int, s, m []time.Duration, unserved string, during []time.Duration) {
		none := []any{"", ""}
		if len(during) > 0 {
			none = []any{quantile(during, 0.5), quantile(during, 1)}
		}
		fmt.Fprintf(&b, "%-12s %6d %10v %10v %10v %10v %10v %9s %10v %10v\n", name, n, quantile(s, 0.5), quantile(s, 0.9), quantile(s, 1), quantile(m, 0.5), quantile(m, 1), unserved, none[0], none[1])
	}
	for _, k := range slices.Sorted(maps.Keys(r.Faults)) {
		row(k, r.Faults[k], r.Stalls[k], r.Typical[k], fmt.Sprint(r.Unserved[k]), r.During[k])
	}
	row("(no fault)", len(r.Baseline), r.Baseline, r.BaselineTypical, "", nil)
	for _, k := range slices.Sorted(maps.Keys(r.Worst)) {
		fmt.Fprintf(&b, "worst: %s\n", r.Worst[k])
	}
	fmt.Fprintf(&b, "expired answers to sessions kept alive: %d (violations); %d more while two nodes or more were unreachable; Done closed within the TTL of an answered keep-alive: %d\n",
		r.ExpiredAlive, r.ExpiredExcused, r.DoneEarly)
	fmt.Fprintf(&b, "violations: %d", r.Violations)
	for _, s := range r.First {
		fmt.Fprintf(&b, "\n  %s", s)
	}
	return b.String()
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(i, 0)].Round(time.Millisecond)
}
