package service

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/internal/apiwire"
	"github.com/allot-dev/allot/mtls"
)

// The native protocol: the API's Calls (Lock, Unlock, Acquire, Release)
// on a TCP connection of their own to the node's one port, without
// HTTP/2 (package internal/apiwire frames it; docs/service.md, *What
// crosses the wire*). Serve splits such connections off the port by
// their preface, beside the nodes' plain links and gRPC; each is served
// by Calls itself, through an adapter of the gRPC stream's interface, so
// a call means and answers the same on both, and is counted in the same
// metrics. Its TLS and token checks are those of the gRPC API (Secure):
// the same certificates, the same tokens, refusals logged the same way.
//
// A node served without Serve, or whose gRPC options are not Secure's (it
// cannot tell what they secure), does not offer it: the Go client then
// calls Calls on gRPC.

// nativeOption is Secure's mark among a node's server options: what the
// native protocol must check, as the gRPC server's options do.
type nativeOption struct {
	grpc.EmptyServerOption
	id *mtls.Identity
	a  authorizer
}

// nativeAPI is the security of the node's native protocol: nil TLS, a
// cluster without it; ok false, none that the node can tell (it does not
// offer the protocol).
func (n *Node) nativeAPI() (tlsCfg *tls.Config, a authorizer, ok bool) {
	for _, o := range n.cfg.ServerOptions {
		if no, is := o.(nativeOption); is {
			return no.id.ServerConfig(), no.a, true
		}
	}
	if n.cfg.ServerOptions != nil || n.cfg.DialOptions != nil {
		return nil, authorizer{}, false
	}
	return nil, authorizer{log: n.log}, true
}

// nativeMethod is the method a refusal is logged under, as the gRPC
// interceptor logs the Calls stream's.
var nativeMethod = clientPrefix + "Calls"

// callsServer is what the native protocol needs of the node: its Calls.
type callsServer interface {
	Calls(pb.Allot_CallsServer) error
}

