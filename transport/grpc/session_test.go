package grpc

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/allot-dev/allot/proc"
)

// script is a stream whose peer side is a fixed list of frames.
type script struct {
	in   []*frame
	sent []*frame
}

func (s *script) Send(fs ...*frame) error { s.sent = append(s.sent, fs...); return nil }
func (s *script) Recv(f *frame) error {
	if len(s.in) == 0 {
		return io.EOF
	}
	*f, s.in = *s.in[0], s.in[1:]
	return nil
}

// bytesCodec carries a message's kind as its bytes.
type bytesCodec struct{}

type kindMsg string

func (k kindMsg) Kind() string { return string(k) }

func (bytesCodec) AppendMessage(b []byte, m proc.Message) ([]byte, error) {
	return append(b, m.Kind()...), nil
}
func (bytesCodec) DecodeMessage(b []byte) (proc.Message, error) { return kindMsg(b), nil }

// TestSessionDeliversOnce feeds a session a resend of what it has already
// delivered, then a gap: it delivers each sequence number once, in order,
// and drops the stream at the gap.
func TestSessionDeliversOnce(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := New(Config{Node: "a", Listener: lis, Place: func(string, proc.ID) (string, bool) { return "a", true }, Codec: bytesCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	got := make(chan string, 10)
	tr.Register(1, func(_ proc.ID, m proc.Message) { got <- m.Kind() })
	p := &peer{t: tr, name: "b", restored: make(chan struct{})}
	data := func(seq uint64, s string) *frame {
		return &frame{Kind: frameData, Seq: seq, From: 2, To: 1, Payload: []byte(s)}
	}
	s := &script{in: []*frame{data(1, "x"), data(2, "y"), data(1, "x again"), data(2, "y again"), data(3, "z"), data(5, "after a gap"), data(4, "never")}}
	ctx, cancel := context.WithCancel(context.Background())
	p.serve(ctx, cancel, s, &frame{Kind: frameHello, Node: "b"}, true)
	var seen []string
	for len(seen) < 3 {
		select {
		case k := <-got:
			seen = append(seen, k)
		case <-time.After(5 * time.Second):
			t.Fatalf("delivered %v", seen)
		}
	}
	time.Sleep(10 * time.Millisecond)
	select {
	case k := <-got:
		seen = append(seen, k)
	default:
	}
	if len(seen) != 3 || seen[0] != "x" || seen[1] != "y" || seen[2] != "z" {
		t.Errorf("delivered %v, want [x y z]", seen)
	}
	if p.delivered != 3 {
		t.Errorf("the session counts %d delivered, want 3", p.delivered)
	}
}
