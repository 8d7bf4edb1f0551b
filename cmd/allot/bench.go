package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service"
)

// benchWorkload is one of the peer workloads (the peers harness runs the
// same ones on etcd, ZooKeeper and Redis).
type benchWorkload struct {
	name    string
	clients int
	keys    int // locked per operation
	space   int // drawn from this many keys
	hold    time.Duration
	// pair: the latency is Lock and Unlock together (W1, as the peers
	// harness measures it); otherwise the Lock's.
	pair bool
}

var benchWorkloads = []benchWorkload{
	{"W1", 1, 1, 1, 0, true},
	{"W2", 8, 1, 1, 0, false},
	{"W3", 32, 4, 64, time.Millisecond, false},
	// W4, independent names: its sessions and space are --w4-sessions
	// and --w4-names. Nearly every Lock finds its name free, so what it
	// shows is what a grant costs the cluster and where that cost lands,
	// not contention.
	{"W4", 16, 1, 1000000, 0, false},
}

// benchResult is one workload's line of the report.
type benchResult struct {
	Name         string  `json:"name"`
	OpsPerSecond float64 `json:"ops_per_second"`
	P50us        float64 `json:"p50_us"`
	P99us        float64 `json:"p99_us"`
	PerClient    []int   `json:"per_client"`
	// What the nodes spent per operation, read off their /metrics around
	// the measured run (the bench's own cluster, or --metrics): CPU
	// (user+system of the node processes, summed), algorithm messages
	// sent, those of them (and the control plane's) that crossed to
	// another node, the gRPC messages (batches) that carried them, and
	// API calls answered. Unlike the latencies they
	// hardly move with the load of the machine, so they are the figures
	// to compare versions by.
	NodeCPUusPerOp    *float64 `json:"node_cpu_us_per_op,omitempty"`
	MessagesPerOp     *float64 `json:"messages_per_op,omitempty"`
	LinkMessagesPerOp *float64 `json:"link_messages_per_op,omitempty"`
	LinkBatchesPerOp  *float64 `json:"link_batches_per_op,omitempty"`
	CallsPerOp        *float64 `json:"calls_per_op,omitempty"`
	// BusiestNodeMessageShare and BusiestNodeCPUShare: the largest
	// share one node has of the algorithm messages sent and of the node
	// CPU used during the run (1/N when the work is spread evenly, near 1
	// when one process handles every request).
	BusiestNodeMessageShare *float64 `json:"busiest_node_message_share,omitempty"`
	BusiestNodeCPUShare     *float64 `json:"busiest_node_cpu_share,omitempty"`
	// P50usByNode: a one-client workload (W1) on a cluster of several
	// nodes runs its session on each node in turn, for an equal share of
	// the run, since its latency depends on where the session is: on the
	// name's home, the algorithm's messages stay inside the node. The p50
	// of each share, by the address of the session's node; P50us and
	// P99us are over them all.
	P50usByNode map[string]float64 `json:"p50_us_by_node,omitempty"`
}

func benchCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("allot bench", flag.ContinueOnError)
	addr := fs.String("addr", "", "the cluster's node addresses, comma-separated (default: start a cluster of --nodes nodes on loopback and stop it afterwards)")
	nodes := fs.Int("nodes", 3, "the bench's own cluster: how many nodes, 1 to 64 (with --addr: the addresses given)")
	dur := fs.Duration("duration", 3*time.Second, "how long each workload runs")
	maxOps := fs.Int("max-ops", 200000, "stop a workload after this many operations")
	warmup := fs.Duration("warmup", 0, "run each workload this long, unmeasured, before it is measured (as the peers benchmark does for every system)")
	metricsAddr := fs.String("metrics", "", "with --addr: the nodes' metrics addresses (allot serve --metrics), comma-separated, to report the nodes' CPU, messages and calls per operation (the bench's own cluster: always)")
	format := fs.String("format", "table", "output: table or json")
	only := fs.String("workloads", "W1,W2,W3", "the workloads to run (W1, W2, W3, W4)")
	lock := fs.String("lock", "", "the bench's own cluster: the algorithm serving Lock (default allot serve's)")
	w4Sessions := fs.Int("w4-sessions", 16, "W4's sessions, spread over the nodes")
	w4Names := fs.Int("w4-names", 1000000, "W4's name space: each operation locks one name drawn uniformly from this many")
	var co clientOpts // a secure cluster's certificate and token, with --addr
	co.secureFlags(fs)
	protocol := fs.String("protocol", "native", "what the client's Lock, Unlock, Acquire and Release travel on: native (the nodes' native protocol, gRPC where a node does not speak it) or grpc (the Calls stream)")
	near := fs.Bool("near", false, "W1 and W2 open their sessions at their one key's home node (client.WithNear), where its Lock takes no message between nodes; without it, sessions are spread over the nodes (W1: on each in turn)")
	if err := parseFlags(fs, args, stdout, "usage: allot bench [--nodes N | --addr A,B,C [--tls-ca F --tls-cert F --tls-key F [--token-file F]]] [flags]\n\nW1: one client, Lock+Unlock of one key; W2: 8 clients on one lock, hold 0;\nW3: 32 clients, each locking 4 random keys of 64 in one call, hold 1ms;\nW4: independent names, --w4-sessions clients each locking one random name of --w4-names, hold 0.\nAn operation is Lock then Unlock; its latency is the Lock's (W1: both calls').\nNode CPU, messages and calls per operation are read off the nodes' /metrics."); err != nil {
		return err
	}
	if *format != "table" && *format != "json" {
		return badf("--format %q: want table or json", *format)
	}
	if *dur <= 0 || *maxOps <= 0 {
		return badf("--duration and --max-ops must be positive")
	}
	if *warmup < 0 {
		return badf("--warmup must not be negative")
	}
	if *protocol != string(client.ProtocolNative) && *protocol != string(client.ProtocolGRPC) {
		return badf("--protocol %q: want native or grpc", *protocol)
	}
	if *nodes < 1 || *nodes > 64 {
		return badf("--nodes %d: want 1 to 64", *nodes)
	}
	if *w4Sessions < 1 || *w4Sessions > 4096 {
		return badf("--w4-sessions %d: want 1 to 4096", *w4Sessions)
	}
	if *w4Names < 1 {
		return badf("--w4-names %d: want at least 1", *w4Names)
	}
	nodesSet := false
	fs.Visit(func(f *flag.Flag) { nodesSet = nodesSet || f.Name == "nodes" })
	if *addr != "" && nodesSet {
		return badf("--nodes is the size of the bench's own cluster; with --addr the cluster is the addresses given")
	}
	if *addr == "" && (co.ca != "" || co.cert != "" || co.key != "" || co.tokenFile != "") {
		return badf("--tls-ca, --tls-cert, --tls-key and --token-file are for a cluster given with --addr (the bench's own is plaintext)")
	}
	var ws []benchWorkload
	for _, n := range strings.Split(*only, ",") {
		i := slices.IndexFunc(benchWorkloads, func(w benchWorkload) bool { return w.name == strings.TrimSpace(n) })
		if i < 0 {
			return badf("unknown workload %q (want W1, W2, W3, W4)", n)
		}
		w := benchWorkloads[i]
		if w.name == "W4" {
			w.clients, w.space = *w4Sessions, *w4Names
		}
		ws = append(ws, w)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var addrs, metrics []string
	if *lock != "" && *addr != "" {
		return badf("--lock is the bench's own cluster's; a cluster at --addr serves the lock it was started with")
	}
	if *lock != "" && !slices.Contains(service.LockAlgorithms(), *lock) {
		return badf("--lock %q: want one of %s", *lock, strings.Join(service.LockAlgorithms(), ", "))
	}
	if *metricsAddr != "" && *addr == "" {
		return badf("--metrics needs --addr (the bench's own cluster reports its metrics anyway)")
	}
	if *addr != "" {
		addrs = strings.Split(*addr, ",")
		if *metricsAddr != "" {
			metrics = strings.Split(*metricsAddr, ",")
		}
	} else {
		// The bench's cluster is thrown away with its data.
		tmp, err := os.MkdirTemp("", "allot-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		sp := clusterSpec{n: *nodes, dataDir: tmp, metrics: true, lock: *lock}
		cl, err := startCluster(ctx, sp, stderr)
		if err != nil {
			return err
		}
		defer cl.stop()
		addrs = cl.addrs
		metrics = cl.metrics
	}
	co.addr = strings.Join(addrs, ",")
	co.protocol = client.Protocol(*protocol)
	c, err := co.dial(ctx, "bench")
	if err != nil {
		return err
	}
	defer c.Close()
	var out []benchResult
	for _, w := range ws {
		if *warmup > 0 {
			if _, err := runBench(ctx, c, w, *warmup, *maxOps, len(addrs), *near); err != nil {
				return fmt.Errorf("%s warm-up: %w", w.name, err)
			}
		}
		before, err := scrapeNodes(ctx, metrics)
		if err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
		r, err := runBench(ctx, c, w, *dur, *maxOps, len(addrs), *near)
		if err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
		if len(metrics) > 0 {
			after, err := scrapeNodes(ctx, metrics)
			if err != nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
			r.perOp(before, after)
		}
		out = append(out, r)
	}
	used := protocolsUsed(c)
	if *format == "json" {
		e := json.NewEncoder(stdout)
		e.SetIndent("", "  ")
		return e.Encode(map[string]any{"nodes": len(addrs), "protocol": used, "workloads": out})
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tops/s\tp50 µs\tp99 µs\tper client min/max\tnode CPU µs/op\tmessages/op\tacross nodes\tbatches/op\tcalls/op\t")
	opt := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprintf("%.1f", *v)
	}
	for _, r := range out {
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.0f\t%d/%d\t%s\t%s\t%s\t%s\t%s\t\n", r.Name, r.OpsPerSecond, r.P50us, r.P99us, slices.Min(r.PerClient), slices.Max(r.PerClient),
			opt(r.NodeCPUusPerOp), opt(r.MessagesPerOp), opt(r.LinkMessagesPerOp), opt(r.LinkBatchesPerOp), opt(r.CallsPerOp))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "calls on: %s\n", used)
	for _, r := range out {
		if len(r.P50usByNode) > 0 {
			var by []string
			for _, a := range slices.Sorted(maps.Keys(r.P50usByNode)) {
				by = append(by, fmt.Sprintf("%s %.0f µs", a, r.P50usByNode[a]))
			}
			fmt.Fprintf(stdout, "%s p50 by the session's node: %s\n", r.Name, strings.Join(by, ", "))
		}
	}
	return nil
}

