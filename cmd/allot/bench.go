package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/allot-dev/allot/client"
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
}

// benchResult is one workload's line of the report.
type benchResult struct {
	Name         string  `json:"name"`
	OpsPerSecond float64 `json:"ops_per_second"`
	P50us        float64 `json:"p50_us"`
	P99us        float64 `json:"p99_us"`
	PerClient    []int   `json:"per_client"`
}

func benchCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("allot bench", flag.ContinueOnError)
	addr := fs.String("addr", "", "the cluster's node addresses, comma-separated (default: start a 3-node cluster on loopback and stop it afterwards)")
	dur := fs.Duration("duration", 3*time.Second, "how long each workload runs")
	maxOps := fs.Int("max-ops", 200000, "stop a workload after this many operations")
	format := fs.String("format", "table", "output: table or json")
	only := fs.String("workloads", "W1,W2,W3", "the workloads to run")
	if err := parseFlags(fs, args, stdout, "usage: allot bench [flags]\n\nW1: one client, Lock+Unlock of one key; W2: 8 clients on one lock, hold 0;\nW3: 32 clients, each locking 4 random keys of 64 in one call, hold 1ms.\nAn operation is Lock then Unlock; its latency is the Lock's (W1: both calls')."); err != nil {
		return err
	}
	if *format != "table" && *format != "json" {
		return badf("--format %q: want table or json", *format)
	}
	if *dur <= 0 || *maxOps <= 0 {
		return badf("--duration and --max-ops must be positive")
	}
	var ws []benchWorkload
	for _, n := range strings.Split(*only, ",") {
		i := slices.IndexFunc(benchWorkloads, func(w benchWorkload) bool { return w.name == strings.TrimSpace(n) })
		if i < 0 {
			return badf("unknown workload %q (want W1, W2, W3)", n)
		}
		ws = append(ws, benchWorkloads[i])
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var addrs []string
	if *addr != "" {
		addrs = strings.Split(*addr, ",")
	} else {
		data, err := os.MkdirTemp("", "allot-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(data)
		cl, err := startCluster(ctx, 3, "", data, false, nil, nil, stderr)
		if err != nil {
			return err
		}
		defer cl.stop()
		addrs = cl.addrs
	}
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		return badf("%v", err)
	}
	defer c.Close()
	var out []benchResult
	for _, w := range ws {
		r, err := runBench(ctx, c, w, *dur, *maxOps)
		if err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
		out = append(out, r)
	}
	if *format == "json" {
		e := json.NewEncoder(stdout)
		e.SetIndent("", "  ")
		return e.Encode(map[string]any{"workloads": out})
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tops/s\tp50 µs\tp99 µs\tper client min/max\t")
	for _, r := range out {
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.0f\t%d/%d\t\n", r.Name, r.OpsPerSecond, r.P50us, r.P99us, slices.Min(r.PerClient), slices.Max(r.PerClient))
	}
	return tw.Flush()
}

// runBench runs w for dur or maxOps operations, whichever ends first.
func runBench(ctx context.Context, c *client.Client, w benchWorkload, dur time.Duration, maxOps int) (benchResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sessions := make([]*client.Session, w.clients)
	for i := range sessions {
		s, err := c.Session(ctx, client.WithTTL(10*time.Second))
		if err != nil {
			return benchResult{}, err
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
				for k, p := range rnd.Perm(w.space)[:w.keys] {
					keys[k] = fmt.Sprintf("k%d", p)
				}
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
		return benchResult{}, errs[0]
	}
	slices.Sort(lat)
	q := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds())
	}
	done := 0
	for _, n := range per {
		done += n
	}
	return benchResult{Name: w.name, OpsPerSecond: float64(done) / elapsed.Seconds(), P50us: q(0.50), P99us: q(0.99), PerClient: per}, nil
}
