package modular

import "github.com/allot-dev/allot/proc"

// The messages of Figs. 4 and 5. Positions are 1-based as in the paper.
//
//	user i ──report──▶ rm_k      ask for the occupied positions of q_k
//	user i ◀──marked── rm_k      occupied positions and their predecessors
//	user i ──select(p)─▶ rm_k    i takes position p in q_k
//	user i ◀──grant─── rm_k      i is at position 1 of q_k
//	user i ◀──dec(p)── rm_k      position p−1 of q_k is free
//	user i ──advance(p)▶ rm_k    move i from p to p−1 in q_k
//	user i ──release─▶ rm_k      i has left its critical region

// Report asks a resource manager for its marked positions.
type Report struct{}

// Marked lists the positions of q_k a selecting user must avoid: every
// occupied position j and its predecessor j−1 (Fig. 5 line 2). It is a fresh
// slice, never touched again by the sender.
type Marked struct{ Pos []int32 }

// Select is select(p) in the paper: the user takes position P.
type Select struct{ P int32 }

// Grant gives the resource to the user at position 1.
type Grant struct{}

// Dec is dec(p): it tells the occupant of p that position p−1 is free.
type Dec struct{ P int32 }

// Advance is advance(p): it allows the manager to move the user from p to p−1.
type Advance struct{ P int32 }

// Release gives the resource back.
type Release struct{}

var messages = []proc.Message{Report{}, Marked{}, Select{}, Grant{}, Dec{}, Advance{}, Release{}}

// Kinds are prefixed so that they never merge, in per-kind message counts,
// with a subroutine's messages of the same name (a subroutine's own grant
// and release, say).
func (Report) Kind() string  { return "modular.report" }
func (Marked) Kind() string  { return "modular.marked" }
func (Select) Kind() string  { return "modular.select" }
func (Grant) Kind() string   { return "modular.grant" }
func (Dec) Kind() string     { return "modular.dec" }
func (Advance) Kind() string { return "modular.advance" }
func (Release) Kind() string { return "modular.release" }
