package session

import "time"

// Where is what a node answers a call of a session it does not serve.
type Where uint8

const (
	// Moving: the node keeps the session as its backup, and adopts it if
	// its node is lost: the session is alive (SESSION_MOVING).
	Moving Where = iota + 1
	// NotHere: the session may be alive at another node
	// (SESSION_NOT_HERE): the client looks for its node.
	NotHere
	// Ended: the session is known to have ended here (SESSION_EXPIRED).
	Ended
)

// Find is where a call of a session the node does not serve stands: the
// session is told it expired only where it is known to have ended. kept:
// the node keeps it for another node (Keeper.Keeps); handed: the node
// dropped it without a recorded end when it stopped serving, and its
// backup adopts it (Handed); ownRun: its id is of the node's current run,
// which it issued, so a session of it that is neither served, kept nor
// handed was closed or ran out here (or was never issued). Every other id
// may be alive elsewhere: another node's, or an earlier run's of this
// node, which its backup adopted.
func Find(kept, handed, ownRun bool) Where {
	switch {
	case kept:
		return Moving
	case handed || !ownRun:
		return NotHere
	}
	return Ended
}

// Handed is the sessions a node dropped without a recorded end when it
// stopped serving: their backup adopts them, and they may be alive there,
// so a call of one is told to look for its node, not that it expired
// (Find). Each is kept until Lease.Handed (by then its client has found
// the adopter, or lost the session). The zero Handed keeps none.
type Handed struct {
	until  map[uint64]Time
	pruned Time // when until last lost the entries whose time passed
}

// Add notes that session id was handed over, until until.
func (h *Handed) Add(id uint64, until Time) {
	if h.until == nil {
		h.until = map[uint64]Time{}
	}
	h.until[id] = until
}

// Remove forgets session id: it was adopted back, and ended here for
// good.
func (h *Handed) Remove(id uint64) { delete(h.until, id) }

// Has reports whether session id was handed over and is kept as such at
// now. The entries whose time has passed go, all of them at most once a
// second (a lookup costs no walk of a crowd of them).
func (h *Handed) Has(id uint64, now Time) bool {
	if now.Sub(h.pruned) > time.Second {
		h.pruned = now
		for k, until := range h.until { // any order: it only deletes
			if now > until {
				delete(h.until, k)
			}
		}
	}
	until, ok := h.until[id]
	return ok && now <= until
}
