package dataplane

import (
	"slices"
	"testing"

	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
)

// holdersOf is node a's answer to OpHolders of session sid, of lock name
// name (or, below 0, of semaphore sem).
func holdersOf(t *testing.T, a *Node, sid uint64, name, sem int32) []Holder {
	t.Helper()
	c := Call{Op: OpHolders, Req: 50, Session: sid, Sem: sem}
	if name >= 0 {
		c.Names = []int32{name}
	}
	var o Out
	a.Call(&o, 7, c)
	if len(o.Replies) != 1 || len(o.Sends)+len(o.Asks)+len(o.Events) != 0 {
		t.Fatalf("Holders: %+v, want one answer and nothing else", o)
	}
	r := o.Replies[0].M.(Reply)
	if r.Code != OK || r.Req != 50 || r.Session != sid {
		t.Fatalf("Holders answered %+v", r)
	}
	return r.Holders
}

// TestHoldersFindsCutOffGrant: a lock granted at node 0 and recorded at
// its backup, node 1, before node 0 answered it (lost first), is held by
// the session node 1 adopts; Holders there, asked of one of its names,
// answers it with its names and its token, as the service's Holders,
// which client/'s reclaim claims. A semaphore's grant is answered with
// its key and its token's unit; a request still waiting holds nothing,
// nor does a grant given back; another name, or a session the node does
// not serve, has no holders (answered OK, as the service's).
func TestHoldersFindsCutOffGrant(t *testing.T) {
	m := []proc.ID{0, 1}
	a, b := served(0, 0, m...), served(1, 0, m...)
	x, y := homedAt(t, 0, m), int32(-1)
	for name := x + 1; y < 0; name++ {
		if home(name, m) == 0 {
			y = name
		}
	}
	sid := open(a, 7)
	keepAt := func(o *Out) {
		for _, k := range keeps(o) {
			var ob Out
			b.Keep(&ob, 0, k)
		}
	}
	var o Out
	a.Call(&o, 7, Call{Op: OpLock, Req: 2, Session: sid, Names: []int32{y, x}})
	if len(o.Asks) != 1 {
		t.Fatalf("lock asks: %+v", o)
	}
	lock := o.Asks[0]
	o = Out{}
	a.Call(&o, 7, Call{Op: OpAcquire, Req: 3, Session: sid, Sem: 2, Units: 4})
	sem := o.Asks[0]
	sem.Unit = 3 // the instance grants unit 3 of view 5
	if got := holdersOf(t, a, sid, x, -1); len(got) != 0 {
		t.Fatalf("a request waiting holds %+v", got)
	}
	o = Out{}
	a.Entered(&o, sem)
	a.Entered(&o, lock)
	keepAt(&o)
	// Node 0 answered neither: its acknowledgements never come.
	if len(o.Replies) != 0 {
		t.Fatalf("answered before the backup acknowledged: %+v", o.Replies)
	}
	got := holdersOf(t, a, sid, x, -1)
	if len(got) != 1 || !slices.Equal(got[0].Names, []int32{min(x, y), max(x, y)}) || !got[0].Key.Lock() || got[0].Epoch != 5 {
		t.Fatalf("Holders of %d at the granting node: %+v", x, got)
	}
	g := got[0]

	o = Out{}
	b.At(30, 900)
	b.Adopt(&o, control.View{Epoch: 7, Members: []proc.ID{1}, Gens: []uint64{1}}, control.View{Epoch: 5, Members: m, Gens: []uint64{1, 1}})
	if b.sessions[sid] == nil {
		t.Fatalf("node 1 did not adopt session %d: %+v", sid, o.Events)
	}
	for _, name := range []int32{x, y} {
		if got := holdersOf(t, b, sid, name, -1); len(got) != 1 || !slices.Equal(got[0].Names, g.Names) ||
			got[0].Grant != g.Grant || got[0].Epoch != g.Epoch || got[0].Counter != g.Counter {
			t.Errorf("Holders of %d at the adopter: %+v, want %+v", name, got, g)
		}
	}
	if got := holdersOf(t, b, sid, -1, 2); len(got) != 1 || got[0].Key != (Key{Sem: 2, Units: 4}) || got[0].Epoch != 5 || got[0].Names != nil {
		t.Errorf("Holders of semaphore 2 at the adopter: %+v", got)
	} else if got[0].Unit != 3 {
		t.Errorf("the semaphore's holder names unit %d, its token's is 3", got[0].Unit)
	}
	if got := holdersOf(t, b, sid, -1, 3); len(got) != 0 {
		t.Errorf("Holders of semaphore 3: %+v", got)
	}
	if other := x + y + 1; !slices.Contains([]int32{x, y}, other) {
		if got := holdersOf(t, b, sid, other, -1); len(got) != 0 {
			t.Errorf("Holders of name %d: %+v", other, got)
		}
	}
	if got := holdersOf(t, b, sid+1, x, -1); len(got) != 0 {
		t.Errorf("Holders of a session node 1 does not have: %+v", got)
	}
	// Given back: no more a holder.
	o = Out{}
	b.Call(&o, 7, Call{Op: OpUnlock, Req: 4, Session: sid, Grant: g.Grant})
	if len(o.Replies) != 1 || code(&o, 0) != OK {
		t.Fatalf("unlock at the adopter: %+v", o.Replies)
	}
	if got := holdersOf(t, b, sid, x, -1); len(got) != 0 {
		t.Errorf("Holders after the unlock: %+v", got)
	}
}

