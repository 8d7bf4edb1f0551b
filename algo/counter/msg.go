package counter

import (
	"slices"

	"github.com/allot-dev/allot/algo/spantree"
	"github.com/allot-dev/allot/proc"
)

// messages declares the counter's message types: the tree's, then its own.
var messages = slices.Concat(spantree.Messages, []proc.Message{Ask{}, Answer{}})

// Ask carries one request for a permit, made at Origin, up the tree to
// the root.
type Ask struct{ Origin int32 }

// Answer carries the root's verdict back down to Origin.
type Answer struct {
	Origin int32
	OK     bool
}

func (Ask) Kind() string    { return "ask" }
func (Answer) Kind() string { return "answer" }
