package service

// Session and grant ids are uint64 on the wire, but every id a node issues
// is below 2^53, so it is exact in every language's numbers (a JavaScript
// number, a JSON reader that parses into doubles), with no change to the
// .proto: a client built from the old one reads the same field. An id is
//
//	node (6 bits) | run (15 bits) | counter (32 bits)
//
// so ids are unique in the cluster (the node) and across restarts (the
// run: the start's number in the node's store, or the clock when nothing
// outlives the process): a client of the node's previous run must not
// find its session id given to someone else. The run repeats after 32,768
// starts of one data directory; by then no client of that old run is left.
const (
	idBits      = 53
	idNodeBits  = 6
	idRunBits   = 15
	idCountBits = idBits - idNodeBits - idRunBits

	// MaxNodes is the largest cluster: the node is 6 bits of an id.
	MaxNodes = 1 << idNodeBits
)

// MaxID is one above the largest id a node issues (2^53).
const MaxID = 1 << idBits

// firstID is the id before the first of node self's run.
func firstID(self int, run uint64) uint64 {
	return uint64(self)<<(idRunBits+idCountBits) | run&(1<<idRunBits-1)<<idCountBits
}

// ownRun reports whether id is of this node's run: its node and run bits
// are those of the ids the node issues now.
func (n *Node) ownRun(id uint64) bool {
	return id>>idCountBits == n.ids.Load()>>idCountBits
}
