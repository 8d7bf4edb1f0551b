package controller

import (
	"slices"

	"github.com/allot-dev/allot/algo/spantree"
	"github.com/allot-dev/allot/proc"
)

// messages declares every message type the controllers send: the tree's
// and the waves', then their own.
var messages = slices.Concat(spantree.Messages, []proc.Message{Req{}, Permit{}, Reject{}, Later{}})

// Req asks for permits on behalf of a bin at level Level (−1: a local
// bin). It travels up the tree to the bin's supervisor, which knows from
// the level how many permits are asked for: Cap of the asking bin.
type Req struct{ Level int8 }

// Permit answers a Req with as many permits as the asking bin holds.
type Permit struct{}

// NameRange answers a Req in name assignment (§6.2): the asking bin's
// capacity of names, from Lo on (O(log n) bits).
type NameRange struct{ Lo int64 }

// Reject answers a Req when the resource is exhausted.
type Reject struct{}

// Later answers a Req that the closing iteration of the modified
// controller cannot satisfy: ask again in the next iteration.
type Later struct{}

// NReq, NPermit and NLater are Req, Permit and Later of CONTROLLER-N,
// the main controller's controller of admissions (§5). It never rejects.
type (
	NReq    struct{ Level int8 }
	NPermit struct{}
	NLater  struct{}
)

// Join asks the tree parent for admission to the participants (§5): a
// node joins only with a permit of CONTROLLER-N, taken at its parent.
type Join struct{}

// Admit makes the receiver a participant, the sender's child in the
// participants' tree, in the iteration that began with N participants.
type Admit struct{ N int32 }

// AdmitW is Admit in the modified controller over MAIN (§6.1), with the
// stage's waste W_s, from which the receiver computes CONTROLLER-R's Λ.
type AdmitW struct {
	N int32
	W int64
}

// Welcome is Admit in name assignment (§6.2), with the receiver's name.
type Welcome struct {
	N    int32
	Name int64
}

func (Req) Kind() string       { return "req" }
func (Permit) Kind() string    { return "permit" }
func (NameRange) Kind() string { return "names" }
func (Reject) Kind() string    { return "reject" }
func (Later) Kind() string     { return "later" }
func (NReq) Kind() string      { return "nreq" }
func (NPermit) Kind() string   { return "npermit" }
func (NLater) Kind() string    { return "nlater" }
func (Join) Kind() string      { return "join" }
func (Admit) Kind() string     { return "admit" }
func (AdmitW) Kind() string    { return "admitw" }
func (Welcome) Kind() string   { return "welcome" }
