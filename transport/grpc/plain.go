package grpc

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/soheilhy/cmux"
)

// The plain carrier: a link's frames on a TCP connection of its own (TLS
// when Plain says so), written and read by the session's writer and
// reader themselves. A gRPC stream carries the same frames through
// HTTP/2: gRPC's writer goroutine, its framing and flow control, and a
// protobuf wrapper around each batch; here a batch is one write of
// length-prefixed frames. On loopback a message there and back costs
// about half the CPU (docs/service.md, *A link of its own*). The session
// layer above (numbering, acks, resends, hellos) is the same on both.
//
// A node keeps one port: Split divides what arrives at its listener by
// the first bytes, the plain links (they begin with Preface) from
// everything else (gRPC, for clients and nodes alike). A node that dials
// a link tries the plain carrier first and, if the peer does not take
// it (an older node, or one whose listener is not split), a gRPC stream
// next: a cluster can run nodes of both kinds.

// Preface is what a connection of the plain carrier begins with, before
// TLS: its first bytes tell it from gRPC's (an HTTP/2 preface, "PRI * ...",
// or a TLS ClientHello, 0x16).
const Preface = "allot-link/1\n"

// Plain configures the plain carrier of a node (Config.Plain).
type Plain struct {
	// Client and Server are the TLS configurations of the links this
	// node dials and accepts (nil, both: plain TCP). Client's ServerName
	// is filled in from the peer's address when empty.
	Client, Server *tls.Config
	// Authorize, when set, decides whether a node that completed the
	// server's TLS handshake may be a peer (the node's own rule for who
	// is a node: the service's is a node certificate).
	Authorize func(tls.ConnectionState) error
	// Refused, when set, is told of each arriving link refused in its
	// TLS handshake or by Authorize, and why (a refused node may not
	// learn it).
	Refused func(remote net.Addr, err error)
}

// Carrier is what a link is on: a gRPC stream or the plain carrier.
type Carrier string

// The carriers.
const (
	StreamCarrier Carrier = "stream"
	PlainCarrier  Carrier = "plain"
)

// handshakeWait bounds a plain link's setup: the TCP dial, the TLS
// handshake and the hellos.
const handshakeWait = 5 * time.Second

// Split divides the connections arriving at l: the plain carrier's links
// (they begin with Preface) go to links, for Transport.AcceptPlain, and
// every other connection to rest, for the node's gRPC server. A
// connection that sends fewer bytes than Preface within handshakeWait
// goes to rest. Closing either listener closes l, and with it both.
//
// It is cmux's (the connection multiplexer etcd serves gRPC and HTTP on
// one port with), matching on a prefix.
func Split(l net.Listener) (rest, links net.Listener) {
	rest, links, _ = SplitWith(l, "")
	return rest, links
}

// SplitWith is Split that also sends the connections that begin with
// prefix (not one of the links': the node's own protocols, such as the
// API's native one) to other; "": none (other is nil). Such a
// connection must send at least len(prefix)+1 bytes before it waits for
// an answer (cmux reads that many to match it).
func SplitWith(l net.Listener, prefix string) (rest, links, other net.Listener) {
	m := cmux.New(l)
	m.SetReadTimeout(handshakeWait)
	if prefix != "" {
		// First: a matcher waits for one byte more than its longest
		// prefix, and the links' is longer than a short protocol's
		// first message may be.
		other = m.Match(cmux.PrefixMatcher(prefix))
	}
	links = m.Match(cmux.PrefixMatcher(Preface))
	rest = m.Match(cmux.Any())
	go m.Serve()
	return rest, links, other
}

// plainWire is a session's stream on the plain carrier: batches of
// length-prefixed frames (appendFrame) on a connection. Send is called by
// the session's writer and by the keep-alive, Recv by its reader.
//
// Keep-alive: a connection whose far side went away without a reset (a
// one-sided drop, a silent middlebox) would swallow writes for good, as
// with gRPC, whose pings find it dead. Here each side sends a ping frame
// when it has sent nothing for a ping period (pingEvery), and a read that
// waits about KeepaliveTime + KeepaliveTimeout for anything breaks the
// link: it is redialled.
type plainWire struct {
	c net.Conn
	d *deadlineReader
	r *bufio.Reader

	limit int // the longest frame Recv takes (0: maxFrame)

	mu   sync.Mutex // Send
	w    *bufio.Writer
	fb   []byte
	sent atomic.Bool // something was sent since the keep-alive last looked
}

func newPlainWire(c net.Conn) *plainWire {
	w := &plainWire{c: c, w: bufio.NewWriterSize(c, 32<<10)}
	// The handshake's deadline holds for the hellos (set is now).
	w.d = &deadlineReader{c: c, set: time.Now()}
	w.r = bufio.NewReaderSize(w.d, 32<<10)
	return w
}

// up ends the handshake: writes wait as long as they must (a silent far
// side is found by the reads), reads as deadlineReader says from now on.
func (w *plainWire) up() {
	w.c.SetWriteDeadline(time.Time{})
	w.d.set = time.Now()
	w.c.SetReadDeadline(w.d.set.Add(KeepaliveTime + KeepaliveTimeout))
}

// deadlineReader reads from a connection, a read failing once nothing
// has come for KeepaliveTime + KeepaliveTimeout, less at most a ping
// period: the deadline is moved when a ping period has passed since it
// last was, not at every read (a timer's reset each time was a
// measurable share of a busy link's CPU).
type deadlineReader struct {
	c   net.Conn
	set time.Time // when the deadline was last moved
}

func (d *deadlineReader) Read(b []byte) (int, error) {
	if now := time.Now(); now.Sub(d.set) >= pingEvery {
		d.set = now
		d.c.SetReadDeadline(now.Add(KeepaliveTime + KeepaliveTimeout))
	}
	return d.c.Read(b)
}

