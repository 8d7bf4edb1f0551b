package hashpool

import "github.com/allot-dev/allot/proc"

// Ask is attempt Seq of a client's current request, to one allocator.
type Ask struct{ Seq uint32 }

// Busy answers an Ask when the allocator has no free unit.
type Busy struct{ Seq uint32 }

// Forward tells the client a free unit is parked at to hand it to To.
type Forward struct {
	Unit int32
	To   proc.ID
}

// Give carries a unit to its next user.
type Give struct{ Unit int32 }

// Free registers a released unit, parked at its sender, with its allocator.
type Free struct{ Unit int32 }

func (Ask) Kind() string     { return "ask" }
func (Busy) Kind() string    { return "busy" }
func (Forward) Kind() string { return "forward" }
func (Give) Kind() string    { return "give" }
func (Free) Kind() string    { return "free" }

// Retry is the timer of a client's next round of probes.
type Retry struct{ Seq uint32 }