// native is the node's native listener and the connections it took.
type native struct {
	n   callsServer
	tls *tls.Config
	a   authorizer

	mu     sync.Mutex
	closed bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// serveNative serves the native protocol on l (Serve's split) until l
// closes, then closes the connections it took.
func (n *Node) serveNative(l net.Listener, tlsCfg *tls.Config, a authorizer) {
	s := &native{n: n, tls: tlsCfg, a: a, conns: map[net.Conn]struct{}{}}
	if s.a.log == nil {
		s.a.log = slog.New(slog.DiscardHandler)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			break
		}
		if !s.add(c) {
			c.Close()
			break
		}
		s.wg.Go(func() {
			defer s.drop(c)
			s.serve(c)
		})
	}
	s.mu.Lock()
	s.closed = true
	for c := range s.conns { // any order: each is closed
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *native) add(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *native) drop(c net.Conn) {
	c.Close()
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// refuse logs why the connection from remote was refused, as the gRPC
// interceptor logs a refused call.
func (s *native) refuse(remote net.Addr, err error) {
	s.a.log.Warn("refused a call", "method", nativeMethod, "protocol", "native", "remote", remote.String(), "err", status.Convert(err).Message())
}

// serve runs one native connection: the preface, TLS, the hello, then
// Calls until the caller or the framing ends it.
func (s *native) serve(raw net.Conn) {
	remote := raw.RemoteAddr()
	raw.SetDeadline(time.Now().Add(apiwire.HandshakeWait))
	pre := make([]byte, len(apiwire.Preface))
	if _, err := io.ReadFull(raw, pre); err != nil || string(pre) != apiwire.Preface {
		// Nothing can answer it: in a secure cluster TLS comes next.
		s.refuse(remote, status.Errorf(codes.InvalidArgument, "not the preface %q: %q", apiwire.Preface, pre))
		return
	}
	c := raw
	if s.tls != nil {
		tc := tls.Server(raw, s.tls)
		if err := tc.Handshake(); err != nil {
			s.a.log.Warn("refused a TLS handshake", "protocol", "native", "remote", remote.String(), "err", err)
			return
		}
		c = tc
	}
	if _, err := io.WriteString(c, apiwire.Preface); err != nil {
		return
	}
	w := apiwire.NewConn(c)
	var hello pb.CallsHello
	if err := w.Read(&hello, apiwire.MaxHello); err != nil {
		s.fail(w, remote, 0, wireStatus(err, "the hello"))
		return
	}
	if len(hello.ProtoReflect().GetUnknown()) > 0 {
		s.fail(w, remote, 0, status.Error(codes.FailedPrecondition, "a call before the hello: the first frame must be a CallsHello"))
		return
	}
	if s.a.tokens != nil {
		if err := s.a.tokens.checkToken(hello.Token); err != nil {
			s.fail(w, remote, 0, err)
			return
		}
	}
	raw.SetDeadline(time.Time{})
	if err := w.Write(&pb.CallResult{}); err != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &nativeStream{w: w, ctx: ctx, cancel: cancel}
	s.n.Calls(st)
	if st.refusal != nil {
		s.fail(w, remote, st.refusalID, st.refusal)
	}
}

// fail answers the connection's call id (0: the connection) with err,
// logs it, and leaves the connection to be closed.
func (s *native) fail(w *apiwire.Conn, remote net.Addr, id uint64, err error) {
	s.refuse(remote, err)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return
	}
	p := status.Convert(err).Proto()
	w.Net().SetWriteDeadline(time.Now().Add(apiwire.HandshakeWait))
	w.Write(&pb.CallResult{Id: id, Error: &pb.CallError{Code: p.Code, Message: p.Message, Details: p.Details}})
}

// wireStatus is the status of a frame that could not be read: what of.
func wireStatus(err error, what string) error {
	var fe *apiwire.FrameError
	if _, ok := status.FromError(err); ok {
		return err
	}
	switch {
	case errors.As(err, &fe):
		return status.Errorf(codes.ResourceExhausted, "%s: %v", what, fe)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return err
	case isTimeout(err):
		return status.Errorf(codes.DeadlineExceeded, "%s: not in time: %v", what, err)
	default:
		var ne net.Error
		if errors.As(err, &ne) {
			return err
		}
		return status.Errorf(codes.InvalidArgument, "%s: not a message of the protocol: %v", what, err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// nativeStream is a native connection as Calls sees a gRPC stream: Send,
// Recv and Context, nothing else of it used.
type nativeStream struct {
	grpc.ServerStream // nil: Calls uses only the methods below
	w                 *apiwire.Conn
	ctx               context.Context
	cancel            context.CancelFunc

	refusal   error // why the connection is refused, once Recv has failed (nil: it ended)
	refusalID uint64

	mu     sync.Mutex
	broken bool // refused: nothing more is sent before the refusal
}

func (st *nativeStream) Context() context.Context { return st.ctx }

func (st *nativeStream) Send(r *pb.CallResult) error {
	st.mu.Lock()
	broken := st.broken
	st.mu.Unlock()
	if broken {
		return io.EOF
	}
	return st.w.Write(r)
}

// Recv reads the next call. A frame that breaks the protocol (too long,
// not a Call, a call that names no request this node knows) ends the
// stream as the caller ending it would, with a refusal to send once the
// calls still open are answered; the connection's end ends it too. Either
// way the open calls are cancelled, as a gRPC stream's context is when
// the stream ends.
func (st *nativeStream) Recv() (*pb.Call, error) {
	call := new(pb.Call)
	err := st.w.Read(call, 0)
	if err == nil && call.Request == nil {
		err = status.Errorf(codes.Unimplemented, "call %d names no method this node knows (Lock, Unlock, Acquire, Release or cancel)", call.Id)
		st.refusalID = call.Id
	}
	if err != nil {
		if s := wireStatus(err, "a call"); status.Code(s) != codes.Unknown {
			st.mu.Lock()
			st.broken = true
			st.mu.Unlock()
			st.refusal = s
		}
		st.cancel()
		return nil, err
	}
	return call, nil
}
