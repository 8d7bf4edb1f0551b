package client_test

import (
	"context"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/allot-dev/allot/chaos"
	"github.com/allot-dev/allot/client"
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

// TestFollowerCutKeepsGranting cuts the link between the two followers
// of three silently, both ways (the proxies forward nothing and close
// nothing, as an iptables DROP would), for cutFor, while lockers on every
// node lock and unlock. The leader hears both followers, so its own
// failure detector never changes the view; before the followers reported
// whom they hear, no lock was granted until the heal. Now a view without
// one of them serves within the control plane's bound (control's
// cutBound: Lease + Lease/4 + the wait of a run left out that still holds
// its lease, (1+2ρ)(1+ρ)·Lease + Margin, and the round trips: about 2.5
// leases), and the lockers go on: the longest time without a grant after
// the cut stays within that bound and a second for the clients to move
// their sessions. Both followers serve again after the heal.
func TestFollowerCutKeepsGranting(t *testing.T) {
	if testing.Short() {
		t.Skip("a cut of several leases")
	}
	const n = 3
	c, links := proxiedCluster(t, n)
	// The three in one view, and who leads it.
	ld := -1
	for deadline := time.Now().Add(10 * time.Second); ld < 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no view of three within 10s")
		}
		c.mu.Lock()
		ms, _ := c.nodes[0].Members()
		c.mu.Unlock()
		in := 0
		for _, m := range ms {
			if m.InView {
				in++
			}
			if m.Leader && len(ms) == n {
				ld = m.ID
			}
		}
		if in != n {
			ld = -1
		}
	}
	var fs []int
	for i := range n {
		if i != ld {
			fs = append(fs, i)
		}
	}
	a, b := fs[0], fs[1]

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var (
		mu     sync.Mutex
		grants []time.Time
		moved  int // sessions a locker opened again
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	names := []string{"c0", "c1", "c2", "c3", "c4", "c5"}
	for w := range 6 {
		// Each locker's client knows every node, its own first: the
		// lockers' sessions start on every node, the followers' too.
		order := append(slices.Clone(c.addrs[w%n:]), c.addrs[:w%n]...)
		wg.Go(func() {
			cl, err := client.Dial(ctx, order...)
			if err != nil {
				t.Error(err)
				return
			}
			defer cl.Close()
			var s *client.Session
			for k := 0; ; k++ {
				select {
				case <-stop:
					if s != nil {
						s.Close(context.Background())
					}
					return
				default:
				}
				if s == nil {
					if s, err = cl.Session(ctx, client.WithTTL(5*time.Second)); err != nil {
						s = nil
						time.Sleep(50 * time.Millisecond)
						continue
					}
				}
				lctx, lcancel := context.WithTimeout(ctx, 15*time.Second)
				g, err := s.Lock(lctx, names[(w+k)%len(names)], names[(w+2*k+1)%len(names)])
				lcancel()
				if err != nil {
					// A session its node ended (it left the view): a client
					// opens another.
					s.Close(context.Background())
					s = nil
					mu.Lock()
					moved++
					mu.Unlock()
					continue
				}
				mu.Lock()
				grants = append(grants, time.Now())
				mu.Unlock()
				time.Sleep(time.Millisecond)
				uctx, ucancel := context.WithTimeout(ctx, 5*time.Second)
				g.Unlock(uctx)
				ucancel()
			}
		})
	}
	count := func(from, to time.Time) int {
		mu.Lock()
		defer mu.Unlock()
		k := 0
		for _, g := range grants {
			if !g.Before(from) && g.Before(to) {
				k++
			}
		}
		return k
	}
	time.Sleep(2 * time.Second)
	warm := time.Now()
	time.Sleep(2 * time.Second)
	before := count(warm, time.Now())
	if before == 0 {
		t.Fatal("no lock granted before the cut")
	}

	const cutFor = 10 * time.Second
	for _, p := range []*chaos.Proxy{links[a][b], links[b][a]} {
		p.Hold(chaos.Forward)
		p.Hold(chaos.Backward)
	}
	cutAt := time.Now()
	time.Sleep(cutFor)
	healAt := time.Now()
	for _, p := range []*chaos.Proxy{links[a][b], links[b][a]} {
		p.Release()
	}
	// Both followers back in one view.
	back := time.Time{}
	for deadline := time.Now().Add(10 * time.Second); back.IsZero() && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		c.mu.Lock()
		ms, _ := c.nodes[ld].Members()
		c.mu.Unlock()
		in := 0
		for _, m := range ms {
			if m.InView {
				in++
			}
		}
		if in == n {
			back = time.Now()
		}
	}
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()

	// The stall: the longest time without a grant from the cut to the
	// heal, and when it ended (the first grant of the view without one
	// of the two), and steady service: the first quarter second from
	// which every quarter until the heal had a grant.
	mu.Lock()
	gs := slices.Clone(grants)
	mu.Unlock()
	slices.SortFunc(gs, func(x, y time.Time) int { return x.Compare(y) })
	last, stall, resumed := cutAt, time.Duration(0), healAt
	for _, g := range gs {
		if g.Before(cutAt) || !g.Before(healAt) {
			continue
		}
		if g.Sub(last) > stall {
			stall, resumed = g.Sub(last), g
		}
		last = g
	}
	if healAt.Sub(last) > stall {
		stall, resumed = healAt.Sub(last), healAt
	}
	const q = 250 * time.Millisecond
	steady := healAt
	for at := healAt.Add(-q); !at.Before(cutAt) && count(at, at.Add(q)) > 0; at = at.Add(-q) {
		steady = at
	}
	var hist []int
	for at := cutAt.Add(-time.Second); at.Before(healAt.Add(time.Second)); at = at.Add(q) {
		hist = append(hist, count(at, at.Add(q)))
	}
	t.Logf("grants per quarter second from 1s before the cut to 1s after the heal: %v", hist)
	t.Logf("leader %d, link %d-%d cut for %v: %d grants in the 2s before; longest time without a grant %v, granting again at +%v; steady from +%v; %d grants during the cut; %d sessions opened again; both back in the view %v after the heal",
		ld, a, b, cutFor, before, stall.Round(time.Millisecond), resumed.Sub(cutAt).Round(time.Millisecond), steady.Sub(cutAt).Round(time.Millisecond),
		count(cutAt, healAt), moved, back.Sub(healAt).Round(time.Millisecond))
	bound := 5*testSuspect/2 + time.Second
	if stall > bound {
		t.Errorf("no lock granted for %v during the cut, want at most %v (2.5 leases, and a second for the clients)", stall.Round(time.Millisecond), bound)
	}
	if back.IsZero() {
		t.Error("the cut follower was not back in the view within 10s of the heal")
	}
	// The nodes stop first: their event logs are written out then.
	for i := range n {
		c.crash(i)
	}
	verifyLogs(t, c.records(t))
}

// proxiedCluster is a crashable cluster of n nodes whose links go through
// proxies: links[i][k] carries node i's connections to node k.
func proxiedCluster(t *testing.T, n int) (*crashable, [][]*chaos.Proxy) {
	links := make([][]*chaos.Proxy, n)
	c := newCrashableVia(t, n, func(i int, addrs []string) []string {
		links[i] = make([]*chaos.Proxy, n)
		via := slices.Clone(addrs)
		for k, a := range addrs {
			if k == i {
				continue
			}
			p, err := chaos.NewProxy(a)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.Close)
			links[i][k], via[k] = p, p.Addr()
		}
		return via
	})
	return c, links
}
