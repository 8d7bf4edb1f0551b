// Package lockname is the pure part of how the nodes of a view agree on
// a lock name's resource id (the service's names.go): each name's home
// among the view's members (rendezvous hashing, Home), the ids a home
// gives the names it is asked first, of its own range (ID), and a node's
// table of a view (Table: the ids it gave, within a limit, and the homes'
// answers it keeps). It is shared
// by the service and by the data plane's model (package dataplane), so
// that both place a name at the same member and give it the same id.
//
// Rendezvous hashing is a pure function of the name and the members, so
// every node (and a client that knows the view) computes the same home;
// a member joining or leaving moves only the names it wins or won.
package lockname

import "hash/fnv"

// Home is the member of members (node indices, in any order) whose score
// for name is the largest: the name's home in a view of those members.
// It is -1 when members is empty.
func Home(name string, members []int) int {
	h := fnv.New64a()
	h.Write([]byte(name))
	key := h.Sum64()
	best, bestScore := -1, uint64(0)
	for _, m := range members {
		if s := mix(key ^ uint64(m+1)*0x9e3779b97f4a7c15); best < 0 || s > bestScore {
			best, bestScore = m, s
		}
	}
	return best
}

// mix is splitmix64's finaliser: each bit of x moves about half of the
// result's, so the members' scores for one name are unrelated.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// ID is the k-th id (from 0) a home of rank rank among n members gives
// in a view: rank + n·k, of its own range, so that no two homes give the
// same id and the name's resource manager, placed on member id mod n, is
// at its home.
func ID(rank, n, k int) int { return rank + n*k }

// Table is one view's names at one node: the ids it gave the names homed
// at it, each on the name's first question (Assign: the k-th name gets
// ID(rank, n, k), the same to every later question of the view), and the
// ids the other homes answered it (Learn, Known). Ids are never given
// twice in a view, so two names never share a resource manager. A Table
// is of one view: the next view's names are asked afresh (its members,
// and so the homes, may differ), and its tables are given back then.
// Pure: the service and the model each keep theirs under their own
// rules of concurrency.
type Table[N comparable] struct {
	rank, n, limit int
	next           int
	own, known     map[N]int
}

// NewTable is the table of a node of rank rank in a view of n members
// whose ids stay below limit (0: no limit).
func NewTable[N comparable](rank, n, limit int) *Table[N] {
	return &Table[N]{rank: rank, n: n, limit: limit, own: map[N]int{}, known: map[N]int{}}
}

// Assign is the id of name, homed at this node: the one it was given, or
// the next of the node's range; false once that range is used up (the
// next id would reach the limit).
func (t *Table[N]) Assign(name N) (int, bool) {
	if id, ok := t.own[name]; ok {
		return id, true
	}
	id := ID(t.rank, t.n, t.next)
	if t.limit > 0 && id >= t.limit {
		return 0, false
	}
	t.next++
	t.own[name] = id
	return id, true
}

// Given is the id this node gave name, if it did.
func (t *Table[N]) Given(name N) (int, bool) {
	id, ok := t.own[name]
	return id, ok
}

// Learn keeps what name's home answered: its id (or whatever the caller
// keeps for an answer that gives none).
func (t *Table[N]) Learn(name N, id int) { t.known[name] = id }

// Known is what name's home answered, if it did.
func (t *Table[N]) Known(name N) (int, bool) {
	id, ok := t.known[name]
	return id, ok
}

// Forget drops the answer about name (asked again next time).
func (t *Table[N]) Forget(name N) { delete(t.known, name) }

// Len is how many names the table holds: those given an id here and the
// answers kept.
func (t *Table[N]) Len() int { return len(t.own) + len(t.known) }
