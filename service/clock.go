package service

import (
	"encoding/binary"
	"errors"
	"sync/atomic"

	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/proc"
)

// clock is a node's Lamport clock. Every message a node sends to another
// carries the clock's time (a tick), the receiver moves its clock up to it
// before the message is delivered, and every grant takes a tick as its
// fencing counter. Two holders of a resource are always linked by a chain
// of messages from the first one's release to the second one's grant (no
// message-passing algorithm can exclude without one), so along the holders
// of a resource the counters strictly increase: a fencing token carried by
// the forks, bottles and queue positions themselves, with no message of
// its own and no consensus.
type clock struct{ t atomic.Uint64 }

// tick advances the clock and returns the new time.
func (c *clock) tick() uint64 { return c.t.Add(1) }

// witness moves the clock up to t.
func (c *clock) witness(t uint64) {
	for {
		cur := c.t.Load()
		if t <= cur || c.t.CompareAndSwap(cur, t) {
			return
		}
	}
}

// stampCodec is the codec of node-to-node messages: the sender's time,
// then the message.
type stampCodec struct {
	c     *codec.Codec
	clock *clock
}

func (s stampCodec) AppendMessage(b []byte, m proc.Message) ([]byte, error) {
	return s.c.AppendMessage(binary.AppendUvarint(b, s.clock.tick()), m)
}

var errStamp = errors.New("message without a time")

func (s stampCodec) DecodeMessage(b []byte) (proc.Message, error) {
	t, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, errStamp
	}
	s.clock.witness(t)
	return s.c.DecodeMessage(b[k:])
}
