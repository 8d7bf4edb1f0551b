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
