package service

import (
	"context"
	"sync"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Calls implements the Allot service: Lock, Unlock, Acquire and Release
// over one stream, each call run by the handler its unary call has, on
// a context of its own (the stream's, with the call's timeout, cancelled
// by a cancel frame), and answered by its id.
//
// A unary call costs a node an HTTP/2 stream (headers each way, HPACK)
// and a handler goroutine; a call on the stream is one DATA frame each
// way. An Unlock or a Release is run on the stream's reader (it only
// queues the give-back, never waits), a Lock or an Acquire, which may
// wait as long as the caller lets it, on a goroutine of its own.
//
// The handler returns once the caller has closed its side (or the
// connection is gone, which cancels every open call) and every open call
// has been answered: a result must not be sent after it returns.
func (n *Node) Calls(st pb.Allot_CallsServer) error {
	ctx := st.Context()
	c := &callStream{st: st, open: map[uint64]context.CancelFunc{}, count: n.metrics.calls}
	defer c.wg.Wait()
	for {
		call, err := st.Recv()
		if err != nil {
			// EOF (the caller is done) or the stream broken: the calls
			// still open are answered (or cancelled with the
			// connection) before the handler returns.
			return nil
		}
		switch r := call.Request.(type) {
		case *pb.Call_Cancel:
			c.cancel(call.Id)
		case *pb.Call_Unlock:
			err := n.giveBack(r.Unlock.Session, r.Unlock.Grant)
			c.answer(call.Id, "Unlock", &pb.CallResult{Response: &pb.CallResult_Unlock{Unlock: &pb.UnlockResponse{}}}, err)
		case *pb.Call_Release:
			err := n.giveBack(r.Release.Session, r.Release.Grant)
			c.answer(call.Id, "Release", &pb.CallResult{Response: &pb.CallResult_Release{Release: &pb.ReleaseResponse{}}}, err)
		case *pb.Call_Lock:
			c.run(ctx, call, "Lock", func(ctx context.Context) (*pb.CallResult, error) {
				resp, err := n.Lock(ctx, r.Lock)
				return &pb.CallResult{Response: &pb.CallResult_Lock{Lock: resp}}, err
			})
		case *pb.Call_Acquire:
			c.run(ctx, call, "Acquire", func(ctx context.Context) (*pb.CallResult, error) {
				resp, err := n.Acquire(ctx, r.Acquire)
				return &pb.CallResult{Response: &pb.CallResult_Acquire{Acquire: resp}}, err
			})
		default:
			c.answer(call.Id, "Unknown", nil, status.Error(codes.InvalidArgument, "a call on the Calls stream names no request this node knows (Lock, Unlock, Acquire, Release or cancel)"))
		}
	}
}

// callStream is the node's side of one Calls stream.
type callStream struct {
	st    pb.Allot_CallsServer
	count *prometheus.CounterVec // the node's calls by method and code
	wg    sync.WaitGroup

	sendMu sync.Mutex // a gRPC stream takes one SendMsg at a time

	mu   sync.Mutex
	open map[uint64]context.CancelFunc // the calls running, by id
}

// run runs a call that may wait on a goroutine of its own, with the
// call's timeout, until it is answered or cancelled.
func (c *callStream) run(ctx context.Context, call *pb.Call, method string, f func(context.Context) (*pb.CallResult, error)) {
	var cancel context.CancelFunc
	if call.TimeoutUs > 0 {
		ctx, cancel = context.WithTimeout(ctx, time.Duration(call.TimeoutUs)*time.Microsecond)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	c.mu.Lock()
	if _, dup := c.open[call.Id]; dup {
		c.mu.Unlock()
		cancel()
		c.answer(call.Id, method, nil, status.Errorf(codes.InvalidArgument, "call id %d is open already on this stream", call.Id))
		return
	}
	c.open[call.Id] = cancel
	c.mu.Unlock()
	c.wg.Go(func() {
		r, err := f(ctx)
		c.mu.Lock()
		delete(c.open, call.Id)
		c.mu.Unlock()
		cancel()
		c.answer(call.Id, method, r, err)
	})
}

// cancel gives up the open call id; one that is done already is not
// open.
func (c *callStream) cancel(id uint64) {
	c.mu.Lock()
	cancel := c.open[id]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// answer sends call id's result: r on success, err's status otherwise
// (an error of a context, its code, as gRPC gives a unary call's). A
// send that fails is the stream breaking, which Recv sees too.
func (c *callStream) answer(id uint64, method string, r *pb.CallResult, err error) {
	s, ok := status.FromError(err)
	if !ok {
		s = status.FromContextError(err)
	}
	if err != nil {
		p := s.Proto()
		r = &pb.CallResult{Error: &pb.CallError{Code: p.Code, Message: p.Message, Details: p.Details}}
	}
	r.Id = id
	c.count.WithLabelValues(method, s.Code().String()).Inc()
	c.sendMu.Lock()
	_ = c.st.Send(r)
	c.sendMu.Unlock()
}