// runBench runs w for dur or maxOps operations, whichever ends first; a
// one-client workload on nodes nodes, in as many shares of the run, its
// session on the next node for each (sessions are spread over the nodes
// in turn), unless near: then on its key's home, in one share.
func runBench(ctx context.Context, c *client.Client, w benchWorkload, dur time.Duration, maxOps, nodes int, near bool) (benchResult, error) {
	near = near && w.space == 1
	if w.clients > 1 || nodes == 1 || near {
		r, _, _, err := runShare(ctx, c, w, dur, maxOps, near)
		if near && w.clients == 1 {
			r.P50usByNode = map[string]float64{r.node: r.P50us}
		}
		return r.benchResult, err
	}
	var (
		all     []time.Duration
		elapsed time.Duration
		done    int
	)
	byNode := map[string]float64{}
	for i := range nodes {
		r, lat, took, err := runShare(ctx, c, w, dur/time.Duration(nodes), (maxOps+i)/nodes, false)
		if err != nil {
			return benchResult{}, err
		}
		byNode[r.node] = r.P50us
		all = append(all, lat...)
		elapsed += took
		done += r.PerClient[0]
	}
	slices.Sort(all)
	return benchResult{Name: w.name, OpsPerSecond: float64(done) / elapsed.Seconds(), P50us: quantileUs(all, 0.50), P99us: quantileUs(all, 0.99), PerClient: []int{done}, P50usByNode: byNode}, nil
}

// quantileUs is the p-quantile of sorted latencies, in µs.
func quantileUs(lat []time.Duration, p float64) float64 {
	if len(lat) == 0 {
		return 0
	}
	return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds())
}

// share is runShare's result: the workload's figures, and the node of a
// one-client workload's session.
type share struct {
	benchResult
	node string
}

// runShare runs w for dur or maxOps operations, whichever ends first, on
// sessions of its own, and returns the sorted latencies and how long it
// ran too.
func runShare(ctx context.Context, c *client.Client, w benchWorkload, dur time.Duration, maxOps int, near bool) (share, []time.Duration, time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := []client.SessionOption{client.WithTTL(10 * time.Second)}
	if near {
		opts = append(opts, client.WithNear("k0")) // the one key of a one-key workload
	}
	sessions := make([]*client.Session, w.clients)
	for i := range sessions {
		s, err := c.Session(ctx, opts...)
		if err != nil {
			return share{}, nil, 0, err
		}
		defer s.Close(context.Background())
		sessions[i] = s
	}
	var (
		mu   sync.Mutex
		lat  []time.Duration
		ops  int
		errs []error
	)
	per := make([]int, w.clients)
	end := time.Now().Add(dur)
	start := time.Now()
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(i), 7))
			keys := make([]string, w.keys)
			var mine []time.Duration
			for time.Now().Before(end) && ctx.Err() == nil {
				mu.Lock()
				if ops >= maxOps {
					mu.Unlock()
					break
				}
				ops++
				mu.Unlock()
				drawKeys(rnd, keys, w.space)
				t0 := time.Now()
				g, err := s.Lock(ctx, keys...)
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					cancel()
					return
				}
				if !w.pair {
					mine = append(mine, time.Since(t0))
				}
				if w.hold > 0 {
					time.Sleep(w.hold)
				}
				if err := g.Unlock(ctx); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					cancel()
					return
				}
				if w.pair {
					mine = append(mine, time.Since(t0))
				}
				per[i]++
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if len(errs) > 0 {
		return share{}, nil, 0, errs[0]
	}
	slices.Sort(lat)
	done := 0
	for _, n := range per {
		done += n
	}
	r := benchResult{Name: w.name, OpsPerSecond: float64(done) / elapsed.Seconds(), P50us: quantileUs(lat, 0.50), P99us: quantileUs(lat, 0.99), PerClient: per}
	return share{r, sessions[0].Node()}, lat, elapsed, nil
}

