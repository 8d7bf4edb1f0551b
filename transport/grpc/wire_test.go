package grpc

import (
	"testing"

	"google.golang.org/protobuf/types/known/wrapperspb"
)

// sink is a stream that keeps the last message sent.
type sink struct{ last []byte }

func (s *sink) SendMsg(m any) error { s.last = m.(*wrapperspb.BytesValue).Value; return nil }
func (s *sink) RecvMsg(any) error   { return nil }

// TestWireAllocs: a batch of frames costs two allocations however many
// frames it holds (the batch, sized once, and its BytesValue), and reads
// back as sent; reading a frame into the same frame again allocates
// nothing when its space is the same.
func TestWireAllocs(t *testing.T) {
	var fs []*frame
	for i := range 20 {
		fs = append(fs, &frame{Kind: frameData, Seq: uint64(i + 1), From: 3, To: -4, Node: "lock@7:0,1,2", Payload: make([]byte, 5+i*40)})
	}
	fs = append(fs, &frame{Kind: frameAck, Ack: 1 << 40})
	s := &sink{}
	w := &wire{s: s}
	if got := testing.AllocsPerRun(100, func() { w.Send(fs...) }); got > 2 {
		t.Errorf("a batch of %d frames: %v allocations, want at most 2", len(fs), got)
	}
	r := &wire{s: s}
	var f frame
	for i, want := range fs {
		if i == 0 {
			r.rest = s.last
		}
		if err := r.Recv(&f); err != nil {
			t.Fatal(err)
		}
		if f.Seq != want.Seq || f.Ack != want.Ack || f.From != want.From || f.To != want.To || f.Node != want.Node || len(f.Payload) != len(want.Payload) {
			t.Fatalf("frame %d: got %+v, want %+v", i, f, *want)
		}
	}
	b := appendFrame(nil, fs[0])
	if got := testing.AllocsPerRun(100, func() { parseFrame(b, &f) }); got != 0 {
		t.Errorf("parsing a frame of the same space again: %v allocations, want 0", got)
	}
}
