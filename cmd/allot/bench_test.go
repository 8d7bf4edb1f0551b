package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestScrapeNodes reads the counters the bench divides by operations off
// two fake nodes: only the named families count (a stream's handled calls
// and other families are left out; the calls carried by a Calls stream
// count), each node's on its own; the per-operation figures are over the
// nodes' sums, with the busiest node's shares.
func TestScrapeNodes(t *testing.T) {
	page := func(cpu, msgs float64) string {
		return fmt.Sprintf(`# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total %g
allot_messages_total{message="central.Req"} %g
allot_messages_total{message="central.Grant"} 1
grpc_server_handled_total{grpc_code="OK",grpc_method="Lock",grpc_service="allot.v1.Allot",grpc_type="unary"} 3
grpc_server_handled_total{grpc_code="OK",grpc_method="Connect",grpc_service="allot.link.Link",grpc_type="bidi_stream"} 100
grpc_server_handled_total{grpc_code="OK",grpc_method="Calls",grpc_service="allot.v1.Allot",grpc_type="bidi_stream"} 1
allot_stream_calls_total{grpc_code="OK",grpc_method="Unlock"} 4
allot_stream_calls_total{grpc_code="NotFound",grpc_method="Unlock"} 1
allot_link_messages_total %g
allot_link_batches_total 2
allot_sessions 7
`, cpu, msgs, msgs/2)
	}
	var addrs []string
	for _, p := range []string{page(1.5, 10), page(0.25, 2)} {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, p) }))
		defer s.Close()
		addrs = append(addrs, strings.TrimPrefix(s.URL, "http://"))
	}
	c, err := scrapeNodes(context.Background(), addrs)
	if err != nil {
		t.Fatal(err)
	}
	want := []nodeCounts{{cpu: 1.5, messages: 11, calls: 8, link: 5, batches: 2}, {cpu: 0.25, messages: 3, calls: 8, link: 1, batches: 2}}
	if len(c) != 2 || c[0] != want[0] || c[1] != want[1] {
		t.Errorf("got %+v, want %+v", c, want)
	}

	r := benchResult{PerClient: []int{2, 2}}
	r.perOp([]nodeCounts{{cpu: 1, messages: 10, calls: 2, link: 1, batches: 1}, {}},
		[]nodeCounts{{cpu: 1.0015, messages: 25, calls: 6, link: 6, batches: 3}, {cpu: 0.0005, messages: 5, calls: 4, link: 3, batches: 2}})
	if r.NodeCPUusPerOp == nil || *r.NodeCPUusPerOp < 499.9 || *r.NodeCPUusPerOp > 500.1 || *r.MessagesPerOp != 5 || *r.CallsPerOp != 2 || *r.LinkMessagesPerOp != 2 || *r.LinkBatchesPerOp != 1 {
		t.Errorf("per op: %v µs %v messages (%v across, %v batches) %v calls, want 500 µs, 5 messages (2 across, 1 batch), 2 calls",
			*r.NodeCPUusPerOp, *r.MessagesPerOp, *r.LinkMessagesPerOp, *r.LinkBatchesPerOp, *r.CallsPerOp)
	}
	if r.BusiestNodeMessageShare == nil || *r.BusiestNodeMessageShare != 0.75 || r.BusiestNodeCPUShare == nil || *r.BusiestNodeCPUShare < 0.7499 || *r.BusiestNodeCPUShare > 0.7501 {
		t.Errorf("busiest node's shares: %v of the messages, %v of the CPU, want 0.75 of both", r.BusiestNodeMessageShare, r.BusiestNodeCPUShare)
	}
	none := benchResult{PerClient: []int{0}}
	none.perOp([]nodeCounts{{}}, []nodeCounts{{cpu: 1}})
	if none.NodeCPUusPerOp != nil {
		t.Error("no operations: a per-op figure was made up")
	}

	gone := httptest.NewServer(http.NotFoundHandler())
	defer gone.Close()
	if _, err := scrapeNodes(context.Background(), append(addrs, strings.TrimPrefix(gone.URL, "http://"))); err == nil {
		t.Error("a node without /metrics: no error")
	}
}

// TestDrawKeys: W4's names are distinct within an operation and drawn
// from the whole space, without a permutation of it.
func TestDrawKeys(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	keys := make([]string, 4)
	seen := map[string]bool{}
	for range 200 {
		drawKeys(rnd, keys, 5)
		for i, k := range keys {
			if slices.Contains(keys[:i], k) {
				t.Fatalf("%v: %s twice", keys, k)
			}
			seen[k] = true
		}
	}
	if len(seen) != 5 {
		t.Errorf("200 draws of 4 of 5 names used %d of them", len(seen))
	}
}
