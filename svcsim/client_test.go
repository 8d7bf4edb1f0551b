package svcsim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-dev/allot/dataplane"
	"github.com/allot-dev/allot/proc"
)

// clientEnv is a client's environment by hand: what it sends, arms and
// emits, at a time the test sets.
type clientEnv struct {
	now    proc.Time
	rnd    *rand.Rand
	sent   []sentCall
	timers []proc.Timer
	events []proc.Event
}

type sentCall struct {
	to proc.ID
	c  dataplane.Call
}

func (e *clientEnv) Self() proc.ID  { return 3 }
func (e *clientEnv) Now() proc.Time { return e.now }
func (e *clientEnv) Send(to proc.ID, m proc.Message) {
	e.sent = append(e.sent, sentCall{to, m.(dataplane.Call)})
}
func (e *clientEnv) After(_ proc.Time, t proc.Timer) { e.timers = append(e.timers, t) }
func (e *clientEnv) Rand() *rand.Rand                { return e.rnd }
func (e *clientEnv) Emit(ev proc.Event)              { e.events = append(e.events, ev) }
func (e *clientEnv) take() ([]sentCall, []proc.Event) {
	s, v := e.sent, e.events
	e.sent, e.events = nil, nil
	return s, v
}

// timer is the last timer armed of type T, and takes the timers.
func timer[T proc.Timer](t *testing.T, e *clientEnv) T {
	t.Helper()
	for i := len(e.timers) - 1; i >= 0; i-- {
		if x, ok := e.timers[i].(T); ok {
			e.timers = nil
			return x
		}
	}
	var none T
	t.Fatalf("no %T armed: %+v", none, e.timers)
	return none
}

// only is the one call sent, of op.
func only(t *testing.T, sent []sentCall, op dataplane.Op) sentCall {
	t.Helper()
	if len(sent) != 1 || sent[0].c.Op != op {
		t.Fatalf("sent %+v, want one call of op %d", sent, op)
	}
	return sent[0]
}

func kinds(evs []proc.Event) []proc.EventKind {
	var out []proc.EventKind
	for _, e := range evs {
		out = append(out, e.Kind)
	}
	return out
}

// lockCutOff opens a session for a client of 3 nodes, at node 0, and
// has it ask a lock (not a try), which node 0 answers code: it returns
// the client, its environment, the session and the lock's call.
func lockCutOff(t *testing.T, code dataplane.Code) (*Client, *clientEnv, uint64, dataplane.Call) {
	t.Helper()
	e := &clientEnv{rnd: rand.New(rand.NewPCG(1, 2))}
	c := NewClient(ClientConfig{Nodes: 3, Names: 3, TTL: TTL, KeepAlive: TTL / 8, Timeout: Lease / 4, Retry: 20, Think: 200, CS: 100, Locks: 4})
	c.Start(e)
	open := only(t, e.sent, dataplane.OpOpen)
	e.sent = nil
	const sid = 77
	c.Deliver(e, 0, dataplane.Reply{Req: open.c.Req, Code: dataplane.OK, Session: sid, TTL: TTL, Lease: Lease})
	think := timer[thinkTimer](t, e)
	e.take()
	e.now = 10
	c.Fire(e, think)
	sent, evs := e.take()
	lock := only(t, sent, dataplane.OpLock)
	if lock.to != 0 || !slices.Equal(kinds(evs), []proc.EventKind{proc.EvRequest}) {
		t.Fatalf("the lock: %+v, events %v", lock, kinds(evs))
	}
	e.now = 20
	r := dataplane.Reply{Req: lock.c.Req, Code: code, Session: sid}
	if code == dataplane.Moving {
		r.Primary, r.Lease = 1, Lease
	}
	c.Deliver(e, 0, r)
	return c, e, sid, lock.c
}

