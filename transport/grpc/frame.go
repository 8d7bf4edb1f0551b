package grpc

import (
	"encoding/binary"
	"errors"
)

// frameKind is what a frame on a link stream carries.
type frameKind uint8

const (
	frameHello frameKind = iota + 1 // who is speaking, and what it has delivered
	frameData                       // one message, with its sequence number
	frameAck                        // everything up to Ack has been delivered
	framePing                       // nothing: the plain carrier's keep-alive (plain.go)
)

// frame is one unit on a stream. Ack is cumulative: every data frame
// numbered up to Ack has been delivered (hello and ack frames). A hello's
// Seq is the speaker's incarnation and its Payload the listener's as the
// speaker knows it (a uvarint, 0 for none): an Ack about an earlier run of
// the listener means nothing to it.
type frame struct {
	Kind     frameKind
	Seq      uint64 // data
	Ack      uint64 // hello, ack
	From, To int32  // data: the processes
	Node     string // hello: the speaker; data: the space of From and To
	Payload  []byte // data: the message, encoded by the Codec
}

// appendFrame appends f: its kind, then uvarints and zigzag varints, then
// the node name or space, then the payload. On a stream, frames travel in
// batches inside a wrapperspb.BytesValue (see wire), so that the link
// service can share a gRPC server with protobuf services (a forced server
// codec would apply to all of them).
func appendFrame(b []byte, f *frame) []byte {
	b = append(b, byte(f.Kind))
	b = binary.AppendUvarint(b, f.Seq)
	b = binary.AppendUvarint(b, f.Ack)
	b = binary.AppendVarint(b, int64(f.From))
	b = binary.AppendVarint(b, int64(f.To))
	b = binary.AppendUvarint(b, uint64(len(f.Node)))
	b = append(b, f.Node...)
	return append(b, f.Payload...)
}

// frameBound is at least the length of f's encoding.
func frameBound(f *frame) int {
	return 1 + 4*binary.MaxVarintLen64 + binary.MaxVarintLen64 + len(f.Node) + len(f.Payload)
}

var errFrame = errors.New("link: malformed frame")

// parseFrame reads a frame appendFrame wrote; f.Payload aliases data. A
// frame read into again keeps its Node string when the name is the same
// (the reader's frames are mostly of one space), instead of allocating it
// anew.
func parseFrame(data []byte, f *frame) error {
	if len(data) == 0 {
		return errFrame
	}
	f.Kind, data = frameKind(data[0]), data[1:]
	var n int
	if f.Seq, n = binary.Uvarint(data); n <= 0 {
		return errFrame
	}
	data = data[n:]
	if f.Ack, n = binary.Uvarint(data); n <= 0 {
		return errFrame
	}
	data = data[n:]
	var from, to int64
	if from, n = binary.Varint(data); n <= 0 || int64(int32(from)) != from {
		return errFrame
	}
	data = data[n:]
	if to, n = binary.Varint(data); n <= 0 || int64(int32(to)) != to {
		return errFrame
	}
	data = data[n:]
	f.From, f.To = int32(from), int32(to)
	l, n := binary.Uvarint(data)
	if n <= 0 || l > uint64(len(data)-n) {
		return errFrame
	}
	if name := data[n : n+int(l)]; string(name) != f.Node {
		f.Node = string(name)
	}
	f.Payload = data[n+int(l):]
	if f.Kind < frameHello || f.Kind > frameAck {
		return errFrame
	}
	return nil
}
