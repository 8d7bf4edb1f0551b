package apiwire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// TestFrames: frames written at once by many arrive whole and each once;
// an empty message is a frame of length 0; a length over the limit is
// ErrFrame, before its bytes are read.
func TestFrames(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	w, r := NewConn(a), NewConn(b)
	const n = 200
	var wg sync.WaitGroup
	for i := range uint64(n) {
		wg.Go(func() {
			if err := w.Write(&pb.Call{Id: i + 1, Request: &pb.Call_Cancel{Cancel: true}}); err != nil {
				t.Error(err)
			}
		})
	}
	seen := map[uint64]bool{}
	for range n {
		var c pb.Call
		if err := r.Read(&c, 0); err != nil {
			t.Fatal(err)
		}
		if seen[c.Id] || !c.GetCancel() {
			t.Fatalf("call %v: seen before %v", &c, seen[c.Id])
		}
		seen[c.Id] = true
	}
	wg.Wait()

	go w.Write(&pb.CallsHello{})
	var h pb.CallsHello
	if err := r.Read(&h, MaxHello); err != nil {
		t.Fatalf("an empty hello: %v", err)
	}

	go a.Write(binary.AppendUvarint(nil, MaxHello+1))
	var fe *FrameError
	if err := r.Read(&h, MaxHello); !errors.Is(err, ErrFrame) || !errors.As(err, &fe) || fe.Len != MaxHello+1 {
		t.Fatalf("a hello over the limit: %v, want a FrameError of %d", err, MaxHello+1)
	}
}

// TestPreface: only the protocol's preface is taken.
func TestPreface(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error
	}{
		{Preface, nil},
		{"allot-api/2\n", ErrPreface},
		{"\x00\x00\x12\x04\x00\x00\x00\x00\x00\x00\x03", io.ErrUnexpectedEOF}, // an HTTP/2 SETTINGS frame's start, cut short
		{"", io.EOF},
	} {
		a, b := net.Pipe()
		go func() { io.WriteString(a, tc.in); a.Close() }()
		if err := NewConn(b).ReadPreface(); !errors.Is(err, tc.want) {
			t.Errorf("preface %q: %v, want %v", tc.in, err, tc.want)
		}
		b.Close()
	}
}

// FuzzRead: no bytes make Read panic or take a frame over its limit.
func FuzzRead(f *testing.F) {
	f.Add([]byte{0})
	f.Add(binary.AppendUvarint(nil, MaxFrame+1))
	f.Add(append(binary.AppendUvarint(nil, 3), 8, 1, 56))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewConn(readConn{r: bytes.NewReader(in)})
		for {
			var c pb.Call
			if err := r.Read(&c, 64); err != nil {
				return
			}
		}
	})
}

// readConn is a net.Conn that reads r; nothing else of it is used.
type readConn struct {
	net.Conn
	r io.Reader
}

func (c readConn) Read(b []byte) (int, error) { return c.r.Read(b) }