// TestClientReclaims: a lock answered SESSION_NOT_HERE (its node ended
// the session unrecorded after the grant was held: the adopter holds
// it) is not given up: the client asks for a keep-alive at once, moves
// to the next node when that one says not here too, and once the
// session's node answers a keep-alive asks it Holders of the lock's
// first name; a grant of exactly the lock's names it was never answered
// is the cut-off call's, and the client holds it (EvEnter with the
// grant's token, as a granted lock's), unlocks it there after its
// critical section, and does not give it back when the cut-off call's
// late answer comes. Asked again blindly in the session, as the
// client did before, the lock would wait behind its own grant until
// the session ended.
func TestClientReclaims(t *testing.T) {
	c, e, sid, lock := lockCutOff(t, dataplane.NotHere)
	sent, evs := e.take()
	ka := only(t, sent, dataplane.OpKeepAlive)
	if len(evs) != 0 || ka.to != 0 {
		t.Fatalf("cut off: events %v, keep-alive %+v; want none, and a keep-alive at once", kinds(evs), ka)
	}
	// Node 0 does not serve it: the next keep-alive goes to node 1.
	c.Deliver(e, 0, dataplane.Reply{Req: ka.c.Req, Code: dataplane.NotHere, Session: sid})
	e.now = 400
	c.Fire(e, kaTimer{c.gen}) // the keep-alives' period
	sent, _ = e.take()
	ka = only(t, sent, dataplane.OpKeepAlive)
	if ka.to != 1 {
		t.Fatalf("keep-alive to %d, want the next node, 1", ka.to)
	}
	c.Deliver(e, 1, dataplane.Reply{Req: ka.c.Req, Code: dataplane.OK, Session: sid, TTL: TTL, Lease: Lease})
	sent, _ = e.take()
	h := only(t, sent, dataplane.OpHolders)
	if h.to != 1 || h.c.Session != sid || !slices.Equal(h.c.Names, lock.Names[:1]) {
		t.Fatalf("Holders: %+v, want of session %d at node 1, of name %d", h, sid, lock.Names[0])
	}
	names := slices.Sorted(slices.Values(lock.Names))
	other := []int32{0, 1, 2}
	if len(names) == 2 {
		other = names[:1]
	}
	const g = 900
	c.Deliver(e, 1, dataplane.Reply{Req: h.c.Req, Code: dataplane.OK, Session: sid, Holders: []dataplane.Holder{
		{Grant: 899, Names: other, Epoch: 4, Counter: 1}, // other names: another lock's
		{Grant: g, Names: names, Epoch: 5, Counter: 42},
	}})
	_, evs = e.take()
	if len(evs) != 1 || evs[0].Kind != proc.EvEnter || evs[0].S.Grant != g || evs[0].Epoch != 5 || evs[0].S.Counter != 42 || len(evs[0].Res) != len(lock.Names) {
		t.Fatalf("claimed: %+v, want EvEnter of grant %d with token (5, 42)", evs, g)
	}
	if c.cuts != 1 || c.reclaimed != 1 {
		t.Errorf("cuts %d, reclaimed %d; want 1, 1", c.cuts, c.reclaimed)
	}
	cs := timer[csTimer](t, e)
	// The cut-off call's late answer: the grant is held, not given back.
	c.Deliver(e, 0, dataplane.Reply{Req: lock.Req, Code: dataplane.OK, Session: sid, Grant: g})
	if sent, _ := e.take(); len(sent) != 0 {
		t.Fatalf("the late answer of a grant claimed: sent %+v", sent)
	}
	e.now = 450
	c.Fire(e, cs)
	sent, evs = e.take()
	u := only(t, sent, dataplane.OpUnlock)
	if u.to != 1 || u.c.Grant != g || len(evs) != 1 || evs[0].Kind != proc.EvExit || evs[0].S.Grant != g {
		t.Fatalf("exit: %+v, events %+v", u, evs)
	}
}

