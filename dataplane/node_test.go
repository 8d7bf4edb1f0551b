package dataplane

import (
	"slices"
	"strings"
	"testing"

	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/session"
)

// sent is the messages of type M among o's Sends, in order.
func sent[M proc.Message](o *Out) []M {
	var out []M
	for _, s := range o.Sends {
		if m, ok := s.M.(M); ok {
			out = append(out, m)
		}
	}
	return out
}

func acks(o *Out) []KeepAck { return sent[KeepAck](o) }

func keep(to uint64, n uint64) Keep {
	return Keep{Primary: 0, Gen: 1, To: to, Epoch: 5, Recs: []KeepRec{{N: n, Record: session.Record{ID: 100 + n, TTL: 3000 * Tick, Seq: 1, Left: 4000 * Tick}}}}
}

// TestOpenAnsweredOnceRecorded: an open is answered only once the backup
// acknowledged its record, with the lease the node had when it came.
func TestOpenAnsweredOnceRecorded(t *testing.T) {
	a := New(Config{Self: 0, Run: 1, Slack: 1000, LockDelay: 250})
	v := control.View{Epoch: 5, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}
	var o Out
	a.At(10, 900)
	a.Adopt(&o, v, control.View{})
	a.Serve(&o, 5, nil)
	o = Out{}
	a.Call(&o, 7, Call{Op: OpOpen, Req: 1, TTL: 3000})
	if len(o.Replies) != 0 || len(o.Sends) != 1 {
		t.Fatalf("answered before the backup has it: %+v", o)
	}
	k := o.Sends[0].M.(Keep)
	if o.Sends[0].To != 1 || k.To != 1 || k.Recs[0].N != 1 {
		t.Fatalf("record: %+v", o.Sends[0])
	}
	o = Out{}
	a.At(20, 500)
	a.KeepAck(&o, 1, KeepAck{Gen: 1, N: 1})
	if len(o.Replies) != 1 || o.Replies[0].M.(Reply).Code != OK || o.Replies[0].M.(Reply).Lease != 900 {
		t.Fatalf("answer: %+v", o.Replies)
	}
}

// TestKeepGenerations: a backup keeps the records made for its
// generation, holds those for a later one until it takes it on, and
// drops (answers nothing to) those for an earlier one, or for its own
// once it stopped serving (session.Keeper.Admit, the service's rule:
// records naming no generation, from a primary of an earlier version,
// are kept as before; this package's primaries always name one).
func TestKeepGenerations(t *testing.T) {
	b := New(Config{Self: 1, Run: 1, Slack: 1000, LockDelay: 250})
	var o Out
	b.At(10, 900)
	b.Adopt(&o, control.View{Epoch: 5, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}, control.View{})
	for _, c := range []struct {
		k    Keep
		acks int
	}{{keep(1, 1), 1}, {keep(2, 2), 0}, {keep(0, 3), 1}} {
		o = Out{}
		b.Keep(&o, 0, c.k)
		if len(acks(&o)) != c.acks {
			t.Errorf("record for generation %d: acks %v, want %d", c.k.To, acks(&o), c.acks)
		}
	}
	o = Out{}
	b.Fence(&o, 5, true)
	if _, _, ok := b.keeper.Keeps(101); ok {
		t.Errorf("a lost fence keeps the old generation's records")
	}
	b.Keep(&o, 0, keep(1, 4))
	if len(acks(&o)) != 0 {
		t.Errorf("a record for the generation that stopped serving was answered")
	}
	o = Out{}
	b.Adopt(&o, control.View{Epoch: 9, Members: []proc.ID{0, 1}, Gens: []uint64{1, 2}}, control.View{})
	if a := acks(&o); len(a) != 1 || a[0].N != 2 {
		t.Errorf("the record held for generation 2: acks %v", a)
	}
	if _, _, ok := b.keeper.Keeps(102); !ok {
		t.Errorf("the record held for generation 2 is not kept")
	}
}

// TestAnswersInRecordOrder: one acknowledgement that covers several
// records answers their calls in the order of the records, whatever the
// map they wait in, so a run's replies (and the simulator's draws after
// them) are the same every time.
func TestAnswersInRecordOrder(t *testing.T) {
	for range 20 {
		a := New(Config{Self: 0, Run: 1, Slack: 1000, LockDelay: 250})
		var o Out
		a.At(10, 900)
		a.Adopt(&o, control.View{Epoch: 5, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}, control.View{})
		a.Serve(&o, 5, nil)
		for req := range uint64(6) {
			a.Call(&o, proc.ID(7+req), Call{Op: OpOpen, Req: req, TTL: 3000})
		}
		o = Out{}
		a.At(20, 500)
		a.KeepAck(&o, 1, KeepAck{Gen: 1, N: 6})
		if len(o.Replies) != 6 {
			t.Fatalf("replies: %+v", o.Replies)
		}
		for i, r := range o.Replies {
			if r.To != proc.ID(7+i) {
				t.Fatalf("reply %d went to %d, want %d: the answers left in map order", i, r.To, 7+i)
			}
		}
	}
}

func keeps(o *Out) []Keep { return sent[Keep](o) }

