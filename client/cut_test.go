package client_test

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// proxy forwards loopback connections to a node and can cut every one of
// them at once, as a broken network would, or hold back what they carry
// towards the node (not what comes back), as a stalled link would.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	cuts   int
	open   chan struct{} // closed while bytes pass towards the node
}

func newProxy(t testing.TB, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, open: make(chan struct{})}
	close(p.open)
	t.Cleanup(func() { ln.Close(); p.pass(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, d)
			p.mu.Unlock()
			go func() { p.forward(d, c); d.Close() }()
			go func() { io.Copy(c, d); c.Close() }()
		}
	}()
	return p
}

// forward copies from src to dst, each read waiting while the proxy holds.
func (p *proxy) forward(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			open := p.open
			p.mu.Unlock()
			<-open
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// hold holds back what is read towards the node from now on.
func (p *proxy) hold() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
		p.open = make(chan struct{})
	default:
	}
}

// pass lets everything through again.
func (p *proxy) pass() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
	default:
		close(p.open)
	}
}

// cut closes every connection through the proxy; new ones may follow.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.cuts++
}

// TestCutLinks cuts every link between the nodes again and again while
// the workload runs: the link layer resends what was lost and drops what
// arrives twice, so the algorithms see reliable channels, every request is
// answered and nothing overlaps.
func TestCutLinks(t *testing.T) {
	var proxies []*proxy
	addrs, stop := clusterVia(t, 3, 0, func(i int, addrs []string) []string {
		via := make([]string, len(addrs))
		for k, a := range addrs {
			if k != i {
				p := newProxy(t, a)
				proxies = append(proxies, p)
				via[k] = p.ln.Addr().String()
			}
		}
		return via
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for k := 0; ; k++ {
			select {
			case <-ctx.Done():
				return
			case <-time.After(40 * time.Millisecond):
			}
			proxies[k%len(proxies)].cut()
		}
	}()
	workload(context.Background(), t, addrs, 9, 3, 30)
	cancel()
	<-done
	cuts := 0
	for _, p := range proxies {
		cuts += p.cuts
	}
	v := verifyLogs(t, stop())
	t.Logf("%d cuts; %v", cuts, v)
	if cuts < 5 {
		t.Errorf("only %d cuts happened during the run", cuts)
	}
}