// TestNotHereAfterHeld: the answer SESSION_NOT_HERE to a lock does not
// say that nothing was granted. Node 0 grants a lock and records it at
// its backup, node 1, then stops serving (a lost fence: it hands its
// sessions over) before the backup's acknowledgement comes; when it
// comes, node 0 answers the lock NotHere, while node 1, adopting the
// session, holds the grant. A client that took the answer for nothing
// granted and asked the same names again in the session would wait
// behind its own grant until the session ended (svcsim's client asked
// so before it asked Holders); Holders at the adopter finds it.
func TestNotHereAfterHeld(t *testing.T) {
	m := []proc.ID{0, 1}
	a, b := served(0, 0, m...), served(1, 0, m...)
	x := homedAt(t, 0, m)
	sid := open(a, 7)
	var o Out
	a.Call(&o, 7, Call{Op: OpLock, Req: 2, Session: sid, Names: []int32{x}})
	ask := o.Asks[0]
	o = Out{}
	a.Entered(&o, ask)
	ks := keeps(&o)
	var ob Out
	for _, k := range ks {
		b.Keep(&ob, 0, k)
	}
	ack := acks(&ob)
	if len(ack) != 1 || len(o.Replies) != 0 {
		t.Fatalf("recorded: acks %+v, replies %+v", ack, o.Replies)
	}
	o = Out{}
	a.At(20, 0)
	a.Fence(&o, 5, true)
	a.KeepAck(&o, 1, ack[0])
	var lock []Reply
	for _, r := range o.Replies {
		if r := r.M.(Reply); r.Req == 2 {
			lock = append(lock, r)
		}
	}
	if len(lock) != 1 || lock[0].Code != NotHere {
		t.Fatalf("the lock's answer after the lost fence: %+v, want SESSION_NOT_HERE", lock)
	}
	o = Out{}
	b.At(30, 900)
	b.Adopt(&o, control.View{Epoch: 7, Members: []proc.ID{1}, Gens: []uint64{1}}, control.View{Epoch: 5, Members: m, Gens: []uint64{1, 1}})
	if got := holdersOf(t, b, sid, x, -1); len(got) != 1 || !slices.Equal(got[0].Names, []int32{x}) {
		t.Fatalf("the adopter's holders of %d: %+v, want the grant answered SESSION_NOT_HERE", x, got)
	}
}
