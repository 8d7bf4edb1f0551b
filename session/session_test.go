package session

import (
	"testing"
	"time"
)

// TestSession: a session ends once, recorded or handed; an ended one
// takes no keep-alive, and is told expired only where its end was
// recorded; each record has a new seq and says whether it ended.
func TestSession(t *testing.T) {
	s := Opened(7, 0, time.Second)
	r, end := s.Record(100*ms, 400*time.Millisecond, []Grant{{ID: 1}})
	if r.Seq != 1 || r.Ended || r.Left != 1300*time.Millisecond || end != 1400*ms || len(r.Grants) != 1 {
		t.Fatalf("the first record: %+v, end %v", r, end/ms)
	}
	if !s.KeepAlive(500 * ms) {
		t.Fatal("a live session took no keep-alive")
	}
	handed, ok := s.End(false)
	if !ok || handed != 2500*ms || s.Gone() != NotHere {
		t.Fatalf("handed over: ok %v, kept as handed until %v, gone %v; want until the deadline and a TTL, NotHere", ok, handed/ms, s.Gone())
	}
	if _, ok := s.End(true); ok {
		t.Fatal("a session ended twice")
	}
	if s.KeepAlive(600 * ms) {
		t.Fatal("an ended session took a keep-alive")
	}
	if r, _ := s.Record(600*ms, 0, nil); r.Seq != 2 || !r.Ended {
		t.Fatalf("the record of the end: %+v", r)
	}
	closed := Opened(8, 0, time.Second)
	if handed, ok := closed.End(true); !ok || handed != 0 || closed.Gone() != Ended {
		t.Fatalf("closed: ok %v, handed %v, gone %v; want Ended", ok, handed, closed.Gone())
	}
}

// TestDue: a session its expiry brings up is dropped once ended, looked
// at again while alive, ended once run out, but never by a node without
// its lease.
func TestDue(t *testing.T) {
	s := Opened(7, 0, time.Second)
	for _, c := range []struct {
		now     Time
		serving bool
		want    Verdict
	}{
		{500 * ms, true, Later},
		{500 * ms, false, Later},
		{1000 * ms, false, Wait},
		{1000 * ms, true, Expire},
	} {
		if got := s.Due(c.now, c.serving); got != c.want {
			t.Errorf("Due(%v, serving %v) = %v, want %v", c.now/ms, c.serving, got, c.want)
		}
	}
	s.End(true)
	if got := s.Due(2000*ms, true); got != Drop {
		t.Errorf("an ended session: %v, want Drop", got)
	}
}
