package workload

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// table is an in-memory lock table that counts its holders, so that a
// test sees a workload that leaves a lock held or takes one twice.
type table struct {
	mu      sync.Mutex
	held    map[string]bool
	cond    *sync.Cond
	doubled bool
}

func newTable() *table {
	t := &table{held: map[string]bool{}}
	t.cond = sync.NewCond(&t.mu)
	return t
}

type tableClient struct{ t *table }

func (c tableClient) Lock(ctx context.Context, key string) error {
	c.t.mu.Lock()
	defer c.t.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		c.t.mu.Lock()
		c.t.cond.Broadcast()
		c.t.mu.Unlock()
	})
	defer stop()
	for c.t.held[key] {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.t.cond.Wait()
	}
	c.t.held[key] = true
	return nil
}

func (c tableClient) Unlock(_ context.Context, key string) error {
	c.t.mu.Lock()
	defer c.t.mu.Unlock()
	if !c.t.held[key] {
		c.t.doubled = true
	}
	delete(c.t.held, key)
	c.t.cond.Broadcast()
	return nil
}

func (tableClient) Close() error { return nil }

func (t *table) newClient(context.Context) (Locker, error) { return tableClient{t}, nil }

func short() Config {
	c := Default()
	c.Window, c.Drain = 300*time.Millisecond, 5*time.Second
	return c
}

func TestRun(t *testing.T) {
	tb := newTable()
	cfg := short()
	ss, err := Run(context.Background(), cfg, tb.newClient, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name    string
		clients int
	}{{"W1", 1}, {"W2", cfg.W2}, {"W3", cfg.W3}, {"W4", cfg.W4}}
	if len(ss) != len(want) {
		t.Fatalf("%d workloads", len(ss))
	}
	for i, s := range ss {
		var sum int64
		for _, n := range s.PerClient {
			sum += n
		}
		if s.Workload != want[i].name || s.Clients != want[i].clients || len(s.PerClient) != s.Clients || sum != s.Ops || s.Ops == 0 {
			t.Errorf("%+v", s)
		}
		if !(0 < s.P50us && s.P50us <= s.P90us && s.P90us <= s.P99us && s.P99us <= s.MaxUs) || s.OpsPerSec <= 0 || s.Aborted {
			t.Errorf("%s: %+v", s.Workload, s)
		}
	}
	if len(tb.held) != 0 || tb.doubled {
		t.Errorf("after the workloads: held %v, an unlock of a free key %v", tb.held, tb.doubled)
	}
}