// TestSemaphoreGrant: a semaphore's unit is asked on a user of the
// semaphore's instance, answered once the backup has the grant's record
// (its key and the unit its token names), asked again in a new view
// (where it holds another unit, its token unchanged), and adopted from
// the record by the backup, which asks it in its view.
func TestSemaphoreGrant(t *testing.T) {
	a := New(Config{Self: 0, Run: 1, Slack: 1000, LockDelay: 250})
	b := New(Config{Self: 1, Run: 1, Slack: 1000, LockDelay: 250})
	v5 := control.View{Epoch: 5, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}
	var o Out
	a.At(10, 900)
	a.Adopt(&o, v5, control.View{})
	a.Serve(&o, 5, nil)
	b.At(10, 900)
	b.Adopt(&o, v5, control.View{})
	o = Out{}
	a.Call(&o, 7, Call{Op: OpOpen, Req: 1, TTL: 3000})
	a.KeepAck(&o, 1, KeepAck{Gen: 1, N: 1})
	sid := o.Replies[0].M.(Reply).Session
	sem := Key{Sem: 3, Units: 5}
	o = Out{}
	a.Call(&o, 7, Call{Op: OpAcquire, Req: 9, Session: sid, Sem: 3})
	if len(o.Asks) != 0 || len(o.Replies) != 1 || o.Replies[0].M.(Reply).Code != Invalid {
		t.Fatalf("a semaphore of no units: %+v", o)
	}
	o = Out{}
	a.Call(&o, 7, Call{Op: OpAcquire, Req: 2, Session: sid, Sem: 3, Units: 5})
	if len(o.Asks) != 1 || o.Asks[0].Key != sem || o.Asks[0].Epoch != 5 {
		t.Fatalf("asks: %+v", o.Asks)
	}
	ask := o.Asks[0]
	o = Out{}
	a.Entered(&o, Ask{Epoch: 5, Key: sem, User: ask.User, Unit: 4})
	ks := keeps(&o)
	if len(o.Replies) != 0 || len(ks) != 1 {
		t.Fatalf("answered before the backup has it: %+v", o)
	}
	g := ks[0].Recs[0].Record.Grants
	if len(g) != 1 || g[0].Key != "sem/3/5" || g[0].Unit != 4 || g[0].Epoch != 5 || g[0].Names != nil {
		t.Fatalf("the record's grants: %+v", g)
	}
	b.Keep(&o, 0, ks[0])
	o = Out{}
	a.KeepAck(&o, 1, KeepAck{Gen: 1, N: 2})
	if len(o.Replies) != 1 {
		t.Fatalf("replies: %+v", o.Replies)
	}
	if r := o.Replies[0].M.(Reply); r.Code != OK || r.Unit != 4 || r.Epoch != 5 || r.Grant != g[0].ID {
		t.Fatalf("answer: %+v", r)
	}

	// A new view of the same members: asked again there, on another unit.
	v6 := control.View{Epoch: 6, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}
	o = Out{}
	a.At(20, 900)
	a.Adopt(&o, v6, v5)
	if len(o.Asks) != 1 || o.Asks[0].Key != sem || o.Asks[0].Epoch != 6 || o.Ready != 0 {
		t.Fatalf("regrant: asks %+v, ready %d", o.Asks, o.Ready)
	}
	user := o.Asks[0].User
	o = Out{}
	a.Entered(&o, Ask{Epoch: 6, Key: sem, User: user, Unit: 0})
	if o.Ready != 6 {
		t.Fatalf("not ready once the regrant is answered: %+v", o)
	}
	// A second unit, granted in view 6: the session's record has both,
	// the first with its token's unit of view 5.
	a.Serve(&o, 6, nil)
	o = Out{}
	a.Call(&o, 7, Call{Op: OpAcquire, Req: 3, Session: sid, Sem: 3, Units: 5})
	user = o.Asks[0].User
	o = Out{}
	a.Entered(&o, Ask{Epoch: 6, Key: sem, User: user, Unit: 1})
	if ks := keeps(&o); len(ks) != 1 {
		t.Errorf("records: %+v", ks)
	} else if g := ks[0].Recs[0].Record.Grants; len(g) != 2 || g[0].Unit != 4 || g[0].Epoch != 5 || g[1].Unit != 1 || g[1].Epoch != 6 {
		t.Errorf("the record after the regrant: %+v", g)
	}

	// The backup adopts the session in a view without node 0, its grant
	// asked there.
	o = Out{}
	b.At(30, 900)
	b.Adopt(&o, control.View{Epoch: 7, Members: []proc.ID{1}, Gens: []uint64{1}}, v5)
	if len(o.Asks) != 1 || o.Asks[0].Key != sem || o.Asks[0].Epoch != 7 {
		t.Fatalf("adopted: asks %+v, events %+v", o.Asks, o.Events)
	}
}

func TestKeyString(t *testing.T) {
	for _, k := range []Key{{}, {Sem: 0, Units: 1}, {Sem: 7, Units: 1 << 30}} {
		if p, err := parseKey(k.String()); err != nil || p != k {
			t.Errorf("%+v: %q read back as %+v, %v", k, k.String(), p, err)
		}
	}
	for _, s := range []string{"", "sem/1", "sem/x/2", "sem/1/0", "quota/1/2"} {
		if _, err := parseKey(s); err == nil {
			t.Errorf("%q read as a key", s)
		}
	}
}

// TestTake: a Take of one permit on a user of the quota's instance in
// the view served, within the node's limit; a permit counted (Out.Counts:
// on disk before the answer) and answered, a reject answered by what the
// view's ledger proves; a take past the limit, or whose view changed,
// waits and is asked once it may be.
func TestTake(t *testing.T) {
	q0 := Key{Sem: 0, Quota: true}
	for _, c := range []struct {
		name  string
		left  control.QuotaLeft // of the quota in view 5
		limit Limit             // the node's in view 5
		quota int32
		// then: the instance's answer to the first ask, if any (none:
		// no answer; reject: a reject)
		answer, reject bool
		fence          bool // the view fenced (not lost) before the answer
		code           Code // the answer to the take
		counts         []uint64
		asks           int // asks made by the take
	}{
		{"a permit within the limit", control.QuotaLeft{Left: 10}, Limit{Max: 5, OK: true}, 0, true, false, false, OK, []uint64{4}, 1},
		{"a permit once the view stopped serving: spent", control.QuotaLeft{Left: 10}, Limit{Max: 5, OK: true}, 0, true, false, true, Unavailable, []uint64{4}, 1},
		{"a reject the ledger proves", control.QuotaLeft{Left: 10}, Limit{Max: 5, OK: true}, 0, true, true, false, Exhausted, nil, 1},
		{"a reject in a view short of a report", control.QuotaLeft{Left: 10, Reserve: 6}, Limit{Max: 5, OK: true}, 0, true, true, false, Unavailable, nil, 1},
		{"a quota the view has nothing of", control.QuotaLeft{Left: 0}, Limit{Max: 5, OK: true}, 0, false, false, false, Exhausted, nil, 0},
		{"no such quota", control.QuotaLeft{Left: 10}, Limit{Max: 5, OK: true}, 1, false, false, false, Invalid, nil, 0},
		{"at the limit: it waits", control.QuotaLeft{Left: 10}, Limit{Max: 3, OK: true}, 0, false, false, false, 0, nil, 0},
		{"no limit in the view: it waits", control.QuotaLeft{Left: 10}, Limit{}, 0, false, false, false, 0, nil, 0},
		{"at the limit, broken QuotaNoChunk: asked past it", control.QuotaLeft{Left: 10}, Limit{Max: 3, OK: true}, 0, true, false, false, OK, []uint64{4}, 1},
	} {
		cfg := Config{Self: 0, Run: 1, Slack: 1000, LockDelay: 250, Waste: []uint64{4}, Counts: []uint64{3}, Slots: 2}
		if strings.Contains(c.name, "QuotaNoChunk") {
			cfg.Broken = QuotaNoChunk
		}
		a := New(cfg)
		var o Out
		a.At(10, 900)
		a.Limits(5, []Limit{c.limit})
		a.Adopt(&o, control.View{Epoch: 5, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}, control.View{})
		a.Serve(&o, 5, []control.QuotaLeft{c.left})
		a.Call(&o, 7, Call{Op: OpOpen, Req: 1, TTL: 3000})
		a.KeepAck(&o, 1, KeepAck{Gen: 1, N: 1})
		sid := o.Replies[0].M.(Reply).Session
		o = Out{}
		a.Call(&o, 7, Call{Op: OpTake, Req: 2, Session: sid, Sem: c.quota, N: 1})
		if len(o.Asks) != c.asks {
			t.Errorf("%s: asks %+v, want %d", c.name, o.Asks, c.asks)
			continue
		}
		if c.asks > 0 && (o.Asks[0].Key != q0 || o.Asks[0].Epoch != 5 || o.Asks[0].User != 0) {
			t.Errorf("%s: asked %+v: want user 0 (the first of node 0's block of 2) of quota 0 in view 5", c.name, o.Asks[0])
		}
		if c.fence {
			a.Fence(&o, 5, false)
		}
		if c.answer {
			o = Out{}
			a.Entered(&o, Ask{Epoch: 5, Key: q0, User: placedUser(a), Rejected: c.reject})
		}
		var got Code
		if len(o.Replies) == 1 {
			got = o.Replies[0].M.(Reply).Code
		}
		if got != c.code || !slices.Equal(o.Counts, c.counts) {
			t.Errorf("%s: answer %d, counts %v; want %d, %v", c.name, got, o.Counts, c.code, c.counts)
		}
		if c.code != 0 {
			continue
		}
		// It waits: asked once the limit grows (the report committed),
		// on the node's next tick; after a view change, in the next view
		// once it serves.
		o = Out{}
		a.Limits(6, []Limit{{Max: 4, OK: true}})
		a.Adopt(&o, control.View{Epoch: 6, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}, control.View{Epoch: 5, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}})
		a.Tick(&o)
		if len(o.Asks) != 0 {
			t.Errorf("%s: asked before view 6 serves: %+v", c.name, o.Asks)
		}
		a.Serve(&o, 6, []control.QuotaLeft{c.left})
		if len(o.Asks) != 1 || o.Asks[0].Epoch != 6 || o.Asks[0].Key != q0 {
			t.Errorf("%s: asks once view 6 serves: %+v", c.name, o.Asks)
		}
	}
}

