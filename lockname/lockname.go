// Package lockname is the pure part of how the nodes of a view agree on
// a lock name's resource id (the service's names.go): each name's home
// among the view's members (rendezvous hashing, Home), and the ids a home
// gives the names it is asked first, of its own range (ID). It is shared
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