func TestMaxOps(t *testing.T) {
	cfg := short()
	cfg.Window, cfg.MaxOps = 5*time.Second, 40
	tb := newTable()
	t0 := time.Now()
	for _, w := range []func(context.Context, Config, NewClient, Meter) (Stats, error){W1, W2, W4} {
		s, err := w(context.Background(), cfg, tb.newClient, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.Ops > int64(cfg.MaxOps) || s.Ops == 0 {
			t.Errorf("%s: %d ops, bound %d", s.Workload, s.Ops, cfg.MaxOps)
		}
		// The rate is over the time the operations took, not the window.
		if s.OpsPerSec <= float64(s.Ops)/cfg.Window.Seconds() {
			t.Errorf("%s: %v ops/s for %d ops", s.Workload, s.OpsPerSec, s.Ops)
		}
	}
	if el := time.Since(t0); el > 4*time.Second {
		t.Errorf("bounded workloads took %v", el)
	}
}

// stuck is a lock service whose Lock ignores its context (as the
// ZooKeeper recipe does) and returns only when its client is closed.
type stuck struct {
	closed chan struct{}
	once   sync.Once
	first  bool
}

func (s *stuck) Lock(ctx context.Context, key string) error {
	if s.first {
		s.first = false
		return nil
	}
	<-s.closed
	return context.Canceled
}
func (s *stuck) Unlock(context.Context, string) error { return nil }
func (s *stuck) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

func TestDrainCloses(t *testing.T) {
	cfg := short()
	cfg.Window, cfg.Drain = 100*time.Millisecond, 100*time.Millisecond
	t0 := time.Now()
	s, err := W2(context.Background(), cfg, func(context.Context) (Locker, error) {
		return &stuck{closed: make(chan struct{}), first: true}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Aborted || time.Since(t0) > 5*time.Second {
		t.Errorf("stuck clients: aborted %v after %v", s.Aborted, time.Since(t0))
	}
}

func TestDraw(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for range 1000 {
		n := 1 + rng.IntN(100)
		k := 1 + rng.IntN(n)
		set := Draw(rng, n, k)
		if len(set) != k || !slices.IsSorted(set) || len(slices.Compact(slices.Clone(set))) != k || set[0] < 0 || set[k-1] >= n {
			t.Fatalf("Draw(%d, %d) = %v", n, k, set)
		}
	}
}

// recorder is a client of the table that records the keys it locks.
type recorder struct {
	tableClient
	mu   *sync.Mutex
	keys map[string]int
}

func (r recorder) Lock(ctx context.Context, key string) error {
	r.mu.Lock()
	r.keys[key]++
	r.mu.Unlock()
	return r.tableClient.Lock(ctx, key)
}

// TestW4 runs W4 on key spaces from one key (every client on it, as W2)
// to allot bench's million: its keys are the space's, and with a large
// space almost every Lock is of a key no other operation took.
func TestW4(t *testing.T) {
	for _, c := range []struct {
		clients, keys int
	}{{1, 1}, {4, 1}, {4, 3}, {16, 1000}, {16, 1000000}} {
		cfg := short()
		cfg.W4, cfg.W4Keys, cfg.MaxOps = c.clients, c.keys, 2000
		tb := newTable()
		var mu sync.Mutex
		keys := map[string]int{}
		s, err := W4(context.Background(), cfg, func(context.Context) (Locker, error) {
			return recorder{tableClient{tb}, &mu, keys}, nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.Workload != "W4" || s.Clients != c.clients || len(s.PerClient) != c.clients || s.Ops == 0 || s.Ops > int64(cfg.MaxOps) || s.P50us <= 0 {
			t.Errorf("%+v: %+v", c, s)
		}
		if len(keys) > c.keys {
			t.Errorf("%+v: %d keys locked", c, len(keys))
		}
		locks := 0
		for k, n := range keys {
			var i int
			if _, err := fmt.Sscanf(k, "w4-%d", &i); err != nil || i < 0 || i >= c.keys || fmt.Sprintf("w4-%d", i) != k {
				t.Errorf("%+v: key %q outside the space", c, k)
			}
			locks += n
		}
		if c.keys == 1000000 && float64(len(keys)) < 0.99*float64(locks) {
			t.Errorf("%+v: %d distinct keys of %d locks", c, len(keys), locks)
		}
		if len(tb.held) != 0 || tb.doubled {
			t.Errorf("%+v: after W4 held %v, an unlock of a free key %v", c, tb.held, tb.doubled)
		}
	}
}

func TestValidate(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(*Config){
		"no window":     func(c *Config) { c.Window = 0 },
		"no ops":        func(c *Config) { c.MaxOps = 0 },
		"no drain":      func(c *Config) { c.Drain = 0 },
		"no W2 clients": func(c *Config) { c.W2 = 0 },
		"no W3 clients": func(c *Config) { c.W3 = 0 },
		"no W4 clients": func(c *Config) { c.W4 = 0 },
		"W4 too many":   func(c *Config) { c.W4 = 4097 },
		"no W4 keys":    func(c *Config) { c.W4Keys = 0 },
		"K above N":     func(c *Config) { c.W3K = c.W3Keys + 1 },
		"K zero":        func(c *Config) { c.W3K = 0 },
		"negative hold": func(c *Config) { c.W3Hold = -1 },
	} {
		c := Default()
		f(&c)
		if c.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestFairness(t *testing.T) {
	for _, c := range []struct {
		per  []int64
		want float64
	}{{nil, 0}, {[]int64{0, 0}, 0}, {[]int64{5}, 1}, {[]int64{2, 8, 4}, 0.25}} {
		if got := (Stats{PerClient: c.per}).Fairness(); got != c.want {
			t.Errorf("%v: %v, want %v", c.per, got, c.want)
		}
	}
}

// lockMeter is a server that spends 100 µs of CPU on every Lock.
type lockMeter struct {
	tableClient
	locks *atomic.Int64
}

func (c lockMeter) Lock(ctx context.Context, key string) error {
	c.locks.Add(1)
	return c.tableClient.Lock(ctx, key)
}

type serverCPU struct {
	locks   *atomic.Int64
	unknown bool
}

func (m serverCPU) CPU() (float64, float64) {
	if m.unknown {
		return -1, 0
	}
	return float64(m.locks.Load()) * 100e-6, 0
}

// TestServerCPUPerOp: the server's CPU in the window over the operations
// counted, for W1 and the concurrent workloads; none when the server's
// CPU is not known.
func TestServerCPUPerOp(t *testing.T) {
	cfg := short()
	// The operations bound ends every workload: every Lock is counted.
	cfg.Window, cfg.MaxOps = 10*time.Second, 300
	for _, c := range []struct {
		name    string
		meter   func(*atomic.Int64) Meter
		perOpUs float64
	}{
		{"known", func(n *atomic.Int64) Meter { return serverCPU{locks: n} }, 100},
		{"unknown", func(n *atomic.Int64) Meter { return serverCPU{locks: n, unknown: true} }, 0},
		{"no meter", func(*atomic.Int64) Meter { return nil }, 0},
	} {
		for _, w := range []func(context.Context, Config, NewClient, Meter) (Stats, error){W1, W2, W4} {
			var locks atomic.Int64
			tb := newTable()
			s, err := w(context.Background(), cfg, func(context.Context) (Locker, error) { return lockMeter{tableClient{tb}, &locks}, nil }, c.meter(&locks))
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(s.ServerCPUusPerOp-c.perOpUs) > 1e-6 || s.Ops != int64(cfg.MaxOps) {
				t.Errorf("%s %s: %d ops, %v µs an operation, want %v", c.name, s.Workload, s.Ops, s.ServerCPUusPerOp, c.perOpUs)
			}
		}
	}
}
