package users

import "github.com/allot-dev/allot/proc"

// Verdict is what a request that found no idle user does (Lazy.Ask).
type Verdict uint8

const (
	// Make: make the user of the id Ask gave, and say so once it is made
	// (Made); until then Ask names the same id again.
	Make Verdict = iota + 1
	// Claim: wait for a user to be idle, counting on one given back that
	// is not idle yet (GivenBack). The claim counts until the wait ends,
	// however it ends (Unclaim).
	Claim
	// Full: the node has its most users, all busy, and every user given
	// back is claimed already. A new request is refused; a regrant (past
	// the ids' limit) waits for an idle user all the same.
	Full
)

func (v Verdict) String() string {
	switch v {
	case Make:
		return "make"
	case Claim:
		return "claim"
	case Full:
		return "full"
	}
	return "verdict?"
}

// Lazy is one node's users of one lazy instance: how many it made, the
// most it may make, the ones given back and not idle yet, and the
// requests waiting for those. Its driver guards it (its methods take no
// lock) and keeps the idle users itself.
type Lazy struct {
	rank, n int     // the node's rank in the view, the view's members
	most    int     // 0: no limit
	limit   proc.ID // the users' ids stay below it (0: no limit)
	// made: the users made, so the next id; alive: those not dropped.
	made, alive int
	// returning: the users given back and not idle yet; claimed: the
	// requests waiting that count on one of them.
	returning map[proc.ID]bool
	claimed   int
}

// New is the users of the node of rank rank in a view of n members, at
// most most of them (0: no limit) but for regrants, whose ids stay below
// limit (0: no limit).
func New(rank, n, most int, limit proc.ID) *Lazy {
	return &Lazy{rank: rank, n: n, most: most, limit: limit}
}

// Ask is what a request does that found none of the node's users idle
// (the driver takes an idle one first, if it has one): make the next
// user, whose id it returns (Make: user rank + N·k, the k-th the node
// makes), claim a user given back (Claim, counted), or none (Full). A
// regrant passes the most: it is refused only where the next id would
// reach the limit. The most counts the users alive (made, not dropped).
func (l *Lazy) Ask(regrant bool) (Verdict, proc.ID) {
	id := proc.ID(l.rank + l.n*l.made)
	if l.most > 0 && (l.alive >= l.most && !regrant || l.limit > 0 && id >= l.limit) {
		if l.claimable() > l.claimed {
			l.claimed++
			return Claim, 0
		}
		return Full, 0
	}
	return Make, id
}

// claimable is how many of the users given back will be kept as they
// come back (Keep): the first of them to come back are dropped while the
// node has more than its most alive, and a request must not wait for
// one of those.
func (l *Lazy) claimable() int { return len(l.returning) - max(l.alive-l.most, 0) }

// Made says the user Ask named last (Make) is made: the next Ask names
// the one after it. A driver that failed to make it does not call Made,
// and the id is asked again.
func (l *Lazy) Made() { l.made++; l.alive++ }

// Unclaim ends a wait that Ask counted on a user given back (Claim):
// given an idle user, or given up.
func (l *Lazy) Unclaim() { l.claimed-- }

// GivenBack notes that user id was given back and is on its way to
// being idle (once its release runs): a request at the most claims it
// rather than be refused. Counted once, however often it is said.
func (l *Lazy) GivenBack(id proc.ID) {
	if l.returning == nil {
		l.returning = map[proc.ID]bool{}
	}
	l.returning[id] = true
}

// Returned notes that user id is not on its way back any more: a
// request took it idle, or it was dropped (Keep). A driver whose
// requests may look for an idle user before a user given back gets
// there (the service's channel of idle slots) says so only once it is
// taken, so that such a request may still claim it; one whose inputs are
// each whole (the model) may say so as soon as it is idle. Nothing for
// a user not given back.
func (l *Lazy) Returned(id proc.ID) { delete(l.returning, id) }

// Keep reports whether a user going idle is kept for the node's next
// request: only while the node has at most its most users alive (all,
// with no limit), so that the users made past it for regrants go as
// their grants go back, and their ids are not given again. A user not
// kept is dropped (Dropped). Counting the idle ones instead let a node
// that adopted grants past its most serve past it for good: a request
// that took an idle user before the next came back kept room for it.
func (l *Lazy) Keep() bool { return l.most == 0 || l.alive <= l.most }

// Dropped says a user Keep did not keep is gone: it counts no more
// towards the most.
func (l *Lazy) Dropped() { l.alive-- }

// Len is how many users the node made, the dropped ones too.
func (l *Lazy) Len() int { return l.made }

// Alive is how many users the node made and did not drop.
func (l *Lazy) Alive() int { return l.alive }

// Most is the most users the node makes but for regrants (0: no limit).
func (l *Lazy) Most() int { return l.most }
