package main

import (
	"context"
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"google.golang.org/grpc"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service"
)

// clusterInProcess starts n nodes in this process, each with its status
// served on an HTTP server of its own, and returns the gRPC addresses and
// the status addresses.
func clusterInProcess(t *testing.T, n int) (cl service.Cluster, addrs, status []string) {
	t.Helper()
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	cl = service.Cluster{Nodes: addrs, Quotas: map[string]service.QuotaSpec{"api-calls": {Budget: 10, Waste: 2}}}
	for i := range n {
		nd, err := service.New(service.Config{Cluster: cl, Self: i})
		if err != nil {
			t.Fatal(err)
		}
		s := grpc.NewServer()
		if err := nd.Register(s); err != nil {
			t.Fatal(err)
		}
		go s.Serve(lns[i])
		hs := httptest.NewServer(nd.StatusHandler())
		status = append(status, strings.TrimPrefix(hs.URL, "http://"))
		t.Cleanup(func() {
			hs.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			nd.Shutdown(ctx)
			s.Stop()
		})
	}
	return cl, addrs, status
}

// The live view shows a lock a client takes, with its token, and a node
// that cannot be reached, on the page and on stderr.
func TestBrowserCluster(t *testing.T) {
	ctx := browser(t)
	cl, addrs, status := clusterInProcess(t, 3)
	// An address nothing listens on: a node that cannot be reached.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()

	cctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Dial(cctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.Session(cctx, client.WithTTL(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close(cctx)
	g, err := sess.Lock(cctx, "accounts/alice")
	if err != nil {
		t.Fatal(err)
	}
	tok := g.Token("accounts/alice")
	if err := sess.Quota("api-calls").Take(cctx, 3); err != nil {
		t.Fatal(err)
	}
	unit, err := sess.Semaphore("printers", 2).AcquireUnit(cctx)
	if err != nil {
		t.Fatal(err)
	}

	// A second session waits for the same lock.
	sess2, err := c.Session(cctx, client.WithTTL(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer sess2.Close(cctx)
	second := make(chan *client.Grant, 1)
	go func() {
		g2, err := sess2.Lock(cctx, "accounts/alice")
		if err != nil {
			t.Error(err)
		}
		second <- g2
	}()

	_, stderr := open(t, ctx, "--cluster", strings.Join(append(status, dead), ","))
	want := cl.LockKey("accounts/alice")
	var s pageState
	deadline := time.Now().Add(10 * time.Second)
	for {
		s = state(t, ctx)
		if len(s.Holders) > 0 && len(s.Waiting) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(s.Holders) != 1 || s.Holders[0].Resource != want || s.Holders[0].Epoch != tok.Epoch || s.Holders[0].Counter != tok.Counter ||
		s.Holders[0].Session != strconv.FormatUint(sess.ID(), 10) {
		t.Fatalf("holders on the page: %+v, want %s held by session %d with token %v", s.Holders, want, sess.ID(), tok)
	}
	if len(s.Waiting) != 1 || s.Waiting[0].Session != strconv.FormatUint(sess2.ID(), 10) {
		t.Errorf("waiting on the page: %+v, want session %d", s.Waiting, sess2.ID())
	}
	cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#holders td')].map(td => td.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 5 || cells[0] != want || cells[4] != "("+tok.String()[:strings.IndexByte(tok.String(), '.')]+", "+tok.String()[strings.IndexByte(tok.String(), '.')+1:]+")" {
		t.Errorf("the holders table: %q, want %s and token %v", cells, want, tok)
	}
	quota, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#quotas td')].map(td => td.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(quota) != 5 || quota[0] != "api-calls" || quota[3] != "3" || quota[4] != "7" {
		t.Errorf("the quotas table: %q, want api-calls with 3 issued and 7 left", quota)
	}
	if len(s.Nodes) != 4 || s.Nodes[3].Error == "" || s.Nodes[0].Error != "" {
		t.Errorf("nodes: %+v, want 3 up and %s unreachable", s.Nodes, dead)
	}
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("message")))
	if err != nil || !strings.Contains(msg, dead) {
		t.Errorf("the page's message %q (%v), want it to name %s", msg, err, dead)
	}
	units, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#units td')].map(td => td.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(units) != 5 || units[0] != "sem/printers/2" || units[1] != strconv.Itoa(unit.Unit()) {
		t.Errorf("the units table: %q, want sem/printers/2 unit %d", units, unit.Unit())
	}
	screenshot(t, ctx, "cluster")

	// After Unlock the page shows the second session holding, with its
	// larger token.
	if err := g.Unlock(cctx); err != nil {
		t.Fatal(err)
	}
	g2 := <-second
	if g2 == nil {
		t.FailNow()
	}
	tok2 := g2.Token("accounts/alice")
	deadline = time.Now().Add(10 * time.Second)
	for s = state(t, ctx); (len(s.Holders) != 1 || s.Holders[0].Counter != tok2.Counter) && time.Now().Before(deadline); s = state(t, ctx) {
		time.Sleep(200 * time.Millisecond)
	}
	if len(s.Holders) != 1 || s.Holders[0].Session != strconv.FormatUint(sess2.ID(), 10) || s.Holders[0].Counter != tok2.Counter || len(s.Waiting) != 0 || !tok.Less(tok2) {
		t.Errorf("after Unlock: holders %+v, waiting %+v; want session %d with token %v > %v", s.Holders, s.Waiting, sess2.ID(), tok2, tok)
	}
	if !strings.Contains(stderr, "allot: cluster node "+dead) {
		t.Errorf("stderr %q, want a line naming %s", stderr, dead)
	}
}
