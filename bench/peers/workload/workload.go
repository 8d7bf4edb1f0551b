// Package workload runs the four lock workloads of the peers benchmark
// against any lock service a Locker speaks to, and measures them the same
// way for every service:
//
//   - W1 uncontended: one client, Lock then Unlock of one key in a loop;
//     the latency is the pair's.
//   - W2 contended: clients (8), each with its own session, Lock and Unlock
//     one key with no hold; the latency is the Lock call until held,
//     retries included; acquisitions per client show fairness.
//   - W3 multi-resource: clients (32), each iteration takes K (4) distinct
//     random keys of N (64) one by one in sorted order (the deadlock-free
//     order a client of a single-key lock service must use), holds 1 ms and
//     releases them; the latency is acquiring the whole set.
//   - W4 independent names: clients (16), each with its own session, Lock
//     and Unlock one key drawn uniformly from a space of N (a million), no
//     hold, so that almost nothing contends; the latency is the Lock call
//     until held. It shows what a grant costs the service when nothing
//     waits, not contention.
//
// Every run is bounded by a window and by a count of operations. Only
// operations that complete inside the window count; those in flight at the
// deadline finish (drain, bounded too) and are not counted.
package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Locker is one benchmark client of a lock service: its own connection
// and, where the service has them, its own session.
type Locker interface {
	Lock(ctx context.Context, key string) error
	Unlock(ctx context.Context, key string) error
	Close() error // idempotent
}

// NewClient makes one client; a workload makes as many as it has clients.
type NewClient func(ctx context.Context) (Locker, error)

// Config is the shape of the four workloads, the same for every service.
type Config struct {
	Window  time.Duration // how long each workload is measured
	MaxOps  int           // and at most this many operations in it
	Drain   time.Duration // how long operations in flight at the deadline may take to finish
	W2      int           // W2's clients
	W3      int           // W3's clients
	W3Keys  int           // W3's key space
	W3K     int           // keys W3 takes an iteration
	W3Hold  time.Duration // how long W3 holds its keys
	W4      int           // W4's clients (allot bench --w4-sessions)
	W4Keys  int           // W4's key space (allot bench --w4-names)
	Seed    uint64        // of W3's and W4's key draws
	KeyBase string        // prefix of the keys, distinct per run so that warm-up and measured runs do not share state
}

// Default is the workloads as the project's `allot bench` runs them.
func Default() Config {
	return Config{Window: 3 * time.Second, MaxOps: 200000, Drain: 10 * time.Second,
		W2: 8, W3: 32, W3Keys: 64, W3K: 4, W3Hold: time.Millisecond,
		W4: 16, W4Keys: 1000000, KeyBase: "w"}
}

// Validate rejects a shape the workloads cannot run.
func (c Config) Validate() error {
	switch {
	case c.Window <= 0 || c.MaxOps <= 0 || c.Drain <= 0:
		return errors.New("workload: window, max-ops and drain must be positive")
	case c.W2 < 1 || c.W3 < 1 || c.W4 < 1:
		return errors.New("workload: W2, W3 and W4 need at least one client")
	case c.W4 > 4096:
		// allot bench's bound on --w4-sessions.
		return fmt.Errorf("workload: W4 has %d clients, at most 4096", c.W4)
	case c.W4Keys < 1:
		return errors.New("workload: W4 needs at least one key")
	case c.W3K < 1 || c.W3K > c.W3Keys:
		return fmt.Errorf("workload: W3 takes %d keys of %d", c.W3K, c.W3Keys)
	case c.W3Hold < 0:
		return errors.New("workload: W3's hold must not be negative")
	}
	return nil
}