// TestClientFindsNone: a lock cut off whose session's node holds no
// grant of its names that the client was never answered (none, one of
// other names, one it gave back) is given up, and asked again after a
// while; its EvGiveUp names the call only when its answer said nothing
// was granted for it (SESSION_MOVING from the session's backup), so the
// checker's refused-held rule holds a node to it.
func TestClientFindsNone(t *testing.T) {
	for _, code := range []dataplane.Code{dataplane.NotHere, dataplane.Unavailable, dataplane.Moving} {
		c, e, sid, lock := lockCutOff(t, code)
		sent, evs := e.take()
		ka := only(t, sent, dataplane.OpKeepAlive)
		want := proc.ID(0)
		if code == dataplane.Moving {
			want = 1 // the session's node, as the backup says
		}
		if len(evs) != 0 || ka.to != want {
			t.Fatalf("%d: cut off: events %v, keep-alive to %d, want none, and to %d", code, kinds(evs), ka.to, want)
		}
		c.Deliver(e, want, dataplane.Reply{Req: ka.c.Req, Code: dataplane.OK, Session: sid, TTL: TTL, Lease: Lease})
		sent, _ = e.take()
		h := only(t, sent, dataplane.OpHolders)
		c.gave[5] = true // given back before: not the call's
		e.timers = nil
		c.Deliver(e, want, dataplane.Reply{Req: h.c.Req, Code: dataplane.OK, Session: sid, Holders: []dataplane.Holder{
			{Grant: 5, Names: slices.Sorted(slices.Values(lock.Names)), Epoch: 5, Counter: 1},
		}})
		_, evs = e.take()
		call := uint64(0)
		if code == dataplane.Moving {
			call = lock.Req
		}
		if len(evs) != 1 || evs[0].Kind != proc.EvGiveUp || evs[0].S.Call != call {
			t.Fatalf("%d: none found: %+v, want EvGiveUp with call %d", code, evs, call)
		}
		timer[thinkTimer](t, e)
		if c.cuts != 1 || c.reclaimed != 0 {
			t.Errorf("%d: cuts %d, reclaimed %d; want 1, 0", code, c.cuts, c.reclaimed)
		}
	}
}

// TestClientGivesAgain: a give-back node 0 answered may not be at its
// backup when node 0 is lost, and the node that adopts the session
// holds the grant again; once the session's next node answers a
// keep-alive, the client gives it back again there (client/'s
// giveAgain), and not again once that node answered. Without it, a
// client whose lock was cut off no longer closes its session, and asked
// for the same name again it waited behind its own grant to the end
// (seed 160 with --semaphores 2 --mismatch 30 --refresh-every 500).
func TestClientGivesAgain(t *testing.T) {
	e := &clientEnv{rnd: rand.New(rand.NewPCG(1, 2))}
	c := NewClient(ClientConfig{Nodes: 3, Names: 3, TTL: TTL, KeepAlive: TTL / 8, Timeout: Lease / 4, Retry: 20, Think: 200, CS: 100, Locks: 4})
	c.Start(e)
	open := only(t, e.sent, dataplane.OpOpen)
	e.sent = nil
	const sid, g = 77, 500
	c.Deliver(e, 0, dataplane.Reply{Req: open.c.Req, Code: dataplane.OK, Session: sid, TTL: TTL, Lease: Lease})
	think := timer[thinkTimer](t, e)
	e.now = 10
	c.Fire(e, think)
	sent, _ := e.take()
	lock := only(t, sent, dataplane.OpLock)
	c.Deliver(e, 0, dataplane.Reply{Req: lock.c.Req, Code: dataplane.OK, Session: sid, Grant: g, Epoch: 5, Counter: 1})
	e.now = 50
	c.Fire(e, timer[csTimer](t, e))
	sent, _ = e.take()
	u := only(t, sent, dataplane.OpUnlock)
	c.Deliver(e, 0, dataplane.Reply{Req: u.c.Req, Code: dataplane.OK, Session: sid, Grant: g})
	// A keep-alive node 0 does not answer in time: the client moves to
	// node 1, which answers the next one.
	e.now = 400
	c.Fire(e, kaTimer{c.gen})
	sent, _ = e.take()
	ka := only(t, sent, dataplane.OpKeepAlive)
	e.now = 400 + Lease/4
	c.Fire(e, kaTimer{c.gen})
	sent, _ = e.take()
	if ka = only(t, sent, dataplane.OpKeepAlive); ka.to != 1 {
		t.Fatalf("keep-alive to %d after the timeout, want 1", ka.to)
	}
	c.Deliver(e, 1, dataplane.Reply{Req: ka.c.Req, Code: dataplane.OK, Session: sid, TTL: TTL, Lease: Lease})
	sent, _ = e.take()
	again := only(t, sent, dataplane.OpUnlock)
	if again.to != 1 || again.c.Grant != g {
		t.Fatalf("given again: %+v, want grant %d at node 1", again, g)
	}
	c.Deliver(e, 1, dataplane.Reply{Req: again.c.Req, Code: dataplane.NotHeld, Session: sid, Grant: g})
	if len(c.given) != 0 {
		t.Fatalf("still to give again after NOT_HELD: %+v", c.given)
	}
}
