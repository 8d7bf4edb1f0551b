package chunk

import "slices"

// Size is C for a quota of waste w on n nodes: the ledger holds back C
// per member away from a view beyond its last report, so nodes lost
// together hold back at most n·C ≤ w/2 (and a report round moves at
// least one permit).
func Size(w, n int) uint64 { return uint64(max(1, w/(2*max(n, 1)))) }

// Quotas is one node's quotas, by index: the view its limits are of, and
// per quota the limit the control log allows the node's count in that
// view, the count on disk, and the permits reserved (asked of the view's
// instance, neither on disk yet nor given up). Its driver guards it (its
// methods take no lock) and writes the counts to disk itself.
type Quotas struct {
	epoch   uint64   // the view the limits are of (0: none)
	limit   []uint64 // 0 (none given too): nothing may be issued
	count   []uint64 // on disk
	pending []uint64 // reserved
}

// New is a node's quotas, one per count given (its counts on disk), with
// no view and nothing reserved: nothing may be issued until Set.
func New(counts []uint64) *Quotas {
	k := len(counts)
	return &Quotas{limit: make([]uint64, k), count: slices.Clone(counts), pending: make([]uint64, k)}
}

// Len is the number of quotas.
func (q *Quotas) Len() int { return len(q.count) }

// Set takes the limits of view epoch: limit(i) is what quota i's count
// may reach in it (control.Node.Limit; ok false: nothing). It reports
// whether one more permit may now be within a limit where it was not: the
// view changed, or a limit grew.
func (q *Quotas) Set(epoch uint64, limit func(i int) (uint64, bool)) (grew bool) {
	grew = epoch != q.epoch
	q.epoch = epoch
	for i := range q.limit {
		l, ok := limit(i)
		if !ok {
			l = 0
		}
		grew = grew || l > q.limit[i]
		q.limit[i] = l
	}
	return grew
}

// Reserve reserves one permit of quota i in view epoch, if the limits are
// of that view and the count plus the reservations stays below its
// limit; else it reserves nothing (the caller waits for Set).
func (q *Quotas) Reserve(epoch uint64, i int) bool {
	if q.epoch != epoch || q.count[i]+q.pending[i] >= q.limit[i] {
		return false
	}
	q.pending[i]++
	return true
}

// Overdraw reserves one permit of quota i whatever its limit: no correct
// node does; a broken one (dataplane.QuotaNoChunk) shows what Reserve's
// check is for.
func (q *Quotas) Overdraw(i int) { q.pending[i]++ }

// Settle ends k of quota i's reservations (k at most those made),
// issued or not; count is quota i's count on disk now (0, or anything
// not above the count: unchanged — Takes that write the disk at once may
// settle out of order).
func (q *Quotas) Settle(i, k int, count uint64) {
	q.pending[i] -= uint64(k)
	q.count[i] = max(q.count[i], count)
}

// Count is quota i's count on disk.
func (q *Quotas) Count(i int) uint64 { return q.count[i] }

// Counts is the counts on disk, one per quota (a copy).
func (q *Quotas) Counts() []uint64 { return slices.Clone(q.count) }
