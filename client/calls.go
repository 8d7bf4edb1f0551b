package client

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// caller is the API of one node as the sessions call it: Lock, Unlock,
// Acquire and Release over the node's Calls stream, one stream for
// every session of the Client on that node, and the other calls unary.
// A call on the stream is one message each way; a unary call also opens
// an HTTP/2 stream and a handler goroutine at the node, which costs
// about as much again (docs/service.md, *Where the time goes*).
//
// It answers as the unary call would, so that the session's moving and
// giving back again read its errors as before: the node's status, the
// caller's context's (Canceled, DeadlineExceeded), or UNAVAILABLE when
// the stream breaks with the call open (perhaps done, as a unary call
// cut off with its connection). A node without Calls (an earlier
// version: UNIMPLEMENTED, before it ran anything) is called unary from
// then on.
//
// The stream is the native protocol's, a connection of its own to the
// node's port without gRPC (native.go), unless the caller has no native
// dialer (WithProtocol(ProtocolGRPC)) or the node does not speak it; then
// it is the gRPC Calls stream.
type caller struct {
	pb.AllotClient               // the unary calls
	native         *nativeDialer // nil: the Calls stream on gRPC only

	mu       sync.Mutex
	st       *callStream // nil: none open
	unary    bool        // the node has no Calls
	noNative time.Time   // until when the node is not asked for the native protocol
	proto    string      // what the last stream opened was on: "native", "grpc"; "" none yet
}

func newCaller(cc grpc.ClientConnInterface, native *nativeDialer) *caller {
	return &caller{AllotClient: pb.NewAllotClient(cc), native: native}
}

// protocol is what the node's calls go on: "native", "grpc", "unary",
// or "" (none opened yet).
func (c *caller) protocol() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unary {
		return "unary"
	}
	return c.proto
}

// errUnary says that the node has no Calls: the call was not run.
var errUnary = errors.New("the node has no Calls stream")

func (c *caller) Lock(ctx context.Context, r *pb.LockRequest, opts ...grpc.CallOption) (*pb.LockResponse, error) {
	return onStream(ctx, c, &pb.Call{Request: &pb.Call_Lock{Lock: r}}, (*pb.CallResult).GetLock,
		func() (*pb.LockResponse, error) { return c.AllotClient.Lock(ctx, r, opts...) })
}

func (c *caller) Unlock(ctx context.Context, r *pb.UnlockRequest, opts ...grpc.CallOption) (*pb.UnlockResponse, error) {
	return onStream(ctx, c, &pb.Call{Request: &pb.Call_Unlock{Unlock: r}}, (*pb.CallResult).GetUnlock,
		func() (*pb.UnlockResponse, error) { return c.AllotClient.Unlock(ctx, r, opts...) })
}

func (c *caller) Acquire(ctx context.Context, r *pb.AcquireRequest, opts ...grpc.CallOption) (*pb.AcquireResponse, error) {
	return onStream(ctx, c, &pb.Call{Request: &pb.Call_Acquire{Acquire: r}}, (*pb.CallResult).GetAcquire,
		func() (*pb.AcquireResponse, error) { return c.AllotClient.Acquire(ctx, r, opts...) })
}

func (c *caller) Release(ctx context.Context, r *pb.ReleaseRequest, opts ...grpc.CallOption) (*pb.ReleaseResponse, error) {
	return onStream(ctx, c, &pb.Call{Request: &pb.Call_Release{Release: r}}, (*pb.CallResult).GetRelease,
		func() (*pb.ReleaseResponse, error) { return c.AllotClient.Release(ctx, r, opts...) })
}

// onStream makes call on c's stream and picks its response out of the
// result, or makes it unary where the node has no Calls.
func onStream[R any](ctx context.Context, c *caller, call *pb.Call, pick func(*pb.CallResult) R, unary func() (R, error)) (R, error) {
	res, err := c.call(ctx, call)
	if err == errUnary {
		return unary()
	}
	return pick(res), err
}