// pingEvery is how often an idle side pings: a connection is silent for
// less than two of these when its far side is alive, well within the
// reader's KeepaliveTime + KeepaliveTimeout − pingEvery.
const pingEvery = KeepaliveTime / 4

func (w *plainWire) Send(fs ...*frame) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var h [binary.MaxVarintLen64]byte
	for _, f := range fs {
		w.fb = appendFrame(w.fb[:0], f)
		w.w.Write(h[:binary.PutUvarint(h[:], uint64(len(w.fb)))])
		w.w.Write(w.fb)
	}
	w.sent.Store(true)
	return w.w.Flush()
}

// maxFrame bounds a frame's length on the plain carrier: a peer's length
// is not taken on trust; maxHello, the first frame of a connection that
// arrives, before the peer is known.
const (
	maxFrame = 64 << 20
	maxHello = 4 << 10
)

// Recv reads the next frame that is not a ping. Its payload is a buffer
// of its own: the Codec may keep slices of it.
func (w *plainWire) Recv(f *frame) error {
	for {
		l, err := binary.ReadUvarint(w.r)
		if err != nil {
			return err
		}
		if l == 0 || l > maxFrame || w.limit > 0 && l > uint64(w.limit) {
			return errFrame
		}
		b := make([]byte, l)
		if _, err := io.ReadFull(w.r, b); err != nil {
			return err
		}
		if frameKind(b[0]) == framePing {
			continue
		}
		return parseFrame(b, f)
	}
}

// keepAlive pings while ctx lasts, when nothing else was sent, and closes
// the connection once ctx ends (which also ends a Send or Recv blocked on
// it).
func (w *plainWire) keepAlive(ctx context.Context) {
	t := time.NewTicker(pingEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			w.c.Close()
			return
		case <-t.C:
			if !w.sent.Swap(false) {
				w.Send(&frame{Kind: framePing})
			}
		}
	}
}

// dialPlain runs a session with the peer over a plain link until it
// breaks, and reports whether the peer took it (the hellos were
// exchanged): if not, the peer may not speak the plain carrier.
func (p *peer) dialPlain(ctx context.Context, cancel context.CancelFunc) bool {
	pl := p.t.cfg.Plain
	hctx, hcancel := context.WithTimeout(ctx, handshakeWait)
	defer hcancel()
	c, err := (&net.Dialer{}).DialContext(hctx, "tcp", p.addr)
	if err != nil {
		return false
	}
	c.SetDeadline(time.Now().Add(handshakeWait))
	if _, err := io.WriteString(c, Preface); err != nil {
		c.Close()
		return false
	}
	if pl.Client != nil {
		cfg := pl.Client
		if cfg.ServerName == "" {
			cfg = cfg.Clone()
			cfg.ServerName, _, _ = net.SplitHostPort(p.addr)
		}
		tc := tls.Client(c, cfg)
		if err := tc.HandshakeContext(hctx); err != nil {
			c.Close()
			return false
		}
		c = tc
	}
	w := newPlainWire(c)
	their := new(frame)
	if w.Send(p.hello()) != nil || w.Recv(their) != nil || their.Kind != frameHello || their.Node != p.name {
		c.Close()
		return false
	}
	w.up()
	p.t.wg.Add(1) // on the dialler's goroutine, which the group counts
	go func() {
		defer p.t.wg.Done()
		w.keepAlive(ctx)
	}()
	p.serve(ctx, cancel, w, their, false)
	return true
}

// AcceptPlain takes the plain links that arrive at l (Split's links) from
// now on; l is closed by Close. Without it, the node's peers link to it
// over gRPC streams.
func (t *Transport) AcceptPlain(l net.Listener) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return errors.Join(errClosing, l.Close())
	}
	if t.cfg.Plain == nil {
		return errors.New("link: a node takes plain links only with Config.Plain")
	}
	t.plainLs = append(t.plainLs, l)
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.mu.Lock()
			if t.closed {
				t.mu.Unlock()
				c.Close()
				return
			}
			t.wg.Add(1)
			t.mu.Unlock()
			go func() {
				defer t.wg.Done()
				t.acceptPlain(c)
			}()
		}
	}()
	return nil
}

var errClosing = errors.New("link: the node is closing")

// acceptPlain runs a session over the plain link c, a neighbour's that
// dials this node, until it breaks.
func (t *Transport) acceptPlain(c net.Conn) {
	pl := t.cfg.Plain
	c.SetDeadline(time.Now().Add(handshakeWait))
	pre := make([]byte, len(Preface))
	if _, err := io.ReadFull(c, pre); err != nil || string(pre) != Preface {
		c.Close()
		return
	}
	if pl.Server != nil {
		tc := tls.Server(c, pl.Server)
		err := tc.Handshake()
		if err == nil && pl.Authorize != nil {
			err = pl.Authorize(tc.ConnectionState())
		}
		if err != nil {
			if pl.Refused != nil {
				pl.Refused(c.RemoteAddr(), err)
			}
			c.Close()
			return
		}
		c = tc
	}
	w := newPlainWire(c)
	w.limit = maxHello
	their := new(frame)
	err := w.Recv(their)
	w.limit = 0
	if err != nil {
		c.Close()
		return
	}
	p := t.peer(their.Node)
	if their.Kind != frameHello || p == nil || p.conn != nil {
		// Not a peer, or one that this node dials.
		c.Close()
		return
	}
	w.up()
	ctx, cancel := context.WithCancel(p.ctx)
	t.wg.Add(1) // on a goroutine the group counts
	go func() {
		defer t.wg.Done()
		w.keepAlive(ctx)
	}()
	p.serve(ctx, cancel, w, their, true)
}