// Stats is one workload's result.
type Stats struct {
	Workload  string  `json:"workload"`
	Clients   int     `json:"clients"`
	Ops       int64   `json:"ops"`
	WindowS   float64 `json:"window_s"`
	OpsPerSec float64 `json:"ops_per_s"`
	// Latency quantiles, µs (W1: Lock and Unlock; W2: Lock until held;
	// W3: the whole set held; W4: Lock until held).
	P50us float64 `json:"p50_us"`
	P90us float64 `json:"p90_us,omitempty"`
	P99us float64 `json:"p99_us"`
	MaxUs float64 `json:"max_us,omitempty"`
	// Operations completed in the window, by client.
	PerClient []int64 `json:"per_client"`
	// Lock calls that failed while the window was open and were retried
	// (redsync gives up after its tries), and Unlock calls that failed.
	LockFailures   int64  `json:"lock_failures"`
	UnlockFailures int64  `json:"unlock_failures"`
	FirstErr       string `json:"first_err,omitempty"`
	// CPU used in the window, % of one core: the server's process (0
	// when there is none or it is not known) and this benchmark's.
	ServerCPUPct float64 `json:"server_cpu_pct,omitempty"`
	BenchCPUPct  float64 `json:"bench_cpu_pct,omitempty"`
	// ServerCPUusPerOp: the server's CPU in the window over the
	// operations counted, µs (0 when not known); for allot, allot bench's
	// node_cpu_us_per_op, its nodes' together (read off their metrics
	// around the run). What an operation costs the service.
	ServerCPUusPerOp float64 `json:"server_cpu_us_per_op,omitempty"`
	// P50usByNode: allot's one-client workload (W1) runs its session on
	// each node in turn; the p50 of each share, by the node's address.
	P50usByNode map[string]float64 `json:"p50_us_by_node,omitempty"`
	// Aborted: operations still in flight after the drain; their clients
	// were closed to end them.
	Aborted bool    `json:"aborted,omitempty"`
	DrainS  float64 `json:"drain_s"`
}

// Fairness is the fewest operations a client completed over the most
// (1: every client got the same share), 0 without clients.
func (s Stats) Fairness() float64 {
	if len(s.PerClient) == 0 || slices.Max(s.PerClient) == 0 {
		return 0
	}
	return float64(slices.Min(s.PerClient)) / float64(slices.Max(s.PerClient))
}

// Meter reads CPU time; a nil Meter leaves the CPU columns empty.
type Meter interface {
	// CPU returns the server's and this process's CPU seconds so far
	// (server < 0: not known).
	CPU() (server, self float64)
}

