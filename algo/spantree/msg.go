package spantree

import "github.com/allot-dev/allot/proc"

// Messages declares the tree's and the waves' message types, for the
// algorithms built on them to list with their own (algo.Algorithm.Messages).
var Messages = []proc.Message{Explore{}, Ack{}, Bcast{}, Echo{}}

// Explore spreads the diffusing computation that builds the tree: the
// sender is at depth Depth, so a node that joins through it is at Depth+1.
type Explore struct{ Depth int32 }

// Ack answers an Explore. Child is true when the sender took the receiver
// as its parent; Size is then the number of nodes of the sender's subtree.
type Ack struct {
	Child bool
	Size  int32
}

// Bcast is one broadcast of a wave down the tree. Op and Arg are the
// algorithm's: what to do, and one number to do it with.
type Bcast struct {
	Seq uint32
	Op  uint8
	Arg int64
}

// Echo carries the sum of a subtree's contributions to wave Seq up to the
// parent.
type Echo struct {
	Seq uint32
	Sum int64
}

func (Explore) Kind() string { return "explore" }
func (Ack) Kind() string     { return "ack" }
func (Bcast) Kind() string   { return "bcast" }
func (Echo) Kind() string    { return "echo" }