// drawKeys fills keys with distinct names drawn uniformly from space
// (len(keys) <= space), without a permutation of the whole space: W4's
// is a million.
func drawKeys(rnd *rand.Rand, keys []string, space int) {
	for k := range keys {
		for {
			p := fmt.Sprintf("k%d", rnd.IntN(space))
			if !slices.Contains(keys[:k], p) {
				keys[k] = p
				break
			}
		}
	}
}

// nodeCounts are the counters of a bench's cluster that it divides by the
// operations, summed over the nodes.
type nodeCounts struct {
	cpu      float64 // process_cpu_seconds_total
	messages float64 // allot_messages_total
	calls    float64 // the API calls: grpc_server_handled_total's unary ones, and allot_stream_calls_total
	link     float64 // allot_link_messages_total
	batches  float64 // allot_link_batches_total
}

// scrapeNodes reads the counters of each node whose metrics address is
// given.
func scrapeNodes(ctx context.Context, metrics []string) ([]nodeCounts, error) {
	cs := make([]nodeCounts, len(metrics))
	for i, m := range metrics {
		if err := cs[i].scrape(ctx, "http://"+m+"/metrics"); err != nil {
			return nil, fmt.Errorf("reading the nodes' metrics: %w", err)
		}
	}
	return cs, nil
}

// add adds o's counters to c's.
func (c *nodeCounts) add(o nodeCounts) {
	c.cpu += o.cpu
	c.messages += o.messages
	c.calls += o.calls
	c.link += o.link
	c.batches += o.batches
}

// scrape adds one node's counters, parsed from the Prometheus text format
// (a sample a line: name{labels} value).
func (c *nodeCounts) scrape(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if strings.HasPrefix(line, "#") || i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		name, labels, _ := strings.Cut(line[:i], "{")
		switch {
		case name == "process_cpu_seconds_total":
			c.cpu += v
		case name == "allot_messages_total":
			c.messages += v
		case name == "allot_link_messages_total":
			c.link += v
		case name == "allot_link_batches_total":
			c.batches += v
		case name == "grpc_server_handled_total" && strings.Contains(labels, `grpc_type="unary"`),
			name == "allot_stream_calls_total":
			c.calls += v
		}
	}
	return sc.Err()
}

// perOp sets r's per-operation figures from each node's counters around
// its run, and the busiest node's shares. The calls include the sessions'
// keep-alives and the bench's own session opening, a few per workload.
func (r *benchResult) perOp(beforeByNode, afterByNode []nodeCounts) {
	ops := 0
	for _, n := range r.PerClient {
		ops += n
	}
	if ops == 0 {
		return
	}
	var before, after nodeCounts
	var maxCPU, maxMessages float64
	for i := range afterByNode {
		b, a := beforeByNode[i], afterByNode[i]
		before.add(b)
		after.add(a)
		maxCPU = max(maxCPU, a.cpu-b.cpu)
		maxMessages = max(maxMessages, a.messages-b.messages)
	}
	share := func(most, b, a float64) *float64 {
		if a <= b {
			return nil
		}
		v := most / (a - b)
		return &v
	}
	r.BusiestNodeCPUShare = share(maxCPU, before.cpu, after.cpu)
	r.BusiestNodeMessageShare = share(maxMessages, before.messages, after.messages)
	per := func(a, b float64) *float64 { v := (b - a) / float64(ops); return &v }
	r.NodeCPUusPerOp = per(before.cpu*1e6, after.cpu*1e6)
	r.MessagesPerOp = per(before.messages, after.messages)
	r.LinkMessagesPerOp = per(before.link, after.link)
	r.LinkBatchesPerOp = per(before.batches, after.batches)
	r.CallsPerOp = per(before.calls, after.calls)
}

// protocolsUsed is what the client's calls went on, at every node it
// called: "native", "grpc" or "unary", or several joined by "+" where the
// nodes differ.
func protocolsUsed(c *client.Client) string {
	var ps []string
	for _, p := range c.Protocols() {
		if p != "" && !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	return strings.Join(ps, "+")
}