// Run runs W1, W2, W3 and W4 in that order.
func Run(ctx context.Context, cfg Config, newClient NewClient, m Meter) ([]Stats, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var out []Stats
	for _, run := range []func(context.Context, Config, NewClient, Meter) (Stats, error){W1, W2, W3, W4} {
		s, err := run(ctx, cfg, newClient, m)
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, nil
}

// client is one client's loop state.
type client struct {
	c          Locker
	lats       []time.Duration
	ops        int64
	lockFails  int64
	unlockFail int64
	firstErr   error
}

func (w *client) noteErr(err error) {
	if w.firstErr == nil {
		w.firstErr = err
	}
}

// maxLockFailures bounds the retries of one client's Lock calls.
const maxLockFailures = 100000

// acquire calls Lock until it succeeds or ctx ends. A Lock error while ctx
// is live (redsync's ErrFailed after its tries) is counted and retried, so
// the latency is the whole wait.
func (w *client) acquire(ctx context.Context, key string) error {
	for {
		err := w.c.Lock(ctx, key)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		w.lockFails++
		w.noteErr(err)
		if w.lockFails > maxLockFailures {
			return err
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// quantile is the nearest-rank quantile of sorted latencies, in µs.
func quantile(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	i = max(0, min(i, len(sorted)-1))
	return float64(sorted[i]) / 1e3
}

func fillLatency(s *Stats, lats []time.Duration) {
	slices.Sort(lats)
	s.P50us = quantile(lats, 0.50)
	s.P90us = quantile(lats, 0.90)
	s.P99us = quantile(lats, 0.99)
	if n := len(lats); n > 0 {
		s.MaxUs = float64(lats[n-1]) / 1e3
	}
}

// cpuWindow measures the CPU the server and this process use in a window.
type cpuWindow struct {
	m           Meter
	t0          time.Time
	srv0, self0 float64
	srv         float64 // the server's CPU seconds in the window, once stopped (< 0: not known)
}

func startCPU(m Meter) *cpuWindow {
	w := &cpuWindow{m: m, t0: time.Now(), srv: -1}
	if m != nil {
		w.srv0, w.self0 = m.CPU()
	}
	return w
}

func (w *cpuWindow) stop(s *Stats) {
	el := time.Since(w.t0).Seconds()
	if w.m == nil || el <= 0 {
		return
	}
	srv, self := w.m.CPU()
	if w.srv0 >= 0 && srv >= 0 {
		w.srv = srv - w.srv0
		s.ServerCPUPct = 100 * w.srv / el
	}
	s.BenchCPUPct = 100 * (self - w.self0) / el
}

// perOp sets s's server CPU per operation, once its operations are
// counted.
func (w *cpuWindow) perOp(s *Stats) {
	if w.srv >= 0 && s.Ops > 0 {
		s.ServerCPUusPerOp = 1e6 * w.srv / float64(s.Ops)
	}
}

// W1 runs one client's Lock+Unlock pairs on one key.
func W1(ctx context.Context, cfg Config, newClient NewClient, m Meter) (Stats, error) {
	c, err := newClient(ctx)
	if err != nil {
		return Stats{}, fmt.Errorf("W1 client: %w", err)
	}
	defer c.Close()
	w := &client{c: c}
	key := cfg.KeyBase + "1"
	cpu := startCPU(m)
	start := time.Now()
	deadline := start.Add(cfg.Window)
	lctx, cancel := context.WithDeadline(ctx, deadline.Add(cfg.Drain))
	defer cancel()
	for time.Now().Before(deadline) && w.ops < int64(cfg.MaxOps) {
		t0 := time.Now()
		if err := w.acquire(lctx, key); err != nil {
			w.noteErr(err)
			break
		}
		if err := c.Unlock(lctx, key); err != nil {
			w.unlockFail++
			w.noteErr(err)
		}
		w.lats = append(w.lats, time.Since(t0))
		w.ops++
	}
	el := time.Since(start)
	s := Stats{Workload: "W1", Clients: 1, Ops: w.ops, WindowS: el.Seconds(),
		OpsPerSec: float64(w.ops) / el.Seconds(), LockFailures: w.lockFails,
		UnlockFailures: w.unlockFail, PerClient: []int64{w.ops}}
	cpu.stop(&s)
	cpu.perOp(&s)
	if w.firstErr != nil {
		s.FirstErr = w.firstErr.Error()
	}
	fillLatency(&s, w.lats)
	return s, ctx.Err()
}

func makeClients(ctx context.Context, newClient NewClient, n int) ([]Locker, error) {
	cs := make([]Locker, 0, n)
	for i := range n {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		c, err := newClient(cctx)
		cancel()
		if err != nil {
			for _, c := range cs {
				c.Close()
			}
			return nil, fmt.Errorf("client %d: %w", i, err)
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// body is one client's loop; it returns when the deadline passes or
// take says the window's operations are all taken.
type body func(ctx context.Context, w *client, rng *rand.Rand, deadline time.Time, take func() bool)

// concurrent runs body for each client until the deadline, lets the
// operations in flight drain, and then closes the clients to end any
// still stuck.
func concurrent(ctx context.Context, cfg Config, name string, clients []Locker, m Meter, b body) Stats {
	ws := make([]*client, len(clients))
	for i, c := range clients {
		ws[i] = &client{c: c, lats: make([]time.Duration, 0, 4096)}
	}
	var taken atomic.Int64
	take := func() bool { return taken.Add(1) <= int64(cfg.MaxOps) }
	cpu := startCPU(m)
	start := time.Now()
	deadline := start.Add(cfg.Window)
	lctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var wg sync.WaitGroup
	for i, w := range ws {
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
		wg.Go(func() { b(lctx, w, rng, deadline, take) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	s := Stats{Workload: name, Clients: len(clients), WindowS: cfg.Window.Seconds()}
	select {
	case <-done:
		// Every client stopped before the deadline: the operations
		// bound was reached, and the rate is over the time it took.
		s.WindowS = min(s.WindowS, time.Since(start).Seconds())
		cpu.stop(&s)
	case <-lctx.Done():
		cpu.stop(&s)
		select {
		case <-done:
		case <-time.After(cfg.Drain):
			s.Aborted = true
			for _, c := range clients {
				c.Close()
			}
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				// The results use what finished; the stuck goroutines
				// end with the process.
			}
		}
	}
	s.DrainS = max(0, time.Since(deadline).Seconds())
	var all []time.Duration
	for _, w := range ws {
		s.Ops += w.ops
		s.LockFailures += w.lockFails
		s.UnlockFailures += w.unlockFail
		if w.firstErr != nil && s.FirstErr == "" {
			s.FirstErr = w.firstErr.Error()
		}
		all = append(all, w.lats...)
		s.PerClient = append(s.PerClient, w.ops)
	}
	s.OpsPerSec = float64(s.Ops) / s.WindowS
	cpu.perOp(&s)
	fillLatency(&s, all)
	return s
}

// W2 runs clients that all Lock and Unlock the same key.
func W2(ctx context.Context, cfg Config, newClient NewClient, m Meter) (Stats, error) {
	clients, err := makeClients(ctx, newClient, cfg.W2)
	if err != nil {
		return Stats{}, fmt.Errorf("W2: %w", err)
	}
	defer closeAll(clients)
	key := cfg.KeyBase + "2"
	s := concurrent(ctx, cfg, "W2", clients, m, lockOne(func(*rand.Rand) string { return key }))
	return s, ctx.Err()
}

// lockOne is the body of a workload whose operation is a Lock of one key
// (pick's), timed until held, and its Unlock, with no hold.
func lockOne(pick func(*rand.Rand) string) body {
	return func(ctx context.Context, w *client, rng *rand.Rand, deadline time.Time, take func() bool) {
		for time.Now().Before(deadline) && take() {
			key := pick(rng)
			t0 := time.Now()
			if err := w.acquire(ctx, key); err != nil {
				return
			}
			t1 := time.Now()
			in := t1.Before(deadline)
			if in {
				w.lats = append(w.lats, t1.Sub(t0))
				w.ops++
			}
			if err := w.c.Unlock(context.WithoutCancel(ctx), key); err != nil {
				w.unlockFail++
				w.noteErr(err)
			}
			if !in {
				return
			}
		}
	}
}

// W3 runs clients that each take K random keys of N in sorted order,
// hold them and release them in reverse order.
func W3(ctx context.Context, cfg Config, newClient NewClient, m Meter) (Stats, error) {
	clients, err := makeClients(ctx, newClient, cfg.W3)
	if err != nil {
		return Stats{}, fmt.Errorf("W3: %w", err)
	}
	defer closeAll(clients)
	names := make([]string, cfg.W3Keys)
	for i := range names {
		names[i] = fmt.Sprintf("%s3-%02d", cfg.KeyBase, i)
	}
	s := concurrent(ctx, cfg, "W3", clients, m, func(ctx context.Context, w *client, rng *rand.Rand, deadline time.Time, take func() bool) {
		bg := context.WithoutCancel(ctx)
		for time.Now().Before(deadline) && take() {
			set := Draw(rng, cfg.W3Keys, cfg.W3K)
			t0 := time.Now()
			held := 0
			var err error
			for _, k := range set {
				if err = w.acquire(ctx, names[k]); err != nil {
					break
				}
				held++
			}
			t1 := time.Now()
			in := err == nil && t1.Before(deadline)
			if in {
				w.lats = append(w.lats, t1.Sub(t0))
				w.ops++
				time.Sleep(cfg.W3Hold)
			}
			for i := held - 1; i >= 0; i-- {
				if err := w.c.Unlock(bg, names[set[i]]); err != nil {
					w.unlockFail++
					w.noteErr(err)
				}
			}
			if !in {
				return
			}
		}
	})
	return s, ctx.Err()
}

// W4 runs clients that each Lock and Unlock one key drawn uniformly from
// a space of N, with no hold: independent names, almost never contended.
// A key's name is made when it is drawn, so that the space costs nothing.
func W4(ctx context.Context, cfg Config, newClient NewClient, m Meter) (Stats, error) {
	clients, err := makeClients(ctx, newClient, cfg.W4)
	if err != nil {
		return Stats{}, fmt.Errorf("W4: %w", err)
	}
	defer closeAll(clients)
	s := concurrent(ctx, cfg, "W4", clients, m, lockOne(func(rng *rand.Rand) string {
		return fmt.Sprintf("%s4-%d", cfg.KeyBase, rng.IntN(cfg.W4Keys))
	}))
	return s, ctx.Err()
}

// Draw returns k distinct keys of n in increasing order.
func Draw(rng *rand.Rand, n, k int) []int {
	set := rng.Perm(n)[:k]
	slices.Sort(set)
	return set
}

func closeAll(cs []Locker) {
	for _, c := range cs {
		c.Close()
	}
}
