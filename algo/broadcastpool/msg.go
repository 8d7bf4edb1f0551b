package broadcastpool

// Ask is a requester's broadcast: attempt Seq of its current request.
type Ask struct{ Seq uint32 }

// Offer answers an Ask with a free unit, which moves to the requester with
// the message.
type Offer struct {
	Seq  uint32
	Unit int32
}

// Busy answers an Ask when the node has no free unit.
type Busy struct{ Seq uint32 }

func (Ask) Kind() string   { return "ask" }
func (Offer) Kind() string { return "offer" }
func (Busy) Kind() string  { return "busy" }

// Retry is the timer of a requester's next attempt.
type Retry struct{ Seq uint32 }
