package pool

// The two message types of R-RESOURCES (§3: record Σ). The SENDER field of
// the paper is the sender the driver hands to Deliver. A message carries
// the sender's threshold for the link (rule 2) and a copy of its row
// m[k,1..R] at sending: M[r] is true when the sender holds that unit r is
// on the receiver's side of the link.

// Request is sent when the sender lacks units: for itself or for the
// neighbours queued at it. It may carry units (M[r] newly true) passed on
// towards a requester.
type Request struct {
	TH int64
	M  []bool
}

// Release is sent when the sender has enough units for itself and every
// neighbour queued at it; it carries the units handed over.
type Release struct {
	TH int64
	M  []bool
}

func (Request) Kind() string { return "request" }
func (Release) Kind() string { return "release" }