// placedUser is the user a's one take is asked on.
func placedUser(a *Node) proc.ID {
	for _, t := range a.takes {
		if t.placed {
			return t.user
		}
	}
	return -1
}

// TestTakeOfEndedSession: a take asked in view 5, its session closed
// before the instance answers, is answered when the view changes and the
// next one serves (gone, as any call of an ended session), not asked
// again there: a permit issued for it would be consumed for nothing.
func TestTakeOfEndedSession(t *testing.T) {
	a := New(Config{Self: 0, Run: 1, Slack: 1000, LockDelay: 250, Waste: []uint64{4}, Slots: 2})
	v5 := control.View{Epoch: 5, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}
	left := []control.QuotaLeft{{Left: 10}}
	var o Out
	a.At(10, 900)
	a.Limits(5, []Limit{{Max: 5, OK: true}})
	a.Adopt(&o, v5, control.View{})
	a.Serve(&o, 5, left)
	a.Call(&o, 7, Call{Op: OpOpen, Req: 1, TTL: 3000})
	a.KeepAck(&o, 1, KeepAck{Gen: 1, N: 1})
	sid := o.Replies[0].M.(Reply).Session
	o = Out{}
	a.Call(&o, 7, Call{Op: OpTake, Req: 2, Session: sid, N: 1})
	a.Call(&o, 7, Call{Op: OpClose, Req: 3, Session: sid})
	if len(o.Asks) != 1 || len(o.Replies) != 1 {
		t.Fatalf("the take asked, the close answered: %+v", o)
	}
	o = Out{}
	a.Adopt(&o, control.View{Epoch: 6, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}, v5)
	a.Serve(&o, 6, left)
	if len(o.Asks) != 0 || len(o.Replies) != 1 || o.Replies[0].M.(Reply).Req != 2 || o.Replies[0].M.(Reply).Code == OK {
		t.Errorf("the take of an ended session in view 6: asks %+v, replies %+v", o.Asks, o.Replies)
	}
}

// served is node self of a cluster of members, in view 5 and serving,
// with Slots slots; open opens a session of client c on it.
func served(self proc.ID, slots int, members ...proc.ID) *Node {
	a := New(Config{Self: self, Run: 1, Slack: 1000, LockDelay: 250, Slots: slots})
	gens := make([]uint64, len(members))
	for i := range gens {
		gens[i] = 1
	}
	var o Out
	a.At(10, 900)
	a.Adopt(&o, control.View{Epoch: 5, Members: members, Gens: gens}, control.View{})
	a.Serve(&o, 5, nil)
	return a
}

func open(a *Node, c proc.ID) uint64 {
	var o Out
	a.Call(&o, c, Call{Op: OpOpen, Req: 1, TTL: 3000})
	a.KeepAck(&o, a.backup, KeepAck{Gen: 1, N: 1 << 30})
	return o.Replies[0].M.(Reply).Session
}

// grantThenRelease has the instance grant ask's user (answered once the
// backup has it), and client from release it on session s with call
// req, the backup acknowledging: what the release asked for.
func grantThenRelease(a *Node, ask Ask, from proc.ID, s uint64, req uint64) Out {
	o := Out{}
	a.Entered(&o, ask)
	a.KeepAck(&o, a.backup, KeepAck{Gen: 1, N: 1 << 30})
	gid := o.Replies[0].M.(Reply).Grant
	o = Out{}
	a.Call(&o, from, Call{Op: OpRelease, Req: req, Session: s, Grant: gid})
	a.KeepAck(&o, a.backup, KeepAck{Gen: 1, N: 1 << 30})
	return o
}

func asked(o *Out) []proc.ID {
	var out []proc.ID
	for _, a := range o.Asks {
		out = append(out, a.User)
	}
	return out
}

