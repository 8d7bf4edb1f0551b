package session

import (
	"testing"
	"time"
)

const ms = Time(time.Millisecond)

// TestLeaseRule: the session lease rule, case by case.
func TestLeaseRule(t *testing.T) {
	const ttl = 1000 * time.Millisecond
	const slack = 400 * time.Millisecond
	opened := Open(100*ms, ttl)
	adopted := Adopt(500*ms, ttl, 1300*ms)
	for _, c := range []struct {
		name string
		l    Lease
		now  Time
		// Renew's answer and the deadline after it; RecordEnd after it
		renewed  bool
		deadline Time
		end      Time
	}{
		{"a keep-alive moves the deadline a TTL on", opened, 600 * ms, true, 1600 * ms, 2000 * ms},
		{"at the deadline the session has run out", opened, 1100 * ms, false, 1100 * ms, 1500 * ms},
		{"past it too", opened, 5000 * ms, false, 1100 * ms, 1500 * ms},
		{"an adopted session's early keep-alive keeps the adopted deadline, no slack", adopted, 200 * ms, true, 1300 * ms, 1300 * ms},
		{"a later one moves it on, with the slack", adopted, 400 * ms, true, 1400 * ms, 1800 * ms},
		{"an adopted session runs out at its deadline", adopted, 1300 * ms, false, 1300 * ms, 1300 * ms},
	} {
		l := c.l
		if got := l.Renew(c.now); got != c.renewed || l.Deadline != c.deadline {
			t.Errorf("%s: Renew(%v) = %v, deadline %v; want %v, %v", c.name, c.now/ms, got, l.Deadline/ms, c.renewed, c.deadline/ms)
		}
		if got := l.RecordEnd(slack); got != c.end {
			t.Errorf("%s: RecordEnd = %v, want %v", c.name, got/ms, c.end/ms)
		}
		if l.Out(c.now) == c.renewed {
			t.Errorf("%s: Out(%v) = %v after Renew said %v", c.name, c.now/ms, l.Out(c.now), c.renewed)
		}
	}
	if fresh := Adopt(500*ms, ttl, 0); fresh.Deadline != 1500*ms || fresh.Adopted != 1500*ms {
		t.Errorf("adopted with no time left recorded: deadline %v, adopted %v; want a fresh TTL, 1500", fresh.Deadline/ms, fresh.Adopted/ms)
	}
}

// TestLeaseRecorded: a keep-alive needs no record while the backup keeps
// the session half a slack past the deadline; the answer of one whose
// record did not reach the backup promises what the backup keeps; a
// moved backup keeps nothing.
func TestLeaseRecorded(t *testing.T) {
	const slack = 400 * time.Millisecond
	l := Open(0, time.Second)
	if _, ok := l.Promise(0, time.Minute); l.Covered(slack) || ok {
		t.Fatalf("nothing recorded: covered %v, a promise %v", l.Covered(slack), ok)
	}
	l.Acked(l.RecordEnd(slack)) // kept until 1400
	l.Acked(900 * ms)           // an older record's answer, late
	if p, _ := l.Promise(100*ms, time.Minute); !l.Covered(slack) || p != 1300*time.Millisecond {
		t.Fatalf("recorded until 1400: covered %v, promised at 100 %v, want 1.3s", l.Covered(slack), p)
	}
	if p, _ := l.Promise(100*ms, time.Second); p != time.Second {
		t.Fatalf("a node's lease of 1s, the backup's 1.3s: promised %v, want 1s", p)
	}
	l.Renew(200 * ms) // deadline 1200: 1400 is exactly half a slack past it
	if !l.Covered(slack) {
		t.Fatal("a keep-alive half a slack within what the backup keeps needs a record")
	}
	l.Renew(201 * ms)
	if l.Covered(slack) {
		t.Fatal("a keep-alive past half a slack within what the backup keeps needs none")
	}
	l.Moved()
	if _, ok := l.Promise(201*ms, time.Minute); ok || l.Covered(slack) {
		t.Fatal("a moved backup's records still count")
	}
	if got := l.Handed(); got != l.Deadline.Add(time.Second) {
		t.Fatalf("handed until %v, want the deadline and a TTL", got/ms)
	}
}

// TestLeft: the time a record says is left is rounded up to the
// millisecond, and never zero (zero is a record that carries none).
func TestLeft(t *testing.T) {
	for _, c := range []struct {
		now, end Time
		want     time.Duration
	}{
		{0, 1500 * ms, 1500 * time.Millisecond},
		{0, 1500*ms + 1, 1501 * time.Millisecond},
		{2000 * ms, 1500 * ms, time.Millisecond},
		{1500 * ms, 1500 * ms, time.Millisecond},
	} {
		if got := Left(c.now, c.end); got != c.want {
			t.Errorf("Left(%d, %d) = %v, want %v", c.now, c.end, got, c.want)
		}
	}
}

