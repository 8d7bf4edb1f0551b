package service

import (
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"

	pb "allot/api/allot/v1"
	"allot/proc"
)

// link is the session layer of the channel to one other node: it makes the
// channel the papers assume (reliable: no message lost, none duplicated)
// out of gRPC streams that may break. Each message gets the next sequence
// number and stays in unacked until the peer acknowledges it; a new stream
// (after a reconnect) starts by resending everything unacknowledged; the
// receiver handles seq = last+1 only and drops anything it has handled
// already. A lost fork would deadlock the algorithm, a duplicated one would
// break exclusion, so neither may pass.
type link struct {
	n    *Node
	peer int

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

func newLink(n *Node, peer int) *link {
	return &link{n: n, peer: peer, wake: make(chan struct{}, 1), up: make(chan struct{})}
}

func (l *link) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// send queues a message; it never blocks.
func (l *link) send(instance string, from, to proc.ID, payload []byte) {
	l.mu.Lock()
	l.seq++
	l.unacked = append(l.unacked, &pb.Frame{Seq: l.seq, Instance: instance, From: int32(from), To: int32(to), Payload: payload})
	l.mu.Unlock()
	l.poke()
}

// stream is either end of a Link stream.
type stream interface {
	Send(*pb.Frame) error
	Recv() (*pb.Frame, error)
}

// attach runs the link over s until s breaks or ctx ends.
func (l *link) attach(ctx context.Context, s stream) error {
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
func (l *link) sender(ctx context.Context, s stream) error {
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
// duplicate, hands a new message to its instance.
func (l *link) received(f *pb.Frame) {
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
			l.n.log.Error("link: a gap in the sequence", "peer", l.peer, "seq", f.Seq, "want", l.recv+1)
		}
		return
	}
	m, err := l.n.codec.DecodeMessage(f.Payload)
	if err != nil {
		l.n.log.Error("link: undecodable message", "peer", l.peer, "err", err)
		return
	}
	in, err := l.n.instance(f.Instance)
	if err != nil {
		l.n.log.Error("link: message for an unknown instance", "peer", l.peer, "instance", f.Instance, "err", err)
		return
	}
	in.deliver(proc.ID(f.From), proc.ID(f.To), m)
}

// dial keeps a stream to the peer open until ctx ends: the node with the
// smaller index dials, the other accepts (Node.Link).
func (l *link) dial(ctx context.Context, cc *grpc.ClientConn) {
	c := pb.NewPeerClient(cc)
	backoff := 10 * time.Millisecond
	for ctx.Err() == nil {
		s, err := c.Link(ctx)
		if err == nil {
			err = s.Send(&pb.Frame{Node: int32(l.n.self)})
		}
		if err == nil {
			backoff = 10 * time.Millisecond
			err = l.attach(ctx, s)
		}
		if ctx.Err() != nil {
			return
		}
		l.n.log.Debug("link down, redialling", "peer", l.peer, "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// Link implements the Peer service: the accepting end of a link.
func (p peerServer) Link(s pb.Peer_LinkServer) error {
	n := p.n
	hello, err := s.Recv()
	if err != nil {
		return err
	}
	k := int(hello.Node)
	if k < 0 || k >= len(n.links) || n.links[k] == nil || k == n.self {
		return fmt.Errorf("link from unknown node %d", k)
	}
	return n.links[k].attach(n.ctx, s)
}
