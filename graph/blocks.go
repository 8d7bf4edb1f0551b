package graph

import (
	"fmt"

	"github.com/allot-dev/allot/proc"
)

// Blocks is a tree on users 0..users-1 taken in blocks of block users:
// each block's users in a star round its first user, and the blocks'
// first users in a star round user 0. The service runs its instances on
// fixed slots (a quota's, a small semaphore's) on it, a block a node, so
// that most of their messages stay inside a node; the data-path
// simulator builds the same.
func Blocks(users, block int) (*Graph, error) {
	if users < 1 || block < 1 {
		return nil, fmt.Errorf("graph: blocks of %d users, %d a block: want both positive", users, block)
	}
	var edges [][2]proc.ID
	for u := range users {
		hub := proc.ID(u / block * block)
		switch {
		case proc.ID(u) != hub:
			edges = append(edges, [2]proc.ID{hub, proc.ID(u)})
		case u != 0:
			edges = append(edges, [2]proc.ID{0, proc.ID(u)})
		}
	}
	return New(users, edges)
}
