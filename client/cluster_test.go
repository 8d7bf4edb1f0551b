package client_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/allot-dev/allot/service"
)

// testQuotas are the quotas of the test clusters.
var testQuotas = map[string]service.QuotaSpec{"q": {Budget: 20, Waste: 4}, "calls": {Budget: 100, Waste: 10}}

// cluster starts n nodes in this process on loopback ports and returns
// their addresses; the nodes stop when the test ends, and their event logs
// are returned by the func.
func cluster(t testing.TB, n int, lockDelay time.Duration) ([]string, func() [][]byte) {
	return clusterVia(t, n, lockDelay, nil)
}

// clusterVia is cluster with node i dialling the others at via(i, addrs)
// (nil: at addrs).
func clusterVia(t testing.TB, n int, lockDelay time.Duration, via func(i int, addrs []string) []string) ([]string, func() [][]byte) {
	t.Helper()
	var lns []net.Listener
	var addrs []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	logs := make([]*bytes.Buffer, n)
	slogs := make([]*lockedBuffer, n)
	var nodes []*service.Node
	var servers []*grpc.Server
	for i := range n {
		logs[i] = &bytes.Buffer{}
		slogs[i] = &lockedBuffer{}
		// A lease of 3s, not the default 1s: these nodes never crash, and
		// under the race detector on a loaded machine a renewal can be
		// late by a second, which fences a healthy node (as it must) and
		// ends the sessions of a test that is not about that.
		cfg := service.Config{Cluster: service.Cluster{Nodes: addrs, Slots: 8, Quotas: testQuotas}, Self: i, Events: logs[i], Log: slog.New(slog.NewTextHandler(slogs[i], nil)), LockDelay: lockDelay, Suspect: 3 * time.Second}
		if via != nil {
			cfg.PeerAddrs = via(i, addrs)
		}
		nd, err := service.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s := grpc.NewServer()
		if err := nd.Register(s); err != nil {
			t.Fatal(err)
		}
		go nd.Serve(s, lns[i]) // the native protocol and the plain links too
		nodes = append(nodes, nd)
		servers = append(servers, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, nd := range nodes {
		if err := nd.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var once sync.Once
	t.Cleanup(func() {
		// Registered before stop's cleanup, so run after it: the logs are
		// whole and no node writes them any more.
		if !t.Failed() {
			return
		}
		for i, b := range slogs {
			lines := strings.Split(strings.TrimSpace(b.String()), "\n")
			t.Logf("node %d's log, its last %d lines:\n%s", i, min(len(lines), 40), strings.Join(lines[max(0, len(lines)-40):], "\n"))
		}
	})
	stop := func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			for i, nd := range nodes {
				nd.Shutdown(ctx)
				servers[i].Stop()
			}
		})
	}
	t.Cleanup(stop)
	return addrs, func() [][]byte {
		stop()
		out := make([][]byte, n)
		for i, b := range logs {
			out[i] = b.Bytes()
		}
		return out
	}
}
