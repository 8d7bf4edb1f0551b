package session_test

import (
	"fmt"
	"time"

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/session"
)

// A session opened at node 1 with a TTL of 10s is kept alive once,
// recorded at its backup (node 2), and adopted there when a view leaves
// node 1 out: the adopter keeps the deadline the record carried, not a
// fresh TTL.
func Example() {
	const slack = 3 * time.Second // the service's --suspect
	sec := func(s int) session.Time { return session.Time(time.Duration(s) * time.Second) }

	l := session.Open(sec(0), 10*time.Second)
	l.Renew(sec(4)) // a keep-alive: the deadline is 14s
	end := l.RecordEnd(slack)
	rec := session.Record{ID: 7, TTL: l.TTL, Seq: 1, Left: session.Left(sec(4), end)}

	backup := session.NewKeeper()
	backup.Keep(sec(4), session.Run{Node: 1, Gen: 1}, 5, false, []session.Record{rec})

	prev := session.View{Epoch: 5, Members: []proc.ID{1, 2}, Gens: []uint64{1, 1}}
	next := session.View{Epoch: 6, Members: []proc.ID{2}, Gens: []uint64{1}}
	t := backup.TakeOver(sec(9), 2, next, prev)
	for _, a := range t.Adopt {
		fmt.Printf("node 2 adopts session %d until %v; a keep-alive at 12s moves it to ", a.Record.ID, time.Duration(a.Lease.Deadline))
		a.Lease.Renew(sec(12))
		fmt.Println(time.Duration(a.Lease.Deadline))
	}
	// Output:
	// node 2 adopts session 7 until 17s; a keep-alive at 12s moves it to 22s
}

// A session's grants as its node keeps them: a lock answered under the
// client's request number 1, which the client asks again having lost the
// answer, and a semaphore's unit still waiting when the session runs out.
// The lock goes back (after the lock-delay); the unit is lost, and its
// request gives it back if it is answered still.
func ExampleGrants() {
	type grant struct {
		session.GrantLife
		what string
	}
	var gs session.Grants[*grant]
	lock := &grant{session.GrantLife{ID: 10, Call: 1}, "lock a"}
	unit := &grant{session.GrantLife{ID: 11, Call: 2}, "acquire s"}
	gs.Add(lock)
	gs.Add(unit)
	lock.Answer()

	same := func(what string) func(*grant) bool { return func(g *grant) bool { return g.what == what } }
	g, asked := gs.Asked(1, same("lock a"))
	fmt.Println("call 1 asked again:", g.ID, asked == session.AskedAgain)
	_, asked = gs.Asked(1, same("lock b"))
	fmt.Println("call 1 of another request refused:", asked == session.AskedOther)

	held, lost := gs.End()
	for _, g := range held {
		fmt.Println("to give back:", g.what, g.State)
	}
	for _, g := range lost {
		fmt.Println("lost:", g.what, g.State, "answered then:", g.Answer())
	}
	fmt.Println("a grant after the end:", gs.Add(&grant{session.GrantLife{ID: 12}, "lock b"}))
	// Output:
	// call 1 asked again: 10 true
	// call 1 of another request refused: true
	// to give back: lock a answered
	// lost: acquire s lost answered then: false
	// a grant after the end: false
}
