package client

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/internal/apiwire"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Protocol is what a Client's Lock, Unlock, Acquire and Release travel
// on (WithProtocol). Every other call (sessions, keep-alives, Take, ...)
// is a gRPC call on any protocol.
type Protocol string

// The protocols.
const (
	// ProtocolNative, the default: the node's native protocol, the same
	// Calls as gRPC's stream on a connection of their own, without
	// HTTP/2 (fewer allocations, and a Lock+Unlock some 5 % faster on a
	// quiet machine: docs/service.md, *The API's native protocol*). A
	// node that does not speak it (an older version, or one served
	// without its split port) is called on gRPC, and asked again a
	// minute later.
	ProtocolNative Protocol = "native"
	// ProtocolGRPC: the gRPC API's Calls stream only.
	ProtocolGRPC Protocol = "grpc"
)

// WithProtocol sets what the Client's calls travel on (default
// ProtocolNative). Both mean the same and fail the same; Client.Protocols
// says what each node's calls went on.
func WithProtocol(p Protocol) Option {
	return func(o *options) error {
		switch p {
		case ProtocolNative, ProtocolGRPC:
			o.protocol = p
			return nil
		}
		return fmt.Errorf("unknown protocol %q (want %q or %q)", p, ProtocolNative, ProtocolGRPC)
	}
}

// Protocols says, for each node in the order Dial was given them, what
// its Locks, Unlocks, Acquires and Releases went on: "native", "grpc" (the
// Calls stream on gRPC), "unary" (a node without Calls), or "" (none
// made yet).
func (c *Client) Protocols() []string {
	ps := make([]string, len(c.api))
	for i, a := range c.api {
		ps[i] = a.protocol()
	}
	return ps
}

// nativeDialer opens native connections to one node.
type nativeDialer struct {
	addr  string
	tls   *tls.Config // nil: plain TCP
	token string
	wait  time.Duration // the handshake's bound (0: apiwire.HandshakeWait)
}

// dial opens a connection to the node and has it accepted: an error
// that isRefusal is the node's refusal (it speaks the protocol); one that
// isDialError did not reach the node; one that isSilent reached it and
// was not answered in the handshake's time (a frozen or starved node:
// one that does not speak the protocol closes the connection, as gRPC
// does on a greeting not its own); any other, the node did not answer
// as the protocol does.
func (d *nativeDialer) dial() (*nativeConn, error) {
	wait := cmp.Or(d.wait, apiwire.HandshakeWait)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	raw, err := (&net.Dialer{}).DialContext(ctx, "tcp", d.addr)
	if err != nil {
		return nil, dialError{err}
	}
	raw.SetDeadline(time.Now().Add(wait))
	c := raw
	fail := func(err error) (*nativeConn, error) {
		raw.Close()
		if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
			return nil, silence{err}
		}
		return nil, err
	}
	if _, err := io.WriteString(raw, apiwire.Preface); err != nil {
		return fail(err)
	}
	if d.tls != nil {
		cfg := d.tls
		if cfg.ServerName == "" {
			cfg = cfg.Clone()
			cfg.ServerName, _, _ = net.SplitHostPort(d.addr)
		}
		tc := tls.Client(raw, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return fail(err)
		}
		c = tc
	}
	w := apiwire.NewConn(c)
	if err := w.Write(&pb.CallsHello{Token: d.token}); err != nil {
		return fail(err)
	}
	if err := w.ReadPreface(); err != nil {
		return fail(err)
	}
	var r pb.CallResult
	if err := w.Read(&r, apiwire.MaxHello); err != nil {
		return fail(err)
	}
	if r.Id != 0 || r.Response != nil {
		return fail(errors.New("not the protocol's answer to a hello"))
	}
	if r.Error != nil {
		return fail(refusal{callError(r.Error)})
	}
	raw.SetDeadline(time.Time{})
	return &nativeConn{w: w}, nil
}

// silence is a native connection the node took and did not answer in
// the handshake's time.
type silence struct{ err error }

func (s silence) Error() string { return "the node did not answer: " + s.err.Error() }
func (s silence) Unwrap() error { return s.err }

func isSilent(err error) bool { return errors.As(err, new(silence)) }

// refusal is the node's refusal of a native connection.
type refusal struct{ err error }

func (r refusal) Error() string { return r.err.Error() }
func (r refusal) Unwrap() error { return r.err }

// GRPCStatus makes the refusal's status the error's, as gRPC's would be.
func (r refusal) GRPCStatus() *status.Status { return status.Convert(r.err) }

func isRefusal(err error) bool { return errors.As(err, new(refusal)) }

// dialError is a native connection that did not reach the node.
type dialError struct{ err error }

func (d dialError) Error() string { return d.err.Error() }
func (d dialError) Unwrap() error { return d.err }

func isDialError(err error) bool { return errors.As(err, new(dialError)) }

// callError is a CallError's status, as an error.
func callError(e *pb.CallError) error {
	return status.FromProto(&spb.Status{Code: e.Code, Message: e.Message, Details: e.Details}).Err()
}

// nativeConn is an accepted native connection, as a Calls stream.
type nativeConn struct {
	w *apiwire.Conn
}

func (n *nativeConn) Send(m *pb.Call) error { return n.w.Write(m) }

// Recv reads the next result; the node's refusal of the connection (a
// result of id 0, which no call has) is its error.
func (n *nativeConn) Recv() (*pb.CallResult, error) {
	r := new(pb.CallResult)
	if err := n.w.Read(r, 0); err != nil {
		return nil, err
	}
	if r.Id == 0 {
		if r.Error != nil {
			return nil, callError(r.Error)
		}
		return nil, status.Error(codes.Internal, "a result of no call on the native connection")
	}
	return r, nil
}

func (n *nativeConn) close() { n.w.Net().Close() }
