package modular

// The messages of Figs. 4 and 5. Positions are 1-based as in the paper.
//
//	user i ──report──▶ rm_k      ask for the occupied positions of q_k
//	user i ◀──marked── rm_k      occupied positions and their predecessors
//	user i ──select(p)─▶ rm_k    i takes position p in q_k
//	user i ◀──grant─── rm_k      i is at position 1 of q_k
//	user i ◀──dec(p)── rm_k      position p−1 of q_k is free
//	user i ──advance(p)▶ rm_k    move i from p to p−1 in q_k
//	user i ──release─▶ rm_k      i has left its critical region

// report asks a resource manager for its marked positions.
type report struct{}

// marked lists the positions of q_k a selecting user must avoid: every
// occupied position j and its predecessor j−1 (Fig. 5 line 2). It is a fresh
// slice, never touched again by the sender.
type marked struct{ Pos []int32 }

// choose is select(p) in the paper (select is a Go keyword).
type choose struct{ P int32 }

// grant gives the resource to the user at position 1.
type grant struct{}

// dec(p) tells the occupant of p that position p−1 is free.
type dec struct{ P int32 }

// advance(p) allows the manager to move the user from p to p−1.
type advance struct{ P int32 }

// release gives the resource back.
type release struct{}

// Kinds are prefixed so that they never merge, in per-kind message counts,
// with a subroutine's messages of the same name (a subroutine's own grant
// and release, say).
func (report) Kind() string  { return "modular.report" }
func (marked) Kind() string  { return "modular.marked" }
func (choose) Kind() string  { return "modular.select" }
func (grant) Kind() string   { return "modular.grant" }
func (dec) Kind() string     { return "modular.dec" }
func (advance) Kind() string { return "modular.advance" }
func (release) Kind() string { return "modular.release" }