// TestExpiry: sessions come up in deadline order, each once, and only
// when due.
func TestExpiry(t *testing.T) {
	var e Expiry[uint64]
	if !e.Add(1, 300*ms) || !e.Add(2, 100*ms) || e.Add(3, 200*ms) {
		t.Fatal("Add's first is not the soonest")
	}
	if _, wait, ok := e.Next(50 * ms); ok || wait != 50*time.Millisecond {
		t.Fatalf("none due at 50: ok %v, wait %v; want 50ms", ok, wait)
	}
	var got []uint64
	for {
		s, _, ok := e.Next(250 * ms)
		if !ok {
			break
		}
		got = append(got, s)
	}
	if len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Fatalf("due at 250: %v, want [2 3]", got)
	}
	if s, _, ok := e.Next(Time(time.Hour)); !ok || s != 1 {
		t.Fatalf("the last: %v %v", s, ok)
	}
	if _, wait, ok := e.Next(0); ok || wait != 0 {
		t.Fatalf("empty: ok %v, wait %v", ok, wait)
	}
}

// TestBelieved: the client's side of the rule, from when it sent the
// keep-alive.
func TestBelieved(t *testing.T) {
	const ttl = 10 * time.Second
	for _, c := range []struct {
		lease, want time.Duration
	}{{3 * time.Second, 3 * time.Second}, {time.Minute, ttl}, {0, ttl}, {-time.Second, ttl}} {
		if got := Believed(ttl, c.lease); got != c.want {
			t.Errorf("Believed(10s, %v) = %v, want %v", c.lease, got, c.want)
		}
	}
	for _, c := range []struct {
		since, lease, kept time.Duration
		said               bool
		want               time.Duration
	}{
		{4 * time.Second, 3 * time.Second, 0, false, 3 * time.Second},                              // the backup's lease
		{8 * time.Second, 3 * time.Second, 0, false, 2 * time.Second},                              // the TTL from the last keep-alive at the node
		{1 * time.Second, 3 * time.Second, 2500 * time.Millisecond, true, 2500 * time.Millisecond}, // what the backup keeps
		{1 * time.Second, 3 * time.Second, 2500 * time.Millisecond, false, 3 * time.Second},        // an older backup, which does not say
		{12 * time.Second, 3 * time.Second, 0, false, -2 * time.Second},                            // past it: nothing
	} {
		if got := BelievedAtBackup(ttl, c.since, c.lease, c.kept, c.said); got != c.want {
			t.Errorf("BelievedAtBackup(10s, since %v, lease %v, kept %v %v) = %v, want %v", c.since, c.lease, c.kept, c.said, got, c.want)
		}
	}
}

// TestKept: what a backup tells a client it keeps is rounded down, and
// never negative.
func TestKept(t *testing.T) {
	for _, c := range []struct {
		now, until Time
		want       time.Duration
	}{
		{0, 1500 * ms, 1500 * time.Millisecond},
		{1, 1500 * ms, 1499 * time.Millisecond},
		{2000 * ms, 1500 * ms, 0},
	} {
		if got := Kept(c.now, c.until); got != c.want {
			t.Errorf("Kept(%d, %d) = %v, want %v", c.now, c.until, got, c.want)
		}
	}
}

// TestLapsing: a keep-alive's answer says its node's lease is lapsing
// only when the lease bounds what the client counts on (under the TTL)
// and is under half the longest lease answered; a node that says none,
// a lease past the TTL, and one renewed on time do not.
func TestLapsing(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		ttl, lease, longest time.Duration
		want                bool
	}{
		{10 * s, 1400 * time.Millisecond, 3 * s, true},
		{10 * s, 2300 * time.Millisecond, 3 * s, false}, // renewed every quarter
		{10 * s, 1400 * time.Millisecond, 0, false},     // no lease answered before
		{10 * s, 0, 3 * s, false},                       // a node that says none
		{1 * s, 1400 * time.Millisecond, 3 * s, false},  // the TTL bounds the count
		{2 * s, 10 * time.Millisecond, 3 * s, true},
	} {
		if got := Lapsing(c.ttl, c.lease, c.longest); got != c.want {
			t.Errorf("Lapsing(ttl %v, lease %v, longest %v) = %v, want %v", c.ttl, c.lease, c.longest, got, c.want)
		}
	}
}
