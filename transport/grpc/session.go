package grpc

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"sync"

	ggrpc "google.golang.org/grpc"

	"github.com/allot-dev/allot/proc"
)

// stream is what a session needs of a gRPC stream, client or server
// side: frames out, several at once, and frames in, one at a time.
type stream interface {
	Send(fs ...*frame) error
	Recv(f *frame) error
}

// peer is the session with one neighbour node: both directions of its
// links, over whichever stream is up.
type peer struct {
	t    *Transport
	name string
	addr string // where it is dialled
	// ctx ends when the transport closes or the peer is removed (stop).
	ctx  context.Context
	stop context.CancelFunc
	conn *ggrpc.ClientConn // set when this node dials the peer
	inc  uint64            // the peer's incarnation, 0 until a hello

	mu        sync.Mutex
	next      uint64    // the last sequence number given out
	unacked   []*frame  // sent, not yet acknowledged, in order
	delivered uint64    // the peer's messages delivered here, 1..delivered
	up        bool      // a stream is up
	carrier   Carrier   // what the stream is on, while up
	since     time.Time // when up last changed
	gen       uint64    // the current stream's generation
	out       []*frame  // queued for the current stream's writer
	// ackDue: what was delivered since the last ack is to be acked, with
	// the next data, or alone once ackTimer has fired (ackLate). The
	// reader arms the timer itself, so that a frame received wakes no
	// writer with nothing to write yet.
	ackDue   bool
	ackLate  bool
	ackTimer *time.Timer
	wake     chan struct{} // the current writer's signal
	cancel   context.CancelFunc
	cut      bool
	restored chan struct{} // closed by Restore
}

// send numbers f, keeps it until acknowledged, and queues it if a stream
// is up.
func (p *peer) send(f *frame) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	f.Seq = p.next
	p.unacked = append(p.unacked, f)
	if p.up {
		p.out = append(p.out, f)
		p.signal()
	}
}

func (p *peer) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// acked forgets what the peer has delivered. Called with p.mu held.
func (p *peer) acked(ack uint64) {
	i := 0
	for i < len(p.unacked) && p.unacked[i].Seq <= ack {
		i++
	}
	if i > 0 {
		// In place: nothing else holds this backing array (the writer's
		// queue, p.out, is a slice of its own).
		n := copy(p.unacked, p.unacked[i:])
		clear(p.unacked[n:])
		p.unacked = p.unacked[:n]
	}
}

func (p *peer) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut == cut {
		return
	}
	p.cut = cut
	if cut {
		if p.cancel != nil {
			p.cancel()
		}
		return
	}
	close(p.restored)
	p.restored = make(chan struct{})
}

func (p *peer) hello() *frame {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.helloLocked()
}

func (p *peer) helloLocked() *frame {
	return &frame{Kind: frameHello, Node: p.t.cfg.Node, Seq: p.t.cfg.Incarnation, Ack: p.delivered, Payload: binary.AppendUvarint(nil, p.inc)}
}

// met takes in the peer's hello (p.mu held) and returns the part of its
// Ack that is about this run of the node. A new incarnation of the peer
// has nothing of the old sessions: both directions number from 1 again,
// and what is still unacknowledged goes to the new run, renumbered (this
// node cannot tell what was sent before the restart from what was sent
// after; which messages still mean something is for the layer above to
// say, as the service's epochs do).
func (p *peer) met(their *frame) uint64 {
	if p.inc != 0 && their.Seq != p.inc {
		renumbered := make([]*frame, len(p.unacked))
		for i, f := range p.unacked {
			g := *f // the old stream's writer may still be reading f
			g.Seq = uint64(i + 1)
			renumbered[i] = &g
		}
		p.unacked, p.out, p.next, p.delivered = renumbered, nil, uint64(len(renumbered)), 0
	}
	p.inc = their.Seq
	if mine, n := binary.Uvarint(their.Payload); n <= 0 || mine != p.t.cfg.Incarnation {
		if n > 0 && mine != 0 {
			p.t.restarted.Store(true) // the peer knew an earlier run
		}
		return 0 // about an earlier run of this node, or none
	}
	return their.Ack
}

// dial keeps a stream to the peer up, until the transport is closed.
func (p *peer) dial() {
	defer p.t.wg.Done()
	streamNext := false
	for {
		p.mu.Lock()
		cut, restored := p.cut, p.restored
		p.mu.Unlock()
		if cut {
			select {
			case <-p.ctx.Done():
				return
			case <-restored:
				continue
			}
		}
		ctx, cancel := context.WithCancel(p.ctx)
		if p.t.cfg.Plain != nil && !streamNext {
			// A peer that does not take the plain carrier (an older
			// node, or a listener not split) is linked over a stream
			// next, and tried on the plain carrier again after that
			// stream breaks.
			streamNext = !p.dialPlain(ctx, cancel)
		} else {
			streamNext = false
			if cs, err := p.conn.NewStream(ctx, &streamDesc, method); err == nil {
				s := &wire{s: cs}
				their := new(frame)
				if s.Send(p.hello()) == nil && s.Recv(their) == nil && their.Kind == frameHello && their.Node == p.name {
					p.serve(ctx, cancel, s, their, false)
				}
			}
		}
		cancel()
		select {
		case <-p.ctx.Done():
			return
		case <-time.After(p.t.cfg.Redial):
		}
	}
}

