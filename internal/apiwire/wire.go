// Package apiwire is the framing of the API's native protocol: the Calls
// of api/allot/v1 without gRPC, on a connection of their own to a node's
// one port. The node (package service) and the Go client (package
// client) both speak it; the protocol is described in docs/service.md,
// *What crosses the wire*.
//
// A connection begins with the caller's Preface (before TLS, in a secure
// cluster); the node answers with the same Preface (after TLS), which
// tells the caller it speaks the protocol: a node of an earlier version
// closes the connection, or answers as HTTP/2. Then each side sends
// frames: an unsigned varint length, 0 to MaxFrame, and that many bytes
// of one protobuf message (0: one with every field at its default, such
// as the hello of a caller without a token). The caller's first frame is
// a CallsHello, answered by a CallResult of id 0: without an error the
// connection is accepted; with one it is refused, and closed. Then the
// caller sends Calls and the node CallResults, as on the gRPC stream. A
// frame that breaks the protocol is answered by a CallResult of id 0 (or
// of the call's id) with the error, and the connection closed.
package apiwire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
)

// Preface is what a native connection begins with. Its first bytes tell it
// from gRPC's (an HTTP/2 preface, "PRI * ...", or a TLS ClientHello) and
// from the nodes' links ("allot-link/1\n"); a node takes every connection
// that begins with PrefaceFamily as the native protocol's, and closes one
// of a version it does not know.
const (
	Preface       = "allot-api/1\n"
	PrefaceFamily = "allot-api/"
)

// Limits. MaxFrame is gRPC's default largest message, so that no call
// the gRPC API takes is refused here; MaxHello bounds the first frame,
// read before the caller is known.
const (
	MaxFrame = 4 << 20
	MaxHello = 4 << 10
)

// HandshakeWait bounds a connection's setup: the preface, the TLS
// handshake, the hello and its answer.
const HandshakeWait = 5 * time.Second

// ErrFrame marks a frame longer than the limit (a *FrameError says
// which).
var ErrFrame = errors.New("bad frame")

// FrameError is a frame refused for its length.
type FrameError struct {
	Len, Limit uint64
}

func (e *FrameError) Error() string {
	return fmt.Sprintf("a frame of %d bytes, over the limit of %d", e.Len, e.Limit)
}

// Is makes errors.Is(err, ErrFrame) hold.
func (e *FrameError) Is(target error) bool { return target == ErrFrame }

// Conn reads and writes frames on a connection. Reads are for one
// goroutine at a time; writes may come from many: a write made while
// another is on the socket joins the next one, so that the frames of
// calls (or answers) made at once leave in one write.
type Conn struct {
	c net.Conn
	r *bufio.Reader

	mu       sync.Mutex
	buf      []byte // frames waiting for the writer
	spare    []byte
	flushing bool  // a writer is on the socket
	err      error // the write that failed, for good
}

// NewConn frames c.
func NewConn(c net.Conn) *Conn {
	return &Conn{c: c, r: bufio.NewReaderSize(c, 32<<10)}
}

// Net is the connection under the frames.
func (w *Conn) Net() net.Conn { return w.c }

// ErrPreface is a far side that did not answer with Preface: not a node
// of the protocol.
var ErrPreface = errors.New("not the native protocol's preface")

// ReadPreface reads Preface, which the node sends before its first frame.
func (w *Conn) ReadPreface() error {
	b := make([]byte, len(Preface))
	if _, err := io.ReadFull(w.r, b); err != nil {
		return err
	}
	if string(b) != Preface {
		return ErrPreface
	}
	return nil
}

// Read reads the next frame into m; a frame over limit bytes (0:
// MaxFrame) is an error (ErrFrame), as is one that is not m's encoding.
func (w *Conn) Read(m proto.Message, limit int) error {
	if limit <= 0 {
		limit = MaxFrame
	}
	l, err := binary.ReadUvarint(w.r)
	if err != nil {
		return err
	}
	if l > uint64(limit) {
		return &FrameError{Len: l, Limit: uint64(limit)}
	}
	b := make([]byte, l)
	if _, err := io.ReadFull(w.r, b); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return proto.Unmarshal(b, m)
}

// Write writes m as one frame: at once, or with the writes of others
// made meanwhile. An error is the connection's; a write that joined
// another's may return nil and fail with it (the reader then sees the
// connection broken).
func (w *Conn) Write(m proto.Message) error {
	b, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	w.mu.Lock()
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return err
	}
	w.buf = binary.AppendUvarint(w.buf, uint64(len(b)))
	w.buf = append(w.buf, b...)
	if w.flushing {
		w.mu.Unlock()
		return nil
	}
	w.flushing = true
	for len(w.buf) > 0 && w.err == nil {
		out := w.buf
		w.buf = w.spare[:0]
		w.mu.Unlock()
		_, err := w.c.Write(out)
		w.mu.Lock()
		w.spare = out[:0]
		if err != nil {
			w.err = err
		}
	}
	w.flushing = false
	err = w.err
	w.mu.Unlock()
	return err
}
