package dataplane

import (
	"slices"
	"testing"

	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
)

// homedAt is a name, of 0..99, homed at node h among members.
func homedAt(t *testing.T, h proc.ID, members []proc.ID) int32 {
	for name := int32(0); name < 100; name++ {
		if home(name, members) == h {
			return name
		}
	}
	t.Fatalf("no name homed at %d of %v", h, members)
	return 0
}

// TestLockNamesResolved: a lock of a name homed at another node asks the
// home for its id in the view and asks the lock's instance only with the
// answer; the home gives its own range, rank + N·k, on first question,
// the same id to every question of the view; a grant held is resolved
// again in the next view, unless NamesStale keeps the old id.
func TestLockNamesResolved(t *testing.T) {
	for _, broken := range []Broken{0, NamesStale} {
		m2 := []proc.ID{0, 1}
		a := New(Config{Self: 0, Run: 1, Slack: 1000, LockDelay: 250, Broken: broken})
		b := New(Config{Self: 1, Run: 1, Slack: 1000, LockDelay: 250})
		var o Out
		a.At(10, 900)
		b.At(10, 900)
		v := control.View{Epoch: 5, Members: m2, Gens: []uint64{1, 1}}
		a.Adopt(&o, v, control.View{})
		a.Serve(&o, 5, nil)
		b.Adopt(&o, v, control.View{})
		b.Serve(&o, 5, nil)
		o = Out{}
		a.Call(&o, 7, Call{Op: OpOpen, Req: 1, TTL: 3000})
		a.KeepAck(&o, 1, KeepAck{Gen: 1, N: 1})
		sid := o.Replies[0].M.(Reply).Session

		x, y := homedAt(t, 1, m2), int32(-1)
		for name := x + 1; y < 0; name++ {
			if home(name, m2) == 1 {
				y = name
			}
		}
		// y asked first at the home: k = 0 is y's, x gets rank 1 + 2·1.
		o = Out{}
		b.Resolve(&o, 0, Resolve{Epoch: 5, Members: m2, Name: y})
		o = Out{}
		a.Call(&o, 7, Call{Op: OpLock, Req: 2, Session: sid, Names: []int32{x}})
		q := sent[Resolve](&o)
		if len(o.Asks) != 0 || len(q) != 1 || o.Sends[0].To != 1 || q[0].Name != x || q[0].Epoch != 5 {
			t.Fatalf("%d: lock of a name homed elsewhere: %+v", broken, o)
		}
		for range 2 { // asked twice, one id
			o = Out{}
			b.Resolve(&o, 0, q[0])
			if r := sent[Resolved](&o); len(r) != 1 || r[0].Res != 3 || o.Sends[0].To != 0 {
				t.Fatalf("%d: the home's answer: %+v, want id 3", broken, o.Sends)
			}
		}
		ans := sent[Resolved](&o)[0]
		o = Out{}
		a.Resolved(&o, ans)
		if len(o.Asks) != 1 || !slices.Equal(o.Asks[0].Res, []proc.ResID{3}) {
			t.Fatalf("%d: asked once resolved: %+v", broken, o.Asks)
		}
		ask := o.Asks[0]
		o = Out{}
		a.Entered(&o, ask)
		a.KeepAck(&o, 1, KeepAck{Gen: 1, N: 2})
		if len(o.Replies) != 1 || o.Replies[0].M.(Reply).Code != OK {
			t.Fatalf("%d: granted: %+v", broken, o.Replies)
		}

		// The next view, of three members: x asked again of its home
		// there (or given an id of a's own range if a is its home).
		m3 := []proc.ID{0, 1, 2}
		o = Out{}
		a.Adopt(&o, control.View{Epoch: 6, Members: m3, Gens: []uint64{1, 1, 1}}, v)
		switch h := home(x, m3); {
		case broken == NamesStale:
			if len(o.Asks) != 1 || !slices.Equal(o.Asks[0].Res, []proc.ResID{3}) {
				t.Fatalf("stale: regrant %+v, want the old id 3", o.Asks)
			}
		case h == 0:
			if len(o.Asks) != 1 || !slices.Equal(o.Asks[0].Res, []proc.ResID{0}) {
				t.Fatalf("regrant at its home: %+v, want id 0", o.Asks)
			}
		default:
			if q := sent[Resolve](&o); len(o.Asks) != 0 || len(q) != 1 || q[0].Epoch != 6 || q[0].Name != x {
				t.Fatalf("regrant: %+v, want x asked of its home in view 6", o)
			}
		}
	}
}

// TestLockNamesViewLeft: a question of a view its home has left goes
// unanswered, and the request starts over once the next view serves,
// asking the home of that view; a late answer of the old view asks
// nothing. A request whose session ends while it waits for an id is
// answered then, and the id's answer asks nothing for it.
func TestLockNamesViewLeft(t *testing.T) {
	m := []proc.ID{0, 1}
	x := homedAt(t, 1, m)
	a, b := served(0, 0, m...), served(1, 0, m...)
	sid := open(a, 7)
	var o Out
	a.Call(&o, 7, Call{Op: OpLock, Req: 2, Session: sid, Names: []int32{x}})
	q := sent[Resolve](&o)
	if len(q) != 1 || q[0].Epoch != 5 {
		t.Fatalf("no question: %+v", o.Sends)
	}
	v6 := control.View{Epoch: 6, Members: m, Gens: []uint64{1, 1}}
	v5 := control.View{Epoch: 5, Members: m, Gens: []uint64{1, 1}}
	o = Out{}
	b.Adopt(&o, v6, v5)
	o = Out{}
	b.Resolve(&o, 0, q[0])
	if len(o.Sends) != 0 {
		t.Fatalf("a question of a view left answered: %+v", o.Sends)
	}
	o = Out{}
	a.Adopt(&o, v6, v5)
	a.Serve(&o, 6, nil)
	if q := sent[Resolve](&o); len(q) != 1 || q[0].Epoch != 6 || q[0].Name != x || len(o.Asks) != 0 {
		t.Fatalf("the request in the next view: %+v", o)
	}
	o = Out{}
	a.Resolved(&o, Resolved{Epoch: 5, Name: x, Res: 1})
	if !o.Empty() {
		t.Fatalf("a late answer of a view left: %+v", o)
	}
	// The session ends while the request waits for its id.
	o = Out{}
	a.Call(&o, 7, Call{Op: OpClose, Req: 3, Session: sid})
	if len(o.Replies) != 2 || o.Replies[0].M.(Reply).Req != 2 || o.Replies[0].M.(Reply).Code == OK {
		t.Fatalf("the lock's answer at its session's end: %+v", o.Replies)
	}
	o = Out{}
	a.Resolved(&o, Resolved{Epoch: 6, Name: x, Res: 1})
	if len(o.Asks) != 0 {
		t.Fatalf("asked for an ended session: %+v", o.Asks)
	}
}