// call sends call on the node's stream (opened if none is) and waits
// for its result or ctx's end.
func (c *caller) call(ctx context.Context, call *pb.Call) (*pb.CallResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, status.FromContextError(err).Err()
	}
	st, err := c.stream(ctx)
	if err != nil {
		return nil, err
	}
	if d, ok := ctx.Deadline(); ok {
		call.TimeoutUs = max(time.Until(d).Microseconds(), 1)
	}
	id, ch := st.add()
	call.Id = id
	if err := st.send(call); err != nil {
		st.drop(id)
		return nil, err
	}
	select {
	case r := <-ch:
		return st.result(r)
	case <-ctx.Done():
		if !st.drop(id) {
			// Answered (or the stream broke) as ctx ended: the
			// answer is on ch already, and a grant in it must not be
			// lost.
			return st.result(<-ch)
		}
		// Best effort, off the caller's path: the node gives the call
		// up when it reads this, or at the call's timeout.
		go st.send(&pb.Call{Id: id, Request: &pb.Call_Cancel{Cancel: true}}) //nolint:errcheck
		return nil, status.FromContextError(ctx.Err()).Err()
	}
}

// stream is the node's stream, opened now if there is none, once it is
// open or ctx ends: errUnary if the node has no Calls.
func (c *caller) stream(ctx context.Context) (*callStream, error) {
	c.mu.Lock()
	if c.unary {
		c.mu.Unlock()
		return nil, errUnary
	}
	st := c.st
	if st == nil {
		st = &callStream{c: c, ready: make(chan struct{}), done: make(chan struct{}), pending: map[uint64]chan *pb.CallResult{}}
		c.st = st
		go st.open()
	}
	c.mu.Unlock()
	select {
	case <-st.ready:
		if st.openErr != nil {
			return nil, st.openErr
		}
		return st, nil
	case <-ctx.Done():
		// Opening waits for the connection as a unary call would,
		// and as long as this call lets it.
		return nil, status.FromContextError(ctx.Err()).Err()
	}
}

// callsConn is a Calls stream as the caller uses it: the gRPC stream's
// client, or a native connection.
type callsConn interface {
	Send(*pb.Call) error
	Recv() (*pb.CallResult, error)
}

// callStream is one Calls stream and its open calls.
type callStream struct {
	c       *caller
	ready   chan struct{} // closed once opened (s and cancel set) or not (openErr)
	s       callsConn
	native  bool // s is a native connection
	cancel  context.CancelFunc
	openErr error
	done    chan struct{} // closed once the stream has ended

	sendMu sync.Mutex // a gRPC stream takes one SendMsg at a time (a native connection any)

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan *pb.CallResult // the open calls, by id
	err     error                          // why the stream broke; nil while it serves
}

// add opens a call: its id and the channel its result comes on (nil if
// the stream breaks first).
func (st *callStream) add() (uint64, chan *pb.CallResult) {
	ch := make(chan *pb.CallResult, 1)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.next++
	if st.err != nil {
		close(ch)
	} else {
		st.pending[st.next] = ch
	}
	return st.next, ch
}

// drop forgets open call id, saying whether it was open.
func (st *callStream) drop(id uint64) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, ok := st.pending[id]
	delete(st.pending, id)
	return ok
}

