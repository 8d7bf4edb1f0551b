package session

import (
	"cmp"
	"slices"
	"time"
)

// Delays is the grants of ended sessions that the lock-delay holds still
// (G: the driver's grant): each goes back when its delay is over (Due),
// and until then it is held as a live session's is, asked again at a
// view change (Held), so that the delay outlasts the view. The zero
// Delays holds none.
type Delays[G comparable] struct {
	until map[G]held
	added uint64 // Adds so far: Held's order among equal untils
	q     Expiry[G]
}

type held struct {
	until Time
	n     uint64
}

// Add holds g until until; first reports whether it is now the soonest
// to go back (a driver waiting for the soonest wakes).
func (d *Delays[G]) Add(g G, until Time) (first bool) {
	if d.until == nil {
		d.until = map[G]held{}
	}
	d.added++
	d.until[g] = held{until, d.added}
	return d.q.Add(g, until)
}

// Due is the grants whose delay is over at now, which leave (the driver
// gives them back); wait is how long until the next is due (0: none
// held).
func (d *Delays[G]) Due(now Time) (due []G, wait time.Duration) {
	for {
		g, w, ok := d.q.Next(now)
		if !ok {
			return due, w
		}
		delete(d.until, g)
		due = append(due, g)
	}
}

// Held is the grants the delay holds at now, soonest to go back first,
// and those with the same end in the order they came (never the map's:
// a driver asks for them again in this order).
func (d *Delays[G]) Held() []G {
	out := make([]G, 0, len(d.until))
	for g := range d.until { // any order: sorted below, ties by arrival
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b G) int {
		x, y := d.until[a], d.until[b]
		return cmp.Or(cmp.Compare(x.until, y.until), cmp.Compare(x.n, y.n))
	})
	return out
}