// TestSmallSemaphore: a semaphore of fewer units than Slots is small,
// asked on the node's block of slots of its instance (user rank×Slots
// first), a request past the slots waiting for one; one of at least
// Slots units is large, its users made one per request (user rank + N ×
// made), as is every semaphore with no slots.
func TestSmallSemaphore(t *testing.T) {
	for _, c := range []struct {
		name     string
		self     proc.ID
		slots    int
		units    int32
		acquires int
		small    bool
		users    []proc.ID
		queued   int
	}{
		{"small: the node's block, first slot first", 1, 2, 1, 2, true, []proc.ID{2, 3}, 0},
		{"small: a request past the slots waits", 0, 2, 1, 3, true, []proc.ID{0, 1}, 1},
		{"small of 2 units on 3 slots", 1, 3, 2, 4, true, []proc.ID{3, 4, 5}, 1},
		{"at the slots: large", 1, 2, 2, 3, false, []proc.ID{1, 3, 5}, 0},
		{"above the slots: large", 0, 2, 3, 3, false, []proc.ID{0, 2, 4}, 0},
		{"no slots: large", 0, 0, 1, 2, false, []proc.ID{0, 2}, 0},
	} {
		a := served(c.self, c.slots, 0, 1)
		sem := Key{Sem: 0, Units: c.units}
		if a.Small(sem) != c.small {
			t.Errorf("%s: small %v, want %v", c.name, a.Small(sem), c.small)
		}
		sid := open(a, 7)
		var o Out
		for i := range c.acquires {
			a.Call(&o, 7, Call{Op: OpAcquire, Req: uint64(2 + i), Session: sid, Units: c.units})
		}
		u := a.users[instKey{5, sem}]
		if !slices.Equal(asked(&o), c.users) || len(u.queue) != c.queued {
			t.Errorf("%s: asked users %v, %d waiting; want %v, %d", c.name, asked(&o), len(u.queue), c.users, c.queued)
		}
	}
}

// TestSmallSemaphoreQueue: the requests waiting for a slot take the one
// given back in order, a waiting request whose session ended no longer
// waits, and a held grant is asked again on the slots of a new view
// (ready once it is granted there) and of the adopter's view, its
// token's unit kept.
func TestSmallSemaphoreQueue(t *testing.T) {
	a := served(0, 2, 0, 1)
	sem := Key{Sem: 0, Units: 1}
	s1, s2, s3 := open(a, 7), open(a, 8), open(a, 9)
	var o Out
	a.Call(&o, 7, Call{Op: OpAcquire, Req: 2, Session: s1, Units: 1})
	a.Call(&o, 7, Call{Op: OpAcquire, Req: 3, Session: s1, Units: 1})
	a.Call(&o, 8, Call{Op: OpAcquire, Req: 2, Session: s2, Units: 1})
	a.Call(&o, 9, Call{Op: OpAcquire, Req: 2, Session: s3, Units: 1})
	if !slices.Equal(asked(&o), []proc.ID{0, 1}) {
		t.Fatalf("asked users %v, want the block 0, 1", asked(&o))
	}
	// s2 closes while it waits: answered, and out of the queue.
	o = Out{}
	a.Call(&o, 8, Call{Op: OpClose, Req: 3, Session: s2})
	a.KeepAck(&o, a.backup, KeepAck{Gen: 1, N: 1 << 30})
	if len(o.Replies) != 2 || len(a.users[instKey{5, sem}].queue) != 1 {
		t.Fatalf("s2 closed: replies %+v, queue %v", o.Replies, a.users[instKey{5, sem}].queue)
	}
	// Slot 0 granted, answered, released: given back, then asked for s3.
	o = grantThenRelease(a, Ask{Epoch: 5, Key: sem, User: 0, Unit: 0}, 7, s1, 4)
	if len(o.Frees) != 1 || o.Frees[0].User != 0 || !slices.Equal(asked(&o), []proc.ID{0}) {
		t.Fatalf("the slot given back: frees %+v, asks %+v", o.Frees, o.Asks)
	}
	o = Out{}
	a.Entered(&o, Ask{Epoch: 5, Key: sem, User: 0, Unit: 0})
	ks := keeps(&o)
	a.KeepAck(&o, a.backup, KeepAck{Gen: 1, N: 1 << 30})
	if len(o.Replies) != 1 || o.Replies[0].To != 9 || o.Replies[0].M.(Reply).Code != OK || len(ks) != 1 {
		t.Fatalf("s3's grant: %+v, records %+v", o.Replies, ks)
	}

	// A new view: s3's held grant is asked again on node 0's first slot
	// (the view is not ready before it is granted), s1's request not
	// granted starts over once the view serves.
	v5 := control.View{Epoch: 5, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}
	o = Out{}
	a.Adopt(&o, control.View{Epoch: 6, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}, v5)
	if !slices.Equal(asked(&o), []proc.ID{0}) || o.Asks[0].Epoch != 6 || o.Ready != 0 {
		t.Fatalf("regrant: asks %+v, ready %d", o.Asks, o.Ready)
	}
	o = Out{}
	a.Entered(&o, Ask{Epoch: 6, Key: sem, User: 0, Unit: 0})
	a.KeepAck(&o, a.backup, KeepAck{Gen: 1, N: 1 << 30})
	if o.Ready != 6 {
		t.Fatalf("not ready once the regrant is granted: %+v", o)
	}
	o = Out{}
	a.Serve(&o, 6, nil)
	if !slices.Equal(asked(&o), []proc.ID{1}) {
		t.Fatalf("s1's request in view 6: asks %+v", o.Asks)
	}

	// Node 1, s3's backup, adopts it in a view without node 0: the grant
	// asked on its own first slot, its token's unit kept in the record.
	b := served(1, 2, 0, 1)
	o = Out{}
	b.Keep(&o, 0, ks[0])
	o = Out{}
	b.At(20, 900)
	b.Adopt(&o, control.View{Epoch: 7, Members: []proc.ID{1}, Gens: []uint64{1}}, v5)
	if !slices.Equal(asked(&o), []proc.ID{0}) || o.Asks[0].Key != sem || o.Asks[0].Epoch != 7 {
		t.Fatalf("adopted: asks %+v, events %+v", o.Asks, o.Events)
	}
	s := b.sessions[s3]
	if s == nil || s.grants.Len() != 1 {
		t.Fatalf("s3 not adopted with its grant: %+v", s)
	}
	for _, g := range s.grants.List() {
		if g.tokenUnit != 0 || g.epoch != 5 || !g.Held() {
			t.Errorf("adopted grant: %+v", g)
		}
	}
}

