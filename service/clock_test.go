package service

import (
	"testing"

	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/codec"
)

// TestStampCarriesTime sends a message from a node whose clock is far
// ahead: the receiver's next tick, which a grant there would take, must be
// above the sender's time at the send. Without the witness on decode (the
// broken variant) it is not.
func TestStampCarriesTime(t *testing.T) {
	cd, err := codec.New(central.Algorithm)
	if err != nil {
		t.Fatal(err)
	}
	var a, b clock
	for range 100 {
		a.tick()
	}
	sent := stampCodec{cd, &a}
	buf, err := sent.AppendMessage(nil, central.Rel{})
	if err != nil {
		t.Fatal(err)
	}
	sendTime := a.t.Load()
	m, err := stampCodec{cd, &b}.DecodeMessage(buf)
	if err != nil || m != (central.Rel{}) {
		t.Fatalf("decoded %v, %v", m, err)
	}
	if got := b.tick(); got <= sendTime {
		t.Errorf("receiver's next tick %d, not above the send's %d", got, sendTime)
	}
	// The broken variant: decoding without the stamp's witness.
	var c clock
	if _, err := cd.DecodeMessage(buf[1:]); err != nil {
		t.Fatal(err)
	}
	if got := c.tick(); got > sendTime {
		t.Errorf("a clock that witnessed nothing ticked to %d", got)
	}
	if _, err := (stampCodec{cd, &b}).DecodeMessage(nil); err == nil {
		t.Error("a message without a time decoded")
	}
}
