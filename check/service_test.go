package check

import (
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// Nodes 0..2, clients 3 and 4; TTL 300, lease 100 (Slack), Settle 200,
// Bound 500; each quota's budget 2.
func sv(t proc.Time, k proc.EventKind, p proc.ID, s proc.Session) ev {
	return ev{Time: t, Kind: k, P: p, S: &s}
}

func opened(t proc.Time, node proc.ID, id uint64) ev {
	return sv(t, proc.EvOpened, node, proc.Session{ID: id, TTL: 300})
}

// alive: client p's keep-alive of session id sent at sent, answered at t
// with the node's lease.
func alive(t proc.Time, p proc.ID, id uint64, sent, lease proc.Time) ev {
	return sv(t, proc.EvAlive, p, proc.Session{ID: id, Sent: sent, TTL: 300, Lease: lease})
}

func enter(t proc.Time, p proc.ID, id, grant uint64, epoch, counter uint64, res ...proc.ResID) ev {
	e := sv(t, proc.EvEnter, p, proc.Session{ID: id, Grant: grant, Counter: counter})
	e.Epoch, e.Res = epoch, res
	return e
}

// acquired: client p's grant of a unit of semaphore sem of units units,
// its token (epoch, counter) on unit unit of view epoch.
func acquired(t proc.Time, p proc.ID, id, grant uint64, sem, units, unit int32, epoch, counter uint64) ev {
	e := sv(t, proc.EvEnter, p, proc.Session{ID: id, Grant: grant, Counter: counter, Sem: sem, Units: units, Unit: unit})
	e.Epoch = epoch
	return e
}

// permit: client p told a permit of quota q (from 1) on session id.
func permit(t proc.Time, p proc.ID, id uint64, q int32) ev {
	return sv(t, proc.EvPermit, p, proc.Session{ID: id, Quota: q})
}

// permits: client p told k permits of quota q (from 1) on session id, a
// Take's answer.
func permits(t proc.Time, p proc.ID, id uint64, q int32, k int32) ev {
	return sv(t, proc.EvPermit, p, proc.Session{ID: id, Quota: q, Permits: k})
}

// issued: node p's instance of quota q (from 1) issued a permit for
// session id's Take.
func issued(t proc.Time, p proc.ID, id uint64, q int32) ev {
	return sv(t, proc.EvIssued, p, proc.Session{ID: id, Quota: q})
}

func request(t proc.Time, p proc.ID, id uint64, res ...proc.ResID) ev {
	e := sv(t, proc.EvRequest, p, proc.Session{ID: id, Grant: 1})
	e.Res = res
	return e
}

// TestService shows each rule of check.Service rejecting a hand-made
// stream that breaks it, and a stream of a session's life passing.
func TestService(t *testing.T) {
	for _, c := range []struct {
		name   string
		healed proc.Time
		events []ev
		want   string // the rule, "" for none
	}{
		{"a lock passed on, a session adopted and ended in time", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100),
			request(20, 3, 1, 5), enter(30, 3, 1, 11, 6, 1, 5), sv(40, proc.EvHeld, 0, proc.Session{ID: 1, Grant: 11}),
			sv(60, proc.EvExit, 3, proc.Session{ID: 1, Grant: 11}),
			opened(61, 1, 2), alive(62, 4, 2, 60, 100),
			request(63, 4, 2, 5), enter(70, 4, 2, 21, 6, 2, 5),
			at(80, proc.EvCrash, 1), sv(150, proc.EvAdopted, 2, proc.Session{ID: 2}),
			sv(151, proc.EvHeld, 2, proc.Session{ID: 2, Grant: 21}),
			// The client counted on session 2 until 60+100: the next
			// holder of 5 comes after.
			alive(170, 3, 1, 165, 100), request(171, 3, 1, 5), enter(175, 3, 1, 12, 9, 1, 5),
			sv(500, proc.EvEnded, 2, proc.Session{ID: 2}), // 60+300+100 = 460, +200
			sv(510, proc.EvEnded, 0, proc.Session{ID: 1}),
		}, ""},
		{"two holders at once", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), enter(30, 3, 1, 11, 6, 1, 5),
			opened(11, 1, 2), alive(13, 4, 2, 9, 100), enter(40, 4, 2, 21, 6, 2, 5)}, "one-holder"},
		{"told expired while holding", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), enter(30, 3, 1, 11, 6, 1, 5),
			sv(50, proc.EvExpired, 3, proc.Session{ID: 1, Sent: 45}),
			opened(11, 1, 2), alive(13, 4, 2, 9, 100), enter(60, 4, 2, 21, 6, 2, 5)}, "expired-alive"},
		{"a token that does not grow", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), enter(30, 3, 1, 11, 6, 7, 5),
			sv(40, proc.EvExit, 3, proc.Session{ID: 1, Grant: 11}),
			opened(41, 1, 2), alive(43, 4, 2, 41, 100), enter(60, 4, 2, 21, 6, 7, 5)}, "token-order"},
		{"a token of an older view", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), enter(30, 3, 1, 11, 6, 7, 5),
			sv(40, proc.EvExit, 3, proc.Session{ID: 1, Grant: 11}),
			opened(41, 1, 2), alive(43, 4, 2, 41, 100), enter(60, 4, 2, 21, 5, 90, 5)}, "token-order"},
		{"a semaphore's units held up to R, passed on, and its units' tokens", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2), alive(13, 4, 2, 9, 100),
			opened(12, 2, 3), alive(14, 5, 3, 10, 100),
			acquired(30, 3, 1, 11, 0, 2, 0, 6, 1), acquired(31, 4, 2, 21, 0, 2, 1, 6, 2),
			// Semaphore 1 and the lock are other things.
			acquired(32, 5, 3, 31, 1, 2, 0, 6, 3), enter(33, 5, 3, 32, 6, 4, 0),
			sv(40, proc.EvExit, 3, proc.Session{ID: 1, Grant: 11, Sem: 0, Units: 2}),
			// Unit 0 again in view 6, a greater counter; unit 0 of view 7
			// is another unit, its counters its own.
			acquired(41, 5, 3, 33, 0, 2, 0, 6, 5),
			sv(50, proc.EvExit, 4, proc.Session{ID: 2, Grant: 21, Sem: 0, Units: 2}),
			acquired(51, 3, 1, 12, 0, 2, 0, 7, 1)}, ""},
		{"more units held than the semaphore has", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2), alive(13, 4, 2, 9, 100),
			opened(12, 2, 3), alive(14, 5, 3, 10, 100),
			acquired(30, 3, 1, 11, 0, 2, 0, 6, 1), acquired(31, 4, 2, 21, 0, 2, 1, 6, 2),
			acquired(32, 5, 3, 31, 0, 2, 0, 7, 1)}, "capacity"},
		{"one semaphore granted with other units while a grant of it is held", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2), alive(13, 4, 2, 9, 100),
			// Two of 2 units and of 3: within either's units, but two
			// semaphores under one id.
			acquired(30, 3, 1, 11, 0, 2, 0, 6, 1), acquired(31, 4, 2, 21, 0, 3, 0, 6, 2)}, "one-units"},
		{"a semaphore's units are those of the grants held", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2), alive(13, 4, 2, 9, 100),
			// Its 1 unit held, a grant of 2 units is one too many (and
			// of other units).
			acquired(30, 3, 1, 11, 0, 1, 0, 6, 1), acquired(31, 4, 2, 21, 0, 2, 0, 6, 2)}, "capacity"},
		{"other units once nobody holds the semaphore (a refresh forgot them)", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2), alive(13, 4, 2, 9, 100),
			acquired(30, 3, 1, 11, 0, 1, 0, 6, 1),
			sv(40, proc.EvExit, 3, proc.Session{ID: 1, Grant: 11, Sem: 0, Units: 1}),
			acquired(50, 4, 2, 21, 0, 2, 0, 6, 2)}, ""},
		{"a unit held past its session's lease is still held", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2), alive(13, 4, 2, 9, 100),
			acquired(30, 3, 1, 11, 0, 1, 0, 6, 1),
			// Client 3 counts on session 1 until 8+100: a grant at 90 is
			// one too many.
			acquired(90, 4, 2, 21, 0, 1, 0, 7, 1)}, "capacity"},
		{"a unit free once its holder stopped counting on its session", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2), alive(13, 4, 2, 9, 100),
			acquired(30, 3, 1, 11, 0, 1, 0, 6, 1), acquired(108, 4, 2, 21, 0, 1, 0, 7, 1)}, ""},
		{"a unit's token that does not grow", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), acquired(30, 3, 1, 11, 0, 2, 1, 6, 7),
			sv(40, proc.EvExit, 3, proc.Session{ID: 1, Grant: 11, Sem: 0, Units: 2}),
			opened(41, 1, 2), alive(43, 4, 2, 41, 100), acquired(60, 4, 2, 21, 0, 2, 1, 6, 7)}, "token-order"},
		{"a grant held after its session ended", 0, []ev{
			opened(10, 0, 1), sv(20, proc.EvEnded, 0, proc.Session{ID: 1}),
			sv(30, proc.EvHeld, 1, proc.Session{ID: 1, Grant: 11})}, "grant-after-end"},
		{"told expired while counting on it", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), alive(70, 3, 1, 60, 100),
			sv(100, proc.EvExpired, 3, proc.Session{ID: 1, Sent: 90})}, "expired-alive"},
		{"counting on the backup's answer", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100),
			sv(90, proc.EvAlive, 3, proc.Session{ID: 1, Sent: 80, TTL: 300, Lease: 100, Backup: true}),
			sv(200, proc.EvExpired, 3, proc.Session{ID: 1, Sent: 150})}, "expired-alive"},
		{"a request not answered after the heal", 1000, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), request(20, 3, 1, 5),
			enter(1600, 3, 1, 11, 6, 1, 5)}, "unanswered"},
		{"a request never answered", 1000, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), request(1200, 3, 1, 5), at(2000, proc.EvCrash, 0)}, "unanswered"},
		{"a session that outlives its lease", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), sv(700, proc.EvEnded, 0, proc.Session{ID: 1})}, "outlived"},
		{"an adopter that restarts the TTL", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), at(50, proc.EvCrash, 0),
			sv(380, proc.EvAdopted, 1, proc.Session{ID: 1}), sv(680, proc.EvEnded, 1, proc.Session{ID: 1})}, "outlived"},
		{"an adoption delayed by a fault is allowed the fault's time", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), at(50, proc.EvCrash, 0),
			sv(380, proc.EvAdopted, 1, proc.Session{ID: 1}), sv(680, proc.EvEnded, 1, proc.Session{ID: 1})}, ""},
		{"each quota's permits within the budget, 2, across a crash and a restart", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2), alive(13, 4, 2, 9, 100),
			permit(20, 3, 1, 1), permit(21, 4, 2, 2), at(30, proc.EvCrash, 0), at(40, proc.EvRestart, 0),
			permit(50, 4, 2, 1), sv(51, proc.EvReject, 3, proc.Session{ID: 1, Quota: 1}), permit(52, 3, 1, 2),
			sv(300, proc.EvEnded, 1, proc.Session{ID: 1}), sv(301, proc.EvEnded, 1, proc.Session{ID: 2})}, ""},
		{"a third permit of a budget of 2, after a restart", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2), alive(13, 4, 2, 9, 100),
			permit(20, 3, 1, 1), permit(21, 4, 2, 1), at(30, proc.EvCrash, 0), at(40, proc.EvRestart, 0),
			permit(50, 4, 2, 1)}, "budget"},
		{"takes of several permits within the budget, 2: one of two, one cut short after one", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2), alive(13, 4, 2, 9, 100),
			sv(20, proc.EvRequest, 3, proc.Session{ID: 1, Grant: 1, Quota: 1, Permits: 2}), permits(21, 3, 1, 1, 2),
			sv(22, proc.EvRequest, 4, proc.Session{ID: 2, Grant: 1, Quota: 2, Permits: 3}), permits(23, 4, 2, 2, 1),
			sv(24, proc.EvReject, 4, proc.Session{ID: 2, Grant: 1, Quota: 2}),
			sv(300, proc.EvEnded, 0, proc.Session{ID: 1}), sv(301, proc.EvEnded, 1, proc.Session{ID: 2})}, ""},
		{"a take of two told after one permit of a budget of 2", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2), alive(13, 4, 2, 9, 100),
			permit(20, 3, 1, 1), permits(30, 4, 2, 1, 2)}, "budget"},
		{"a take of three, told all, of a budget of 2", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), permits(30, 3, 1, 1, 3)}, "budget"},
		{"a take cut short after two, then a permit, of a budget of 2", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2), alive(13, 4, 2, 9, 100),
			permits(20, 3, 1, 1, 2), sv(21, proc.EvGiveUp, 3, proc.Session{ID: 1, Grant: 1}), permit(40, 4, 2, 1)}, "budget"},
		{"three permits issued at the nodes, one told, of a budget of 2", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2),
			issued(20, 0, 1, 1), permit(21, 3, 1, 1), issued(30, 1, 2, 1), at(31, proc.EvCrash, 1),
			at(40, proc.EvRestart, 1), issued(50, 1, 2, 1)}, "issued"},
		{"two permits issued at the nodes, one of each quota's budget of 2 told", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), opened(11, 1, 2),
			issued(20, 0, 1, 1), permit(21, 3, 1, 1), issued(30, 1, 2, 1), at(31, proc.EvCrash, 1),
			issued(50, 0, 1, 2), issued(51, 0, 1, 2),
			sv(300, proc.EvEnded, 0, proc.Session{ID: 1})}, ""},
		{"a take answered by a reject", 1000, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), sv(500, proc.EvEnded, 0, proc.Session{ID: 1}),
			sv(1100, proc.EvRequest, 3, proc.Session{ID: 1, Grant: 1, Quota: 1}), sv(1150, proc.EvReject, 3, proc.Session{ID: 1, Quota: 1}), at(2000, proc.EvCrash, 2)}, ""},
		{"a try answered taken, its grant held after", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), request(20, 3, 1, 5),
			sv(30, proc.EvGiveUp, 3, proc.Session{ID: 1, Grant: 1, Call: 7}),
			sv(40, proc.EvHeld, 0, proc.Session{ID: 1, Grant: 11, Call: 7}),
			sv(300, proc.EvEnded, 0, proc.Session{ID: 1})}, "refused-held"},
		{"a grant held, its request then answered with nothing granted", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), request(20, 3, 1, 5),
			sv(30, proc.EvHeld, 0, proc.Session{ID: 1, Grant: 11, Call: 7}),
			sv(40, proc.EvGiveUp, 3, proc.Session{ID: 1, Grant: 1, Call: 7}),
			sv(300, proc.EvEnded, 0, proc.Session{ID: 1})}, "refused-held"},
		{"a try answered taken, another call's grant held, one given up unanswered held", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), request(20, 3, 1, 5),
			sv(30, proc.EvGiveUp, 3, proc.Session{ID: 1, Grant: 1, Call: 7}),
			request(35, 3, 1, 5), sv(40, proc.EvHeld, 0, proc.Session{ID: 1, Grant: 11, Call: 8}),
			enter(45, 3, 1, 11, 6, 1, 5), sv(50, proc.EvExit, 3, proc.Session{ID: 1, Grant: 11}),
			request(55, 3, 1, 6), sv(60, proc.EvGiveUp, 3, proc.Session{ID: 1, Grant: 3}),
			sv(61, proc.EvHeld, 0, proc.Session{ID: 1, Grant: 12, Call: 9}),
			// Asked again for an adopted session: it answers no call.
			sv(62, proc.EvHeld, 1, proc.Session{ID: 1, Grant: 12}),
			sv(300, proc.EvEnded, 0, proc.Session{ID: 1})}, ""},
		{"a session held to the end of the run", 0, []ev{
			opened(10, 0, 1), alive(12, 3, 1, 8, 100), at(2000, proc.EvCrash, 2)}, "outlived"},
	} {
		x := &Service{Nodes: 3, Slack: 100, Healed: c.healed, Bound: 500, Settle: 200, Budget: 2}
		if strings.Contains(c.name, "delayed by a fault") {
			x.Windows = [][2]proc.Time{{40, 300}}
		}
		var end proc.Time
		for _, e := range c.events {
			x.Event(e)
			end = e.Time
		}
		x.Close(end)
		switch {
		case c.want == "" && x.Violations > 0:
			t.Errorf("%s: false alarm %v", c.name, x.First)
		case c.want != "" && (x.Violations == 0 || !strings.Contains(x.First[0], c.want)):
			t.Errorf("%s: want %q, got %v", c.name, c.want, x.First)
		}
	}
}