// TestSmallRegrantWaits: a node holding more grants of a small semaphore
// than its slots (its own and two adopted: more than R, as only a broken
// plane leaves it) asks the ones past its slots again once a slot is
// free; one released while it waits gives back no user of the new view
// (it is on none: the user it had was of the old view's instance).
func TestSmallRegrantWaits(t *testing.T) {
	b := served(1, 2, 0, 1)
	sem := Key{Sem: 0, Units: 1}
	sid := open(b, 7)
	var o Out
	b.Call(&o, 7, Call{Op: OpAcquire, Req: 2, Session: sid, Units: 1})
	b.Entered(&o, Ask{Epoch: 5, Key: sem, User: 2, Unit: 0})
	b.KeepAck(&o, b.backup, KeepAck{Gen: 1, N: 1 << 30})
	gid := o.Replies[len(o.Replies)-1].M.(Reply).Grant
	k := keep(1, 1)
	k.Recs[0].Record.Grants = []session.Grant{{ID: 1, Key: "sem/0/1", Epoch: 5, Counter: 1}, {ID: 2, Key: "sem/0/1", Epoch: 5, Counter: 2}}
	b.Keep(&o, 0, k)
	o = Out{}
	b.At(20, 900)
	b.Adopt(&o, control.View{Epoch: 7, Members: []proc.ID{1}, Gens: []uint64{1}}, control.View{Epoch: 5, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}})
	if !slices.Equal(asked(&o), []proc.ID{0, 1}) || o.Ready != 0 {
		t.Fatalf("adopted: asks %+v, ready %d", o.Asks, o.Ready)
	}
	o = Out{}
	b.Call(&o, 7, Call{Op: OpRelease, Req: 3, Session: sid, Grant: gid})
	if len(o.Frees) != 0 || len(o.Replies) != 1 || o.Replies[0].M.(Reply).Code != OK {
		t.Fatalf("the waiting grant released: frees %+v, replies %+v", o.Frees, o.Replies)
	}
	// The adopted grants granted, the one on slot 0 released: the
	// waiting regrant is asked there, and given back once granted; the
	// view is ready once the three are answered.
	o = Out{}
	b.Entered(&o, Ask{Epoch: 7, Key: sem, User: 0, Unit: 0})
	b.Entered(&o, Ask{Epoch: 7, Key: sem, User: 1, Unit: 0})
	adopted := b.sessions[101]
	if adopted == nil {
		t.Fatalf("session 101 not adopted")
	}
	b.Call(&o, 8, Call{Op: OpRelease, Req: 1, Session: 101, Grant: 1})
	if len(o.Frees) != 1 || o.Frees[0].User != 0 || !slices.Equal(asked(&o), []proc.ID{0}) {
		t.Fatalf("slot 0 given back: frees %+v, asks %+v", o.Frees, o.Asks)
	}
	o = Out{}
	b.Entered(&o, Ask{Epoch: 7, Key: sem, User: 0, Unit: 0})
	if len(o.Frees) != 1 || o.Frees[0].User != 0 || o.Ready != 7 {
		t.Errorf("the released regrant granted: frees %+v, ready %d", o.Frees, o.Ready)
	}
}

// TestTakeOfN: a Take of N permits asks them one at a time on a slot of
// the view's instance, each counted (Out.Counts, on disk) as its
// instance answers, and answers once, with all N, or with those it got
// when a reject or the lease's end cuts it short (the service's
// QUOTA_EXHAUSTED and TAKE_CUT_SHORT counts); a view change alone goes
// on in the next view with the rest. N outside 1..budget is refused
// before a permit is asked. TakeCountLate counts only at the answer.
func TestTakeOfN(t *testing.T) {
	q0 := Key{Sem: 0, Quota: true}
	v5 := control.View{Epoch: 5, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}
	v6 := control.View{Epoch: 6, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}
	left := []control.QuotaLeft{{Left: 10}}
	for _, c := range []struct {
		name string
		n    int64
		// steps, one per permit asked: 'p' a permit, 'r' a reject, 'v'
		// the view changes to 6 (the lease held) and 6 serves, 'f' the
		// lease runs out and the node is fenced from view 5, 'c' the
		// session closes while a permit is asked (then 'p' answers it)
		steps  string
		code   Code // the answer (0: none yet)
		got    int64
		counts []uint64 // each step's Out.Counts, in order, nil where none
		broken Broken
	}{
		{"N above the budget", 11, "", Invalid, 0, nil, 0},
		{"N of 0", 0, "", Invalid, 0, nil, 0},
		{"all three", 3, "ppp", OK, 3, []uint64{4, 5, 6}, 0},
		{"a reject after one", 3, "pr", Exhausted, 1, []uint64{4, 0}, 0},
		{"a reject first", 3, "r", Exhausted, 0, []uint64{0}, 0},
		{"a view change after one: the rest in the next view", 3, "pvpp", OK, 3, []uint64{4, 0, 5, 6}, 0},
		{"the lease out after one: cut short", 3, "pf", Unavailable, 1, []uint64{4, 0}, 0},
		{"the session closed after one: cut short at the next answer", 3, "pcp", Expired, 2, []uint64{4, 0, 5}, 0},
		{"TakeCountLate: counted only at the answer", 3, "ppp", OK, 3, []uint64{0, 0, 6}, TakeCountLate},
	} {
		a := New(Config{Self: 0, Run: 1, Slack: 1000, LockDelay: 250, Waste: []uint64{4}, Counts: []uint64{3}, Slots: 2,
			Budgets: []uint64{10}, Broken: c.broken})
		var o Out
		a.At(10, 900)
		a.Limits(5, []Limit{{Max: 9, OK: true}})
		a.Adopt(&o, v5, control.View{})
		a.Serve(&o, 5, left)
		a.Call(&o, 7, Call{Op: OpOpen, Req: 1, TTL: 3000})
		a.KeepAck(&o, 1, KeepAck{Gen: 1, N: 1})
		sid := o.Replies[0].M.(Reply).Session
		o = Out{}
		a.Call(&o, 7, Call{Op: OpTake, Req: 2, Session: sid, N: c.n})
		epoch := uint64(5)
		for i, s := range c.steps {
			if s == 'v' {
				o = Out{}
				a.Adopt(&o, v6, v5)
				a.Limits(6, []Limit{{Max: 9, OK: true}}) // as the process does at Serve
				a.Serve(&o, 6, left)
				epoch = 6
			}
			if s == 'f' {
				o = Out{}
				a.At(20, 0)
				a.Fence(&o, 5, true)
			}
			if s == 'c' {
				asks := o.Asks
				o = Out{}
				a.Call(&o, 7, Call{Op: OpClose, Req: 3, Session: sid})
				o.Replies, o.Asks = nil, asks // the close's answer; the permit still asked
			}
			if s == 'p' || s == 'r' {
				if len(o.Asks) != 1 || o.Asks[0].Epoch != epoch || o.Asks[0].Key != q0 {
					t.Fatalf("%s: step %d: asks %+v, want one of quota 0 in view %d", c.name, i, o.Asks, epoch)
				}
				o = Out{}
				a.Entered(&o, Ask{Epoch: epoch, Key: q0, User: placedUser(a), Rejected: s == 'r'})
			}
			var counts uint64
			if len(o.Counts) == 1 {
				counts = o.Counts[0]
			}
			if i < len(c.counts) && counts != c.counts[i] {
				t.Errorf("%s: step %d: counts %v, want %d", c.name, i, o.Counts, c.counts[i])
			}
			if i < len(c.steps)-1 && len(o.Replies) > 0 {
				t.Errorf("%s: step %d: answered early: %+v", c.name, i, o.Replies)
			}
		}
		if len(o.Replies) != 1 || o.Replies[0].M.(Reply).Req != 2 {
			t.Errorf("%s: replies %+v, want the take's", c.name, o.Replies)
			continue
		}
		if r := o.Replies[0].M.(Reply); r.Code != c.code || r.Permits != c.got || len(o.Asks) != 0 {
			t.Errorf("%s: answer %d with %d permits, asks %+v; want %d with %d", c.name, r.Code, r.Permits, o.Asks, c.code, c.got)
		}
	}
}

