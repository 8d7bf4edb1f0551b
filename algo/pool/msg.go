package pool

// The two message types of R-RESOURCES (§3: record Σ). The SENDER field of
// the paper is the sender the driver hands to Deliver. A message carries
// the sender's threshold for the link (rule 2) and a copy of its row
// m[k,1..R] at sending: M[r] is true when the sender holds that unit r is
// on the receiver's side of the link.
//
// Gave is not the paper's: it serves the trace only. Gave[r] is the TH of
// the sender's latest message that passed unit r over this link (0: none),
// so that the receiver, taking r, can tell a unit that arrives (a give it
// had not taken yet: the move event) from one that never left it (its own
// give of r, annulled by this crossing message). M alone cannot tell them
// apart. Nothing in the algorithm reads it.

// Request is sent when the sender lacks units: for itself or for the
// neighbours queued at it. It may carry units (M[r] newly true) passed on
// towards a requester.
type Request struct {
	TH   int64
	M    []bool
	Gave []int64
}

// Release is sent when the sender has enough units for itself and every
// neighbour queued at it; it carries the units handed over.
type Release struct {
	TH   int64
	M    []bool
	Gave []int64
}

func (Request) Kind() string { return "request" }
func (Release) Kind() string { return "release" }
