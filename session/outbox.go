package session

import "time"

// Outbox is the records a primary owes its backup, in the order they
// were made (R: the driver's record). Each gets the next id; the backup
// answers a batch once it has kept it, which acknowledges every record up
// to it (the stream is ordered: a record is never acknowledged before
// one made earlier); a new stream, after a broken one, sends again from
// the first record not acknowledged. The zero Outbox is empty and open.
type Outbox[R any] struct {
	items  []Pending[R] // not acknowledged, in order
	next   uint64       // the id of the last record made
	closed bool
}

// Pending is a record not acknowledged yet: its id, and when it was last
// sent (zero: not on this stream yet).
type Pending[R any] struct {
	ID     uint64
	Record R
	Sent   Time
}

// Push queues r; false (and r is not queued) once the outbox is closed:
// the backup moved, and the caller records again at the new one.
func (o *Outbox[R]) Push(r R) (id uint64, ok bool) {
	if o.closed {
		return 0, false
	}
	o.next++
	o.items = append(o.items, Pending[R]{ID: o.next, Record: r})
	return o.next, true
}

// Made is how many records were pushed.
func (o *Outbox[R]) Made() uint64 { return o.next }

// Send is the records to send on a stream whose last sent record is
// after (0: a new stream), in order, marked sent at now. The first
// record ever made (id 1) is the run's first at this backup: its message
// tells the backup to forget what it kept of the run before (Keep's
// forget).
func (o *Outbox[R]) Send(after uint64, now Time) []Pending[R] {
	var out []Pending[R]
	for i := range o.items {
		if o.items[i].ID > after {
			o.items[i].Sent = now
			out = append(out, o.items[i])
		}
	}
	return out
}

// Ack is the backup's answer to the batch up to id upTo: the records it
// acknowledges, in order, which leave the outbox.
func (o *Outbox[R]) Ack(upTo uint64) []R {
	k := 0
	for k < len(o.items) && o.items[k].ID <= upTo {
		k++
	}
	out := make([]R, k)
	for i := range k {
		out[i] = o.items[i].Record
	}
	o.items = o.items[k:]
	return out
}

// Silent reports whether the oldest record sent on a stream (whose last
// sent record is sent) has waited longer than silent for its answer at
// now: the stream is taken for silently dead.
func (o *Outbox[R]) Silent(sent uint64, now Time, silent time.Duration) bool {
	return len(o.items) > 0 && o.items[0].ID <= sent && now.Sub(o.items[0].Sent) > silent
}

// Close closes the outbox (its backup is one no more): no record is
// pushed any more, and what was not acknowledged comes back, in order.
func (o *Outbox[R]) Close() []R {
	o.closed = true
	left := o.Ack(o.next)
	o.items = nil
	return left
}