// servedLimits is served's node with the limits MaxSessions and
// MaxLocks.
func servedLimits(self proc.ID, maxSessions, maxLocks int, broken Broken, members ...proc.ID) *Node {
	a := served(self, 0, members...)
	a.cfg.MaxSessions, a.cfg.MaxLocks, a.cfg.Broken = maxSessions, maxLocks, broken
	return a
}

func code(o *Out, i int) Code { return o.Replies[i].M.(Reply).Code }

// TestNodeLimits: an open past MaxSessions is refused (NODE_LIMIT), and
// so is a lock request past MaxLocks users of the view's lock instance,
// unless a user given back is on its way to being free: then it waits
// for that one (the service's grab, claimed) and is asked on it.
func TestNodeLimits(t *testing.T) {
	a := servedLimits(0, 2, 1, 0, 0, 1)
	s1, s2 := open(a, 7), open(a, 8)
	var o Out
	a.Call(&o, 9, Call{Op: OpOpen, Req: 1, TTL: 3000})
	if len(o.Replies) != 1 || code(&o, 0) != NodeLimit || len(a.sessions) != 2 {
		t.Fatalf("a third open at --max-sessions 2: %+v", o.Replies)
	}
	o = Out{}
	a.Call(&o, 7, Call{Op: OpLock, Req: 2, Session: s1, Names: []int32{0}})
	a.Call(&o, 8, Call{Op: OpLock, Req: 2, Session: s2, Names: []int32{1}})
	if !slices.Equal(asked(&o), []proc.ID{0}) || len(o.Replies) != 1 || o.Replies[0].To != 8 || code(&o, 0) != NodeLimit {
		t.Fatalf("a second lock at --max-locks 1: asks %+v, replies %+v", o.Asks, o.Replies)
	}
	if a.sessions[s2].grants.Len() != 0 {
		t.Fatalf("the refused request is a grant of its session: %+v", a.sessions[s2].grants.List())
	}
	o = Out{}
	a.Entered(&o, Ask{Epoch: 5, Key: Key{}, User: 0})
	a.KeepAck(&o, a.backup, KeepAck{Gen: 1, N: 1 << 30})
	gid := o.Replies[0].M.(Reply).Grant
	// Unlocked, not released yet (its record not acknowledged): the next
	// lock waits for that user, then is asked on it.
	o = Out{}
	a.Call(&o, 7, Call{Op: OpUnlock, Req: 3, Session: s1, Grant: gid})
	a.Call(&o, 8, Call{Op: OpLock, Req: 3, Session: s2, Names: []int32{1}})
	if len(o.Replies) != 1 || code(&o, 0) != OK || len(o.Asks) != 0 {
		t.Fatalf("a lock while the user is on its way back: replies %+v, asks %+v", o.Replies, o.Asks)
	}
	o = Out{}
	a.KeepAck(&o, a.backup, KeepAck{Gen: 1, N: 1 << 30})
	// Name 1 is homed at a (names.go): its id there is the second of a's
	// range, 0 + 2·1.
	if len(o.Frees) != 1 || !slices.Equal(asked(&o), []proc.ID{0}) || o.Asks[0].Res[0] != 2 {
		t.Fatalf("the user given back: frees %+v, asks %+v", o.Frees, o.Asks)
	}
	// Nothing on its way back now: one more is refused.
	o = Out{}
	a.Call(&o, 7, Call{Op: OpLock, Req: 4, Session: s1, Names: []int32{2}})
	if len(o.Replies) != 1 || code(&o, 0) != NodeLimit {
		t.Fatalf("a lock at the limit, nothing given back: %+v", o.Replies)
	}
}

// TestRegrantPastLimits: an adopter holding more lock grants than
// MaxLocks (its own and an adopted session's) asks every one again past
// the limit, and is ready once they are granted; with
// RegrantWithinLimits the one past the limit waits for a user given
// back, and the view is not ready until a holder gives its grant back.
// Adopted sessions pass MaxSessions.
func TestRegrantPastLimits(t *testing.T) {
	for _, broken := range []Broken{0, RegrantWithinLimits} {
		b := servedLimits(1, 1, 1, broken, 0, 1)
		sid := open(b, 7)
		var o Out
		// Name 3 is homed at b in view 5 (names.go): no question to ask.
		b.Call(&o, 7, Call{Op: OpLock, Req: 2, Session: sid, Names: []int32{3}})
		b.Entered(&o, Ask{Epoch: 5, Key: Key{}, User: 1})
		b.KeepAck(&o, b.backup, KeepAck{Gen: 1, N: 1 << 30})
		k := keep(1, 1)
		k.Recs[0].Record.Grants = []session.Grant{{ID: 1, Key: "lock", Names: []string{"b"}, Epoch: 5, Counter: 1}}
		b.Keep(&o, 0, k)
		o = Out{}
		b.At(20, 900)
		b.Adopt(&o, control.View{Epoch: 7, Members: []proc.ID{1}, Gens: []uint64{1}}, control.View{Epoch: 5, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}})
		if len(b.sessions) != 2 {
			t.Fatalf("broken %d: adopted past --max-sessions 1: sessions %d, want 2", broken, len(b.sessions))
		}
		want := []proc.ID{0, 1}
		if broken != 0 {
			want = []proc.ID{0}
		}
		if !slices.Equal(asked(&o), want) || o.Ready != 0 {
			t.Fatalf("broken %d: regrants asked on users %v, want %v; ready %d", broken, asked(&o), want, o.Ready)
		}
		o = Out{}
		for _, u := range want {
			b.Entered(&o, Ask{Epoch: 7, Key: Key{}, User: u})
		}
		if broken == 0 {
			if o.Ready != 7 {
				t.Errorf("not ready once both regrants are granted: %+v", o)
			}
			continue
		}
		if o.Ready != 0 {
			t.Fatalf("broken: ready with a regrant waiting")
		}
		// The holder of user 0's grant (the adopted session's, first by
		// id) gives it back: the waiting regrant gets the user, and once
		// granted the view is ready.
		o = Out{}
		b.Call(&o, 8, Call{Op: OpUnlock, Req: 1, Session: 101, Grant: 1})
		if len(o.Frees) != 1 || !slices.Equal(asked(&o), []proc.ID{0}) {
			t.Fatalf("broken: the user given back: frees %+v, asks %+v", o.Frees, o.Asks)
		}
		o = Out{}
		b.Entered(&o, Ask{Epoch: 7, Key: Key{}, User: 0})
		if o.Ready != 7 {
			t.Errorf("broken: not ready once the waiting regrant is granted: %+v", o)
		}
	}
}

