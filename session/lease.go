package session

import "time"

// Time is the driver's time: a monotonic count since the driver started
// (the service: its process's monotonic clock; a simulator: its own), in
// nanoseconds. The zero Time is "none" where a field says so: the driver's
// first instant never carries a deadline (a TTL is positive).
type Time time.Duration

// Add is t moved on by d.
func (t Time) Add(d time.Duration) Time { return t + Time(d) }

// Sub is the time from u to t.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Lease is one session's lease at the node that serves it: the session
// lease rule, written once. A keep-alive moves the deadline a TTL on from
// when it comes (Renew), never before the deadline the session was
// adopted with; the session has run out at its deadline (Out); a record
// at the backup asks it to keep the session until the deadline, plus a
// slack of one lease when this node's keep-alives set it (RecordEnd); an
// adopter keeps the deadline its record carried (Adopt); a keep-alive's
// answer promises no more than the backup keeps (Promise). The client's
// side: Believed, BelievedAtBackup.
type Lease struct {
	TTL time.Duration
	// Deadline: when the session runs out, unless a keep-alive comes.
	Deadline Time
	// Adopted: the deadline the session was adopted with (zero for a
	// session opened here): a keep-alive never moves the deadline before
	// it, and a record carries it without slack.
	Adopted Time
	// Recorded: until when the backup keeps the session, as of the newest
	// record it answered (zero: nothing it answered).
	Recorded Time
}

// Open is the lease of a session opened at now.
func Open(now Time, ttl time.Duration) Lease {
	return Lease{TTL: ttl, Deadline: now.Add(ttl)}
}

// Adopt is the lease of a session adopted at now whose newest record
// asked its backup to keep it until until: the deadline is kept, never
// started afresh, so that a session whose client stopped ends when it
// would have at its node, however many nodes adopt it in turn. A zero
// until (a record that carried no time left) gets a fresh TTL.
func Adopt(now Time, ttl time.Duration, until Time) Lease {
	l := Lease{TTL: ttl, Deadline: until}
	if until == 0 {
		l.Deadline = now.Add(ttl)
	}
	l.Adopted = l.Deadline
	return l
}

// Out reports whether the session has run out at now.
func (l Lease) Out(now Time) bool { return now >= l.Deadline }

// Renew is a keep-alive at now: the deadline moves a TTL on (not before
// the adopted deadline). False, and nothing moves, if the session has run
// out.
func (l *Lease) Renew(now Time) bool {
	if l.Out(now) {
		return false
	}
	l.Deadline = max(now.Add(l.TTL), l.Adopted)
	return true
}

// Covered reports whether the backup keeps the session half of slack
// past its deadline already: a keep-alive then needs no record before its
// answer. Each record asks for slack past the deadline (RecordEnd), so a
// keep-alive is recorded about twice per slack, and the backup's newest
// record is never more than half a slack and a keep-alive old.
func (l Lease) Covered(slack time.Duration) bool {
	return l.Recorded >= l.Deadline.Add(slack/2)
}

// RecordEnd is until when a record made now asks the backup to keep the
// session: its deadline, plus slack when this node's keep-alives set it
// (a keep-alive the backup has not had yet is answered for no more than
// slack beyond what it has). An adopted deadline not renewed past is
// passed on as it is: adoptions do not each add their own slack.
func (l Lease) RecordEnd(slack time.Duration) Time {
	if l.Deadline > l.Adopted {
		return l.Deadline.Add(slack)
	}
	return l.Deadline
}

// Left is the time a record made at now says is left until end, rounded
// up to the millisecond and at least one (zero is a record that carries
// none): the backup never keeps the session for less than it is to.
func Left(now, end Time) time.Duration {
	left := max(end.Sub(now), time.Millisecond)
	return (left + time.Millisecond - 1) / time.Millisecond * time.Millisecond
}

// Acked notes that the backup has a record that asked it to keep the
// session until end.
func (l *Lease) Acked(end Time) { l.Recorded = max(l.Recorded, end) }

// Moved forgets what the backup kept: the backup moved, and the old one's
// records are no promise of the new one's.
func (l *Lease) Moved() { l.Recorded = 0 }

// Promise is the lease a keep-alive's answer at now may give, the node's
// being lease, when the keep-alive's record did not reach the backup in
// time: no more than the backup keeps the session (an adopter keeps no
// more). False: the backup keeps nothing, and the keep-alive gets no
// answer.
func (l Lease) Promise(now Time, lease time.Duration) (time.Duration, bool) {
	kept := l.Recorded.Sub(now)
	if kept < time.Millisecond {
		return 0, false
	}
	return min(lease, kept), true
}

// Handed is until when a node that dropped the session without a
// recorded end (it stopped serving; its backup adopts it) keeps telling
// its calls to look for its node rather than that it expired: the
// deadline plus a TTL, by when its client has found the adopter, or lost
// the session.
func (l Lease) Handed() Time { return l.Deadline.Add(l.TTL) }

// Kept is how long from now a backup that would adopt the session with
// the deadline until (Keeper.Keeps) keeps it, rounded down to the
// millisecond, and never less than zero: what it tells a client of the
// session, which counts on no more (BelievedAtBackup).
func Kept(now, until Time) time.Duration {
	return max(until.Sub(now), 0).Truncate(time.Millisecond)
}

// The client's side of the rule: how long a client may count on its
// session, on its own clock, from when it sent a keep-alive.

// Believed is how long after it sent a keep-alive its session's node
// answered, with the node's lease (zero or less: a node that says none),
// a client may count the session alive: its TTL, and no longer than the
// node serves (a node cut off from the cluster stops serving when its
// lease runs out, and the others may then hand out what the session
// holds, unless its backup adopts it).
func Believed(ttl, lease time.Duration) time.Duration {
	if lease > 0 {
		return min(ttl, lease)
	}
	return ttl
}

// Lapsing reports whether a keep-alive's answer with the node's lease
// says the node is losing it, for a client whose nodes answered at most
// longest: the lease bounds what the client counts on (shorter than the
// TTL), and it is under half of longest (a serving node renews its lease
// every sixth of it). The node answers until its lease is out, each
// time with less; a client that counted on no more, and looked for the
// session's backup only once the node refused, would lose the session
// the moment the lease ran out. It asks the backup then (its word moves
// the count on: BelievedAtBackup), which adopts the session in the next
// view.
func Lapsing(ttl, lease, longest time.Duration) bool {
	return lease > 0 && lease < ttl && lease < longest/2
}

// BelievedAtBackup is how long after it sent a keep-alive the session's
// backup answered (SESSION_MOVING: it adopts the session if its node is
// lost), since after the last keep-alive its node answered was sent, a
// client may count the session alive: not past the backup's lease (it
// cannot adopt the session later), nor past the TTL from the last
// keep-alive that reached its node (the session ends there then), nor,
// when the backup says (said), past what it keeps (an adopter keeps that
// deadline; an older node that does not say adopts with a fresh TTL).
func BelievedAtBackup(ttl, since, lease, kept time.Duration, said bool) time.Duration {
	b := min(ttl-since, lease)
	if said {
		b = min(b, kept)
	}
	return b
}
