package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/allot-dev/allot/service"
)

// TestQuickstart runs the README's client example against three nodes on
// loopback, with the quota allot cluster's example declares.
func TestQuickstart(t *testing.T) {
	var lns []net.Listener
	var addrs []string
	for range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	for i := range 3 {
		nd, err := service.New(service.Config{Self: i, Cluster: service.Cluster{
			Nodes: addrs, Quotas: map[string]service.QuotaSpec{"api-calls": {Budget: 1000, Waste: 100}}}})
		if err != nil {
			t.Fatal(err)
		}
		s := grpc.NewServer()
		if err := nd.Register(s); err != nil {
			t.Fatal(err)
		}
		go s.Serve(lns[i])
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			nd.Shutdown(ctx)
			s.Stop()
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, addrs, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"locked accounts/alice and accounts/bob, tokens ", "1 of 4 units held", "1 permit taken"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