// TestUnitsChecked: with Config.Units, a node's first Acquire of a
// semaphore in a view waits for its units to be read from the control
// log (Out.Record, once per semaphore: the others wait for that read),
// then each waiting Acquire is asked or refused (Mismatch, with the
// log's units); later Acquires in the view are judged at once. In a
// newer view (a refresh) the ready records the units of the semaphores
// held (Out.Holding), and a request not granted starts over with its
// units read again. UnitsUnchecked asks with any units.
func TestUnitsChecked(t *testing.T) {
	a := served(0, 2, 0, 1)
	a.cfg.Units = true
	s := open(a, 7)
	var o Out
	a.Call(&o, 7, Call{Op: OpAcquire, Req: 2, Session: s, Sem: 3, Units: 2})
	a.Call(&o, 7, Call{Op: OpAcquire, Req: 3, Session: s, Sem: 3, Units: 3})
	if len(o.Replies)+len(o.Asks) != 0 || !slices.Equal(o.Record, []SemUnits{{Sem: 3, Units: 2}}) {
		t.Fatalf("before the read: replies %+v, asks %+v, record %+v", o.Replies, o.Asks, o.Record)
	}
	o = Out{}
	a.UnitsRead(&o, 3, 2, 5)
	if len(o.Asks) != 1 || o.Asks[0].Key != (Key{Sem: 3, Units: 2}) || len(o.Replies) != 1 {
		t.Fatalf("after the read: asks %+v, replies %+v", o.Asks, o.Replies)
	}
	if r := o.Replies[0].M.(Reply); r.Req != 3 || r.Code != Mismatch || r.Units != 2 {
		t.Errorf("the Acquire of other units: %+v", r)
	}
	o = Out{}
	a.Call(&o, 7, Call{Op: OpAcquire, Req: 4, Session: s, Sem: 3, Units: 1})
	a.Call(&o, 7, Call{Op: OpAcquire, Req: 5, Session: s, Sem: 3, Units: 2})
	if len(o.Record) != 0 || len(o.Replies) != 1 || code(&o, 0) != Mismatch || len(o.Asks) != 1 {
		t.Errorf("read in the view: record %+v, replies %+v, asks %+v", o.Record, o.Replies, o.Asks)
	}
	// Request 2 granted; request 5 still asked when the view changes.
	key := Key{Sem: 3, Units: 2}
	o = Out{}
	a.Entered(&o, Ask{Epoch: 5, Key: key, User: a.users[instKey{5, key}].byUser[0].user})
	if len(sent[Keep](&o)) != 1 {
		t.Fatalf("the grant is not recorded: %+v", o)
	}
	// A refresh: a view of the same members. The grant held is asked
	// again, and the ready records its semaphore's units; request 5
	// starts over once the view serves, its units read again.
	o = Out{}
	v6 := control.View{Epoch: 6, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}}
	a.Adopt(&o, v6, control.View{Epoch: 5, Members: []proc.ID{0, 1}, Gens: []uint64{1, 1}})
	if len(o.Asks) != 1 || o.Ready != 0 {
		t.Fatalf("the refresh's regrant: asks %+v, ready %d", o.Asks, o.Ready)
	}
	re := o.Asks[0]
	o = Out{}
	a.Entered(&o, re)
	if o.Ready != 6 || !slices.Equal(o.Holding, []SemUnits{{Sem: 3, Units: 2}}) {
		t.Errorf("the ready of view 6: %d, holding %+v", o.Ready, o.Holding)
	}
	o = Out{}
	a.Serve(&o, 6, nil)
	if !slices.Equal(o.Record, []SemUnits{{Sem: 3, Units: 2}}) || len(o.Asks) != 0 {
		t.Errorf("a request starting over in view 6: record %+v, asks %+v", o.Record, o.Asks)
	}
	o = Out{}
	a.Call(&o, 7, Call{Op: OpAcquire, Req: 6, Session: s, Sem: 3, Units: 1})
	a.UnitsRead(&o, 3, 1, 6) // the refresh forgot them, and another node's first use said 1
	if len(o.Record) != 0 || len(o.Replies) != 1 || o.Replies[0].M.(Reply).Req != 5 || code(&o, 0) != Mismatch || len(o.Asks) != 1 {
		t.Errorf("read again in view 6: record %+v, replies %+v, asks %+v", o.Record, o.Replies, o.Asks)
	}

	b := served(0, 2, 0, 1)
	b.cfg.Units, b.cfg.Broken = true, UnitsUnchecked
	s = open(b, 7)
	o = Out{}
	b.Call(&o, 7, Call{Op: OpAcquire, Req: 2, Session: s, Sem: 3, Units: 2})
	b.Call(&o, 7, Call{Op: OpAcquire, Req: 3, Session: s, Sem: 3, Units: 3})
	if len(o.Record) != 0 || len(o.Asks) != 2 {
		t.Errorf("unchecked: record %+v, asks %+v", o.Record, o.Asks)
	}
}