// open opens the stream, with a context of its own (the stream
// outlives the call that opens it), and starts its receiver; a stream
// that does not open is forgotten, so the next call tries again.
func (st *callStream) open() {
	if st.c.tryNative() {
		nc, err := st.c.native.dial()
		switch {
		case err == nil:
			st.s, st.cancel, st.native = nc, nc.close, true
			st.c.opened("native")
			close(st.ready)
			go st.receive()
			return
		case isRefusal(err):
			// The node speaks it, and said no: as gRPC would.
			st.openErr = errors.Unwrap(err)
			st.c.forget(st)
			close(st.ready)
			return
		case isSilent(err):
			// Connected, and not answered at all: a frozen or
			// starved node, not an older one. gRPC waits on it as
			// it would, and the node is asked again with the next
			// stream.
		case !isDialError(err):
			// Connected, and not answered as the protocol answers:
			// an older node (or TLS refused, which gRPC says too).
			st.c.notNative()
		}
		// Not connected at all: gRPC says how the node is.
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := st.c.AllotClient.Calls(ctx)
	if err != nil {
		cancel()
		st.openErr = err
		st.c.forget(st)
		close(st.ready)
		return
	}
	st.s, st.cancel = s, cancel
	st.c.opened("grpc")
	close(st.ready)
	go st.receive()
}

// nativeRetry is how long a node that did not take the native protocol
// is called on gRPC before it is asked again (it may have been upgraded).
const nativeRetry = time.Minute

// tryNative reports whether a stream to open is to try the native
// protocol first.
func (c *caller) tryNative() bool {
	if c.native == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().After(c.noNative)
}

// notNative records that the node did not take the native protocol.
func (c *caller) notNative() {
	c.mu.Lock()
	c.noNative = time.Now().Add(nativeRetry)
	c.mu.Unlock()
}

// opened records what a stream was opened on.
func (c *caller) opened(proto string) {
	c.mu.Lock()
	c.proto = proto
	c.mu.Unlock()
}

// forget forgets st at its caller, if it is the caller's stream still.
func (c *caller) forget(st *callStream) {
	c.mu.Lock()
	if c.st == st {
		c.st = nil
	}
	c.mu.Unlock()
}

// send sends m; an error is the stream's, once it has ended.
func (st *callStream) send(m *pb.Call) error {
	var err error
	if st.native {
		err = st.s.Send(m) // its writes join each other's
	} else {
		st.sendMu.Lock()
		err = st.s.Send(m)
		st.sendMu.Unlock()
	}
	if err != nil {
		// io.EOF: the stream has ended, and Recv says how. Any other
		// error ends it here.
		if err != io.EOF {
			st.cancel()
		}
		<-st.done
		return st.failed()
	}
	return nil
}

// result is a call's answer r as the unary call's: nil, the stream broke.
func (st *callStream) result(r *pb.CallResult) (*pb.CallResult, error) {
	if r == nil {
		return nil, st.failed()
	}
	if e := r.Error; e != nil {
		return nil, status.FromProto(&spb.Status{Code: e.Code, Message: e.Message, Details: e.Details}).Err()
	}
	return r, nil
}

// receive hands each result to its call until the stream ends, then
// ends the calls still open.
func (st *callStream) receive() {
	for {
		r, err := st.s.Recv()
		if err != nil {
			st.end(err)
			return
		}
		st.mu.Lock()
		// Sent under the lock (ch has room): a call that finds its id
		// gone finds its answer on ch.
		if ch := st.pending[r.Id]; ch != nil { // nil: given up by its caller
			delete(st.pending, r.Id)
			ch <- r
		}
		st.mu.Unlock()
	}
}

// end records why the stream ended, forgets it at its caller (the next
// call opens another) and closes the open calls' channels.
func (st *callStream) end(err error) {
	st.cancel()
	st.c.forget(st)
	if !st.native && status.Code(err) == codes.Unimplemented {
		st.c.mu.Lock()
		st.c.unary = true
		st.c.mu.Unlock()
	}
	st.mu.Lock()
	st.err = err
	open := st.pending
	st.pending = nil
	st.mu.Unlock()
	close(st.done)
	for _, ch := range open {
		close(ch)
	}
}

// failed is the error of a call the broken stream left open:
// errUnary where the node has no Calls (the call did not run),
// otherwise UNAVAILABLE, as gRPC says of a unary call whose connection
// is lost (the stream's own status when it has one that says more).
func (st *callStream) failed() error {
	st.mu.Lock()
	err := st.err
	st.mu.Unlock()
	switch s, _ := status.FromError(err); s.Code() {
	case codes.Unimplemented:
		if st.native {
			return s.Err()
		}
		return errUnary
	case codes.OK, codes.Canceled, codes.Unknown:
		return status.Errorf(codes.Unavailable, "the node's Calls stream broke: %v", err)
	default:
		return s.Err()
	}
}