// serve runs the session over stream s until it breaks: their is the
// peer's hello; sayHello, on the accepting side, answers it first.
func (p *peer) serve(ctx context.Context, cancel context.CancelFunc, s stream, their *frame, sayHello bool) {
	defer cancel()
	p.mu.Lock()
	if p.cut || p.up {
		// Held down, or the previous stream has not noticed it is broken
		// yet: the dialler tries again.
		p.mu.Unlock()
		return
	}
	ack := p.met(their)
	hello := p.helloLocked()
	// The peer has delivered up to ack: forget that, resend the rest.
	p.acked(ack)
	p.out = append([]*frame(nil), p.unacked...)
	p.up, p.cancel, p.wake, p.since = true, cancel, make(chan struct{}, 1), time.Now()
	p.carrier = StreamCarrier
	if _, ok := s.(*plainWire); ok {
		p.carrier = PlainCarrier
	}
	p.gen++
	gen := p.gen
	p.signal()
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		if p.gen == gen {
			p.up, p.out, p.cancel, p.since, p.carrier = false, nil, nil, time.Now(), ""
		}
		p.mu.Unlock()
	}()
	if sayHello {
		if s.Send(hello) != nil {
			return
		}
	}
	p.t.wg.Add(1)
	go p.write(ctx, cancel, s, gen, p.wake)
	f := new(frame) // read into again and again: deliver keeps nothing of it
	for {
		if s.Recv(f) != nil || ctx.Err() != nil {
			// A frame of a batch read before the stream was cut is not
			// delivered now: unacknowledged, it comes again after.
			return
		}
		switch f.Kind {
		case frameData:
			p.mu.Lock()
			next := f.Seq == p.delivered+1
			if f.Seq > p.delivered+1 {
				p.mu.Unlock()
				return // a gap: not the protocol; start over
			}
			if next {
				p.delivered++
			}
			if !p.ackDue {
				p.ackDue = true
				p.armAck()
			}
			p.mu.Unlock()
			if next {
				p.deliver(f)
			}
		case frameAck:
			p.mu.Lock()
			p.acked(f.Ack)
			p.mu.Unlock()
		default:
			return
		}
	}
}

// deliver decodes a data frame and hands it to its Handler, on the
// stream's reader: the frames of a link arrive in order on one stream, so
// they are delivered in order without the dispatcher's extra hop.
func (p *peer) deliver(f *frame) {
	m, err := p.t.cfg.Codec.DecodeMessage(f.Payload)
	if err != nil {
		p.t.mu.Lock()
		p.t.err = fmt.Errorf("link: message %d from node %s (process %d to %d): %w", f.Seq, p.name, f.From, f.To, err)
		p.t.mu.Unlock()
		return
	}
	p.t.handle(delivery{space: f.Node, from: proc.ID(f.From), to: proc.ID(f.To), m: m})
}

// armAck starts the wait of an ack due (p.mu held): when it is up, the
// writer sends the ack alone if no data took it first.
func (p *peer) armAck() {
	if p.ackTimer == nil {
		p.ackTimer = time.AfterFunc(p.t.cfg.AckDelay, func() {
			p.mu.Lock()
			if p.ackDue {
				p.ackLate = true
				p.signal()
			}
			p.mu.Unlock()
		})
		return
	}
	p.ackTimer.Reset(p.t.cfg.AckDelay)
}

// DefaultAckDelay is how long an acknowledgement may wait for data going the
// same way to ride on. Most of a link's messages are answered by the
// receiver within well under a millisecond (a request by its grant, a
// fork by a fork), so an ack sent at once would mostly be a gRPC message,
// a write and a read of its own, where waiting puts it in the answer's
// batch for nothing. An ack only lets the sender forget what arrived (it
// resends the unacknowledged after a reconnect, and the receiver drops
// those it has), so a late one costs memory for a few milliseconds, never
// a message.
const DefaultAckDelay = 5 * time.Millisecond

// write sends what is queued for stream generation gen, with the ack of
// what has arrived when there is data to send, or once the ack has waited
// Config.AckDelay.
func (p *peer) write(ctx context.Context, cancel context.CancelFunc, s stream, gen uint64, wake <-chan struct{}) {
	defer p.t.wg.Done()
	var ackFrame frame // Send encodes it before it returns
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
		p.mu.Lock()
		if p.gen != gen {
			p.mu.Unlock()
			return
		}
		out := p.out
		p.out = nil
		var ack *frame
		if p.ackDue && (len(out) > 0 || p.ackLate) {
			ackFrame = frame{Kind: frameAck, Ack: p.delivered}
			ack = &ackFrame
			p.ackDue, p.ackLate = false, false
			p.ackTimer.Stop()
		}
		p.mu.Unlock()
		if ack != nil {
			out = append(out, ack)
		}
		// One gRPC message carries the whole batch: under load the
		// per-message cost of the stream is paid once for many frames.
		if len(out) == 0 {
			continue
		}
		if s.Send(out...) != nil {
			cancel()
			return
		}
		data := len(out)
		if ack != nil {
			data--
		}
		p.t.frames.Add(int64(data))
		p.t.batches.Add(1)
	}
}