// TestTry: a try (Call.Try) is asked with its give-up timer, TryWait
// (20 ticks by default); given up, it is answered Taken and leaves its
// session, and the algorithm's grant, when it lands, is given back at
// once with nothing recorded or told. A try granted before its give-up
// is answered OK, the timer then doing nothing. A user the driver
// watches (proc.Queued) gives up only when it says it is behind. With
// TryLeaks the request given up stays and is held by nobody.
func TestTry(t *testing.T) {
	a := served(0, 0, 0, 1)
	s := open(a, 7)
	try := func(req uint64) (Ask, TryTimer) {
		t.Helper()
		var o Out
		a.Call(&o, 7, Call{Op: OpLock, Req: req, Session: s, Names: []int32{0}, Try: true})
		if len(o.Asks) != 1 || o.Asks[0].Try == 0 || len(o.Tries) != 1 || o.Tries[0].Grant != o.Asks[0].Try || o.Tries[0].After != 20 {
			t.Fatalf("a try: asks %+v, tries %+v", o.Asks, o.Tries)
		}
		return o.Asks[0], o.Tries[0]
	}
	// Given up on its timer, then granted: given back, nobody told.
	ask, tt := try(2)
	var o Out
	a.TryOut(&o, tt.Grant, tt.N)
	if len(o.Replies) != 1 || code(&o, 0) != Taken || a.sessions[s].grants.Len() != 0 || len(o.Sends) != 0 {
		t.Fatalf("a try given up: replies %+v, grants %+v, sends %+v", o.Replies, a.sessions[s].grants.List(), o.Sends)
	}
	o = Out{}
	a.Entered(&o, ask)
	if len(o.Frees) != 1 || o.Frees[0].User != ask.User || len(o.Replies)+len(o.Events)+len(o.Sends) != 0 {
		t.Fatalf("a try given up, granted: %+v", o)
	}
	// Granted before its give-up: answered OK once recorded.
	ask, tt = try(3)
	o = Out{}
	a.Entered(&o, ask)
	a.TryOut(&o, tt.Grant, tt.N)
	a.KeepAck(&o, a.backup, KeepAck{Gen: 1, N: 1 << 30})
	if len(o.Replies) != 1 || code(&o, 0) != OK || len(o.Frees) != 0 {
		t.Fatalf("a try granted before its give-up: replies %+v, frees %+v", o.Replies, o.Frees)
	}
	gid := o.Replies[0].M.(Reply).Grant
	o = Out{}
	a.Call(&o, 7, Call{Op: OpUnlock, Req: 4, Session: s, Grant: gid})
	// Watched: the timer does nothing, the algorithm's word gives up.
	ask, tt = try(5)
	a.Watch(ask)
	o = Out{}
	a.TryOut(&o, tt.Grant, tt.N)
	if len(o.Replies) != 0 || !a.Watching(ask) {
		t.Fatalf("a watched try given up on the timer: %+v", o.Replies)
	}
	a.Behind(&o, ask)
	if len(o.Replies) != 1 || code(&o, 0) != Taken || a.Watching(ask) {
		t.Fatalf("a watched try behind another: %+v", o.Replies)
	}
	// TryLeaks: answered Taken, but held once granted, and told nobody
	// (the one free below is the unlock's, recorded by then).
	a.cfg.Broken = TryLeaks
	ask, tt = try(6)
	o = Out{}
	a.TryOut(&o, tt.Grant, tt.N)
	a.Entered(&o, ask)
	a.KeepAck(&o, a.backup, KeepAck{Gen: 1, N: 1 << 30})
	freed := slices.ContainsFunc(o.Frees, func(f Ask) bool { return f.User == ask.User })
	if len(o.Replies) != 1 || code(&o, 0) != Taken || freed || len(o.Events) != 1 || o.Events[0].Kind != proc.EvHeld {
		t.Fatalf("try-leaks: replies %+v, frees %+v, events %+v", o.Replies, o.Frees, o.Events)
	}
}

// TestTryWaitingForASlot: a try of a small semaphore waiting for a slot
// gives up on its timer, leaves the queue, and the slot freed later goes
// to the next request waiting, not to it; the timer of an earlier ask,
// firing after the try was granted, does nothing.
func TestTryWaitingForASlot(t *testing.T) {
	a := served(0, 2, 0, 1)
	sem := Key{Sem: 0, Units: 1}
	s1, s2, s3 := open(a, 7), open(a, 8), open(a, 9)
	var o Out
	a.Call(&o, 7, Call{Op: OpAcquire, Req: 2, Session: s1, Units: 1})
	a.Call(&o, 7, Call{Op: OpAcquire, Req: 3, Session: s1, Units: 1})
	a.Call(&o, 8, Call{Op: OpAcquire, Req: 2, Session: s2, Units: 1, Try: true})
	a.Call(&o, 9, Call{Op: OpAcquire, Req: 2, Session: s3, Units: 1})
	if !slices.Equal(asked(&o), []proc.ID{0, 1}) || len(o.Tries) != 1 {
		t.Fatalf("asked users %v, tries %+v", asked(&o), o.Tries)
	}
	tt := o.Tries[0]
	o = Out{}
	a.TryOut(&o, tt.Grant, tt.N)
	if len(o.Replies) != 1 || o.Replies[0].To != 8 || code(&o, 0) != Taken || len(a.users[instKey{5, sem}].queue) != 1 || a.sessions[s2].grants.Len() != 0 {
		t.Fatalf("the try given up: replies %+v, queue %v", o.Replies, a.users[instKey{5, sem}].queue)
	}
	// Slot 0 granted, released: asked for s3, the request behind the try.
	o = grantThenRelease(a, Ask{Epoch: 5, Key: sem, User: 0, Unit: 0}, 7, s1, 4)
	a.Entered(&o, Ask{Epoch: 5, Key: sem, User: 0, Unit: 0})
	a.KeepAck(&o, a.backup, KeepAck{Gen: 1, N: 1 << 30})
	if r := o.Replies[len(o.Replies)-1]; r.To != 9 || r.M.(Reply).Code != OK {
		t.Fatalf("the slot after the try given up: %+v", o.Replies)
	}
	// A try granted at once: its timer, firing later, does nothing.
	o = Out{}
	a.Call(&o, 9, Call{Op: OpAcquire, Req: 3, Session: s3, Units: 1, Try: true, Sem: 1})
	tt = o.Tries[0]
	a.Entered(&o, o.Asks[0])
	a.KeepAck(&o, a.backup, KeepAck{Gen: 1, N: 1 << 30})
	a.TryOut(&o, tt.Grant, tt.N)
	if r := o.Replies[len(o.Replies)-1]; len(o.Replies) != 1 || r.M.(Reply).Code != OK {
		t.Fatalf("a try granted at once: %+v", o.Replies)
	}
}
