package session

import "time"

// Session is one session's state at the node that serves it: its lease,
// the seq of its newest record at the backup, and whether it ended, and
// how.
type Session struct {
	ID uint64
	Lease
	// Seq: the newest record made of the session (Record): the backup
	// keeps the record of the greatest.
	Seq uint64
	// Ended: closed, run out, or dropped when the node stopped serving;
	// Handed: dropped without a recorded end, so its backup adopts it
	// and it may be alive there.
	Ended, Handed bool
}

// Opened is session id, opened at now with ttl.
func Opened(id uint64, now Time, ttl time.Duration) Session {
	return Session{ID: id, Lease: Open(now, ttl)}
}

// Adopted is the session of a, adopted: with its recorded deadline.
func Adopted(a Adoption) Session {
	return Session{ID: a.Record.ID, Lease: a.Lease}
}

// KeepAlive is a keep-alive at now (Lease.Renew); false if the session
// ended or ran out.
func (s *Session) KeepAlive(now Time) bool {
	return !s.Ended && s.Renew(now)
}

// End ends the session, with its end recorded at its backup (record), or
// without: handed to the backup, which adopts it, and kept as handed
// until handed (Lease.Handed; zero when recorded). False if it had ended
// already.
func (s *Session) End(record bool) (handed Time, ok bool) {
	if s.Ended {
		return 0, false
	}
	s.Ended, s.Handed = true, !record
	if record {
		return 0, true
	}
	return s.Lease.Handed(), true
}

// Refused is what the driver does when the backup refused the session's
// recorded end (Keeper.Keep: it took the primary's run over): the end
// is not recorded there, and the backup may have adopted the session,
// so it counts as handed, kept so until handed. Its grants go back at
// once here, not held by a lock-delay (a lock-delay's grants are asked
// again in the node's next view, beside the adopter's). False if the
// session did not end with a recorded end.
func (s *Session) Refused() (handed Time, ok bool) {
	if !s.Ended || s.Handed {
		return 0, false
	}
	s.Handed = true
	return s.Lease.Handed(), true
}

// Gone is where a call of the session stands once it ended: NotHere if it
// was handed to its backup (it may be alive there), else Ended.
func (s *Session) Gone() Where {
	return Find(false, s.Handed, true)
}

// Record is the record of the session made at now, under a new Seq, with
// the grants it holds (the driver's, answered and not given back), and
// end, until when it asks the backup to keep the session (RecordEnd).
func (s *Session) Record(now Time, slack time.Duration, grants []Grant) (r Record, end Time) {
	s.Seq++
	end = s.RecordEnd(slack)
	return Record{ID: s.ID, TTL: s.TTL, Seq: s.Seq, Ended: s.Ended, Left: Left(now, end), Grants: grants}, end
}

// Verdict is what the driver does with a session its Expiry brought up.
type Verdict uint8

const (
	// Drop: the session ended already; nothing to do.
	Drop Verdict = iota
	// Later: kept alive meanwhile; look again at its deadline.
	Later
	// Wait: run out, but the node holds no lease, and the session is not
	// its to end: the cluster may have moved on without the node (frozen,
	// cut off) and the session's backup adopted it, grants and all, for a
	// client that kept it alive there. Ended here, its grants would be
	// held under the lock-delay and asked for again in the next view
	// beside the backup's, each waiting for the other: that view would
	// never serve. The node fences itself if it was left out (its
	// sessions are handed over, nothing delayed); if its lease comes
	// back, the session is looked at again: soon.
	Wait
	// Expire: run out while the node serves: end it, its end recorded,
	// its grants held the lock-delay more.
	Expire
)

// Due is the verdict on the session at now; serving: whether the node
// holds its lease.
func (s *Session) Due(now Time, serving bool) Verdict {
	switch {
	case s.Ended:
		return Drop
	case !s.Out(now):
		return Later
	case !serving:
		return Wait
	}
	return Expire
}
