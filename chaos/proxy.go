package chaos

import (
	"net"
	"sync"
)

// Dir is a direction of the bytes through a Proxy: Forward from the
// dialling side to the target, Backward from the target to the dialler.
type Dir int

const (
	Forward Dir = iota
	Backward
)

// Proxy forwards TCP connections from a loopback port to a target, and
// breaks them on demand, as a broken or partitioned link would: Cut
// closes every connection (new ones may follow at once); Down closes them
// and refuses new ones until Up; Hold forwards nothing in one direction
// while every connection stays open (a link that drops packets silently:
// the sender's bytes pile up as TCP's would, and flow on after Release,
// or never, if ResetOneSide closes one side only).
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	moved *sync.Cond // a hold ended or a connection closed
	pairs map[*pair]struct{}
	down  bool
	hold  [2]bool
}

// pair is one connection through the proxy: from the dialler (in) and to
// the target (out).
type pair struct {
	in, out net.Conn
	// half: one side was reset and the other is left open, forwarding
	// nothing, until its own end closes it (a reset seen by one side
	// only).
	half   bool
	left   int  // pipes still running
	closed bool // both sides closed
}

// NewProxy listens on a free loopback port.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, pairs: map[*pair]struct{}{}}
	p.moved = sync.NewCond(&p.mu)
	go p.serve()
	return p, nil
}

// Addr is the proxy's address.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		d, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			c.Close()
			d.Close()
			continue
		}
		pr := &pair{in: c, out: d, left: 2}
		p.pairs[pr] = struct{}{}
		p.mu.Unlock()
		go p.pipe(pr, Forward)
		go p.pipe(pr, Backward)
	}
}

// pipe copies one direction of a pair, waiting while that direction is
// held.
func (p *Proxy) pipe(pr *pair, dir Dir) {
	src, dst := pr.in, pr.out
	if dir == Backward {
		src, dst = pr.out, pr.in
	}
	buf := make([]byte, 32<<10)
	readErr := false
	for {
		n, err := src.Read(buf)
		readErr = err != nil
		if n > 0 && p.pass(pr, dir) {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				err = werr
			}
		}
		if err != nil {
			break
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	pr.left--
	if pr.half {
		// The side left open was read (its bytes dropped) until its own
		// end closed it; a failed write to the reset side closes nothing.
		if readErr {
			src.Close()
		}
	} else {
		pr.closed = true
		src.Close()
		dst.Close()
	}
	if pr.left == 0 {
		delete(p.pairs, pr)
	}
	p.moved.Broadcast()
}

// pass waits while dir is held; false if the bytes are to be dropped (the
// pair was reset on one side or closed meanwhile).
func (p *Proxy) pass(pr *pair, dir Dir) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.hold[dir] && !pr.half && !pr.closed {
		p.moved.Wait()
	}
	return !pr.half && !pr.closed
}

func (p *Proxy) closeAll() {
	for pr := range p.pairs {
		pr.closed = true
		pr.in.Close()
		pr.out.Close()
	}
	clear(p.pairs)
	p.moved.Broadcast()
}

// Cut closes every connection through the proxy.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeAll()
}

// Down cuts and refuses connections until Up.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	p.closeAll()
}

// Up lets connections through again.
func (p *Proxy) Up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// Hold stops forwarding dir on every connection, present and new, until
// Release: connections stay open and nothing tells either end.
func (p *Proxy) Hold(dir Dir) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hold[dir] = true
}

// Release forwards both directions again, with what was held.
func (p *Proxy) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hold = [2]bool{}
	p.moved.Broadcast()
}

// ResetOneSide closes the connections' dialling side (target false) or
// target side (true) and leaves the other open, forwarding nothing: one
// end sees its connection reset, the other nothing at all, as after a
// silent drop where one side's retransmissions gave up and the other's
// never started. Holds end too.
func (p *Proxy) ResetOneSide(target bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for pr := range p.pairs {
		pr.half = true
		if target {
			pr.out.Close()
		} else {
			pr.in.Close()
		}
	}
	p.hold = [2]bool{}
	p.moved.Broadcast()
}

// Close stops the proxy and its connections.
func (p *Proxy) Close() {
	p.ln.Close()
	p.Cut()
}
