// Package link is the session layer of a channel between two nodes over
// gRPC streams (the Peer.Link stream of api/allot/v1): it makes the channel
// the papers assume — reliable, no message lost, none duplicated — out of
// streams that may break and be opened again.
//
//	sender                                       receiver
//	Send ─> seq=k+1, kept in unacked             handles seq = last+1 only,
//	        ──── Frame{seq, ack, payload} ────>  drops seq ≤ last (a resend)
//	        <──── Frame{ack = last} ───────────  (acks ride on frames or go bare)
//	trims unacked ≤ ack
//	a new stream (after a break): resend all of unacked first
//
// A lost fork deadlocks an algorithm, a duplicated one breaks exclusion, so
// neither may pass. The node with the smaller index dials (Dial), the other
// accepts (Hello, then Attach).
//
// It predates transport/grpc, which does the same job for the host's
// processes; the service keeps its own until its algorithm instances (one
// per lock namespace and per semaphore, each with its own process ids) are
// mapped onto the host and that transport (docs/service.md).
package link

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"google.golang.org/grpc"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/proc"
)

// Link is the session layer of the channel to one peer node.
type Link struct {
	self, peer int
	deliver    func(*pb.Frame)
	log        *slog.Logger

	mu      sync.Mutex
	seq     uint64 // the last seq given out
	unacked []*pb.Frame
	recv    uint64 // the last seq handled in order
	acked   uint64 // the last ack sent
	wake    chan struct{}
	up      chan struct{} // closed once a stream has been attached
	upOnce  sync.Once

	recvMu sync.Mutex // one receiver hands messages over at a time
}

// New returns the link from node self to node peer; deliver is called with
// every new message frame, in the sender's order, one at a time.
func New(self, peer int, deliver func(*pb.Frame), log *slog.Logger) *Link {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Link{self: self, peer: peer, deliver: deliver, log: log, wake: make(chan struct{}, 1), up: make(chan struct{})}
}

// Up is closed once a stream has been attached.
func (l *Link) Up() <-chan struct{} { return l.up }

func (l *Link) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Send queues a message; it never blocks.
func (l *Link) Send(instance string, from, to proc.ID, payload []byte) {
	l.mu.Lock()
	l.seq++
	l.unacked = append(l.unacked, &pb.Frame{Seq: l.seq, Instance: instance, From: int32(from), To: int32(to), Payload: payload})
	l.mu.Unlock()
	l.poke()
}

// Stream is either end of a Peer.Link stream.
type Stream interface {
	Send(*pb.Frame) error
	Recv() (*pb.Frame, error)
}

// Attach runs the link over s until s breaks or ctx ends.
func (l *Link) Attach(ctx context.Context, s Stream) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l.upOnce.Do(func() { close(l.up) })
	errc := make(chan error, 1)
	go func() { errc <- l.sender(ctx, s) }()
	for {
		f, err := s.Recv()
		if err != nil {
			cancel()
			<-errc
			return err
		}
		l.received(f)
	}
}

// sender sends, on one stream, every unacknowledged frame (all of them
// first: the previous stream may have lost any) and the acknowledgements.
func (l *Link) sender(ctx context.Context, s Stream) error {
	var cursor uint64 // the last seq sent on this stream
	idle := time.NewTicker(100 * time.Millisecond)
	defer idle.Stop()
	for {
		l.mu.Lock()
		var out []*pb.Frame
		for _, f := range l.unacked {
			if f.Seq > cursor {
				out = append(out, f)
			}
		}
		ack := l.recv
		bare := len(out) == 0 && ack > l.acked
		l.acked = ack
		l.mu.Unlock()
		for _, f := range out {
			if err := s.Send(&pb.Frame{Seq: f.Seq, Ack: ack, Instance: f.Instance, From: f.From, To: f.To, Payload: f.Payload}); err != nil {
				return err
			}
			cursor = f.Seq
		}
		if bare {
			if err := s.Send(&pb.Frame{Ack: ack}); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-l.wake:
		case <-idle.C:
		}
	}
}

// received handles one frame: trims what the peer acknowledged, drops a
// duplicate, hands a new message over.
func (l *Link) received(f *pb.Frame) {
	l.recvMu.Lock()
	defer l.recvMu.Unlock()
	l.mu.Lock()
	k := 0
	for k < len(l.unacked) && l.unacked[k].Seq <= f.Ack {
		k++
	}
	l.unacked = l.unacked[k:]
	fresh := f.Seq != 0 && f.Seq == l.recv+1
	if fresh {
		l.recv = f.Seq
	}
	l.mu.Unlock()
	if f.Seq != 0 {
		l.poke() // acknowledge
	}
	if !fresh {
		if f.Seq > l.recv+1 {
			l.log.Error("link: a gap in the sequence", "peer", l.peer, "seq", f.Seq, "want", l.recv+1)
		}
		return
	}
	l.deliver(f)
}

// Dial keeps a stream to the peer open until ctx ends, opening a new one
// when it breaks.
func (l *Link) Dial(ctx context.Context, cc *grpc.ClientConn) {
	c := pb.NewPeerClient(cc)
	backoff := 10 * time.Millisecond
	for ctx.Err() == nil {
		s, err := c.Link(ctx)
		if err == nil {
			err = s.Send(&pb.Frame{Node: int32(l.self)})
		}
		if err == nil {
			backoff = 10 * time.Millisecond
			err = l.Attach(ctx, s)
		}
		if ctx.Err() != nil {
			return
		}
		l.log.Debug("link down, redialling", "peer", l.peer, "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// Hello reads the first frame of an accepted stream: the dialling node.
func Hello(s Stream) (int, error) {
	f, err := s.Recv()
	if err != nil {
		return 0, err
	}
	return int(f.Node), nil
}
