package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/allot-dev/allot/client"
)

// Faults says which kinds of fault a run injects.
type Faults struct {
	ClientKill bool // kill -9 of a client process (a new one takes its place)
	Abandon    bool // a client goroutine stops renewing its session while it holds a lock, pauses past its lease, then writes with its stale token
	LinkCut    bool // every connection of one node↔node link closed (reconnects at once)
	Partition  bool // every link of one node refused for 0.2–2s (about Config.Suspect: sometimes taken for a crash)
	ClientCut  bool // one client group's connections to one node refused for 0.1–1.5s
	// LongPartition: every link of one node refused for Config.Suspect
	// plus 0.5–2.5s, so that the others surely think it dead and move to
	// a view without it, while it fences itself. Off by default: the
	// Partition above already outlasts the default Suspect now and then.
	LongPartition bool
	// NodeKill: kill -9 of a node process, restarted after 0.2–2s.
	NodeKill bool
}

// AllFaults are the faults of a default run: everything but
// LongPartition.
func AllFaults() Faults {
	return Faults{ClientKill: true, Abandon: true, LinkCut: true, Partition: true, ClientCut: true, NodeKill: true}
}

// ParseFaults reads a comma-separated list of fault kinds.
func ParseFaults(list string) (Faults, error) {
	var f Faults
	for _, k := range strings.Split(list, ",") {
		switch k {
		case "client-kill":
			f.ClientKill = true
		case "abandon":
			f.Abandon = true
		case "link-cut":
			f.LinkCut = true
		case "partition":
			f.Partition = true
		case "client-cut":
			f.ClientCut = true
		case "node-kill":
			f.NodeKill = true
		case "long-partition":
			f.LongPartition = true
		default:
			return f, fmt.Errorf("unknown fault kind %q", k)
		}
	}
	return f, nil
}

func (f Faults) kinds() []string {
	var out []string
	for _, k := range []struct {
		on   bool
		name string
	}{{f.ClientKill, "client-kill"}, {f.Abandon, "abandon"}, {f.LinkCut, "link-cut"}, {f.Partition, "partition"}, {f.ClientCut, "client-cut"}, {f.LongPartition, "long-partition"}, {f.NodeKill, "node-kill"}} {
		if k.on {
			out = append(out, k.name)
		}
	}
	return out
}

// Config is one chaos run.
type Config struct {
	Bin  string // the allot binary
	Dir  string // event logs and client process histories go here
	Seed uint64 // the fault schedule and the clients' choices
	// Duration is the whole run; faults stop Calm before its end, and
	// every client must then be served within Bound.
	Duration, Calm, Bound time.Duration
	Nodes                 int
	Groups, PerGroup      int // client goroutines: Groups groups (each its own connections) of PerGroup
	Procs, PerProc        int // client processes, of PerProc clients each
	TTL, LockDelay        time.Duration
	// Suspect is the nodes' --suspect: a node whose links stay down this
	// long is thought dead and the others move to a view without it.
	Suspect time.Duration
	Every   time.Duration // mean gap between faults
	Faults  Faults
	// ClientProcess returns the command of a client process (it runs
	// RunClientProcess) with env added to its environment.
	ClientProcess func(env []string) *exec.Cmd
	Logf          func(format string, args ...any)
	Stderr        io.Writer // the client processes' stderr (the nodes' logs go to Dir)
}

// Defaults fills in what c leaves zero.
func (c *Config) Defaults() {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	defD := func(p *time.Duration, v time.Duration) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.Nodes, 3)
	def(&c.Groups, 3)
	def(&c.PerGroup, 4)
	def(&c.Procs, 2)
	def(&c.PerProc, 3)
	defD(&c.Duration, time.Minute)
	defD(&c.Calm, 12*time.Second)
	defD(&c.Bound, 10*time.Second)
	defD(&c.TTL, 2*time.Second)
	defD(&c.LockDelay, 200*time.Millisecond)
	// The service's default: node kills are found after this, and the
	// longer Partitions are taken for crashes (then the node fences
	// itself and rejoins), which the run must survive too.
	defD(&c.Suspect, time.Second)
	defD(&c.Every, 400*time.Millisecond)
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
}

// budget is the quota's M for a run of d: about what the clients take in
// half of it, so that it runs out and the checker sees the limit hold.
func budget(d time.Duration) int { return 20 * int(d.Seconds()) }

// Env names the client process's settings.
const (
	envID      = "ALLOT_CHAOS_ID"
	envAddrs   = "ALLOT_CHAOS_ADDRS"
	envStore   = "ALLOT_CHAOS_STORE"
	envHistory = "ALLOT_CHAOS_HISTORY"
	envSeed    = "ALLOT_CHAOS_SEED"
	envUntil   = "ALLOT_CHAOS_UNTIL"
	envWorkers = "ALLOT_CHAOS_WORKERS"
	envTTL     = "ALLOT_CHAOS_TTL"
)

// IsClientProcess reports whether this process was started as a chaos
// client process.
func IsClientProcess() bool { return os.Getenv(envID) != "" }

// RunClientProcess runs the workers of a client process until the time
// its harness gave, writing their history to the file it named.
func RunClientProcess() error {
	id := os.Getenv(envID)
	seed, err1 := strconv.ParseUint(os.Getenv(envSeed), 10, 64)
	until, err2 := strconv.ParseInt(os.Getenv(envUntil), 10, 64)
	workers, err3 := strconv.Atoi(os.Getenv(envWorkers))
	ttl, err4 := time.ParseDuration(os.Getenv(envTTL))
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return fmt.Errorf("chaos client: bad environment: %w", err)
	}
	f, err := os.OpenFile(os.Getenv(envHistory), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, until))
	defer cancel()
	c, err := client.Dial(ctx, strings.Split(os.Getenv(envAddrs), ",")...)
	if err != nil {
		return err
	}
	defer c.Close()
	h := NewHistory(f)
	store := HTTPStore{URL: os.Getenv(envStore), C: &http.Client{Timeout: 5 * time.Second}}
	var wg sync.WaitGroup
	for k := range workers {
		w := newWorker(fmt.Sprintf("%s/w%d", id, k), seed, c, store, h, ttl, 0)
		wg.Go(func() { w.Run(ctx, maxOps) })
	}
	wg.Wait()
	return nil
}

// maxOps bounds each worker's operations (the run's time bounds them
// first).
const maxOps = 1_000_000

func newWorker(id string, seed uint64, c *client.Client, s Store, h *History, ttl, lockDelay time.Duration) *Worker {
	f := fnv.New64a()
	f.Write([]byte(id))
	return &Worker{ID: id, C: c, Store: s, H: h, Rnd: rand.New(rand.NewPCG(seed, f.Sum64())), TTL: ttl,
		Pause: ttl + lockDelay + 500*time.Millisecond, OpTimeout: 5 * time.Second}
}

// procSlot is a place for a client process: its connections to the nodes
// go through proxies of its own, and a killed process is replaced by a
// new incarnation in the same slot.
type procSlot struct {
	proxies []*Proxy
	id      string // the current incarnation's group id
	cmd     *exec.Cmd
	exited  chan error
}

type run struct {
	cfg     Config
	ns      *nodes
	harness *History
	faults  []Fault
	procs   []*procSlot
	workers []*Worker
	groups  [][]*Proxy // the goroutine groups' proxies, by node
	storeU  string
	until   time.Time
	lives   int
	hists   []string // client process history files
	all     []*Proxy // every client proxy, closed at the end
}

// Run runs a chaos run and checks it.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.Defaults()
	r := &run{cfg: cfg}
	store := &MemStore{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: store, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	defer hs.Close()
	r.storeU = "http://" + ln.Addr().String()

	bud := budget(cfg.Duration)
	r.ns, err = startNodes(cfg.Bin, cfg.Dir, cfg.Nodes, cfg.LockDelay, cfg.Suspect, fmt.Sprintf("%s=%d:%d", QuotaName, bud, bud/10))
	if err != nil {
		return nil, err
	}
	defer r.ns.stop()
	defer func() {
		for _, p := range r.all {
			p.Close()
		}
	}()
	start := time.Now()
	r.until = start.Add(cfg.Duration)
	calm := r.until.Add(-cfg.Calm)
	cfg.Logf("chaos: %d nodes at %v; %d client goroutines, %d client processes of %d; faults %v until %v, then calm",
		cfg.Nodes, r.ns.addrs, cfg.Groups*cfg.PerGroup, cfg.Procs, cfg.PerProc, cfg.Faults.kinds(), calm.Sub(start).Round(time.Second))

	// The goroutines' history and the harness's go to files beside the
	// client processes', so a failed run can be read afterwards.
	hf, err := os.Create(filepath.Join(cfg.Dir, "client-g.jsonl"))
	if err != nil {
		return nil, err
	}
	defer hf.Close()
	hist := NewHistory(hf)
	r.hists = append(r.hists, hf.Name())
	ff, err := os.Create(filepath.Join(cfg.Dir, "harness.jsonl"))
	if err != nil {
		return nil, err
	}
	defer ff.Close()
	r.harness = NewHistory(ff)
	r.hists = append(r.hists, ff.Name())
	wctx, cancel := context.WithDeadline(ctx, r.until)
	defer cancel()
	var wg sync.WaitGroup
	for g := range cfg.Groups {
		proxies, addrs, err := r.proxies()
		if err != nil {
			return nil, err
		}
		r.groups = append(r.groups, proxies)
		c, err := client.Dial(wctx, addrs...)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		for k := range cfg.PerGroup {
			w := newWorker(fmt.Sprintf("g%d/w%d", g, k), cfg.Seed, c, store, hist, cfg.TTL, cfg.LockDelay)
			r.workers = append(r.workers, w)
			wg.Go(func() { w.Run(wctx, maxOps) })
		}
	}
	for range cfg.Procs {
		proxies, _, err := r.proxies()
		if err != nil {
			return nil, err
		}
		s := &procSlot{proxies: proxies}
		r.procs = append(r.procs, s)
		if err := r.startProc(s); err != nil {
			return nil, err
		}
	}
	defer func() {
		for _, s := range r.procs {
			if s.cmd != nil {
				s.cmd.Process.Kill()
				<-s.exited
			}
		}
	}()

	injected := make(chan error, 1)
	go func() { injected <- r.inject(wctx, calm) }()
	wg.Wait()
	if err := <-injected; err != nil {
		return nil, err
	}
	for _, s := range r.procs {
		select {
		case err := <-s.exited:
			s.cmd = nil
			if err != nil {
				return nil, fmt.Errorf("client process %s: %v", s.id, err)
			}
		case <-time.After(15 * time.Second):
			return nil, fmt.Errorf("client process %s still running 15s after its end", s.id)
		}
	}
	// The leases of killed and abandoned sessions run out, and what they
	// held goes back, before the nodes stop.
	time.Sleep(cfg.TTL + cfg.LockDelay + 500*time.Millisecond)
	r.ns.stop()
	logs, err := r.ns.logs()
	if err != nil {
		return nil, err
	}
	if err := writeFaults(filepath.Join(cfg.Dir, "faults.jsonl"), r.faults); err != nil {
		return nil, err
	}
	var events []Event
	for _, path := range r.hists {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a client process killed before it wrote anything
		}
		if err != nil {
			return nil, err
		}
		h, err := ReadHistory(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		events = append(events, h...)
	}
	var missing []int
	for i := range r.ns.addrs {
		for life := range r.ns.lives[i] {
			if r.ns.killed[[2]int{i, life}] {
				missing = append(missing, i)
				break
			}
		}
	}
	return Check(Input{Nodes: logs, Missing: missing, History: events, Faults: r.faults, Calm: calm.UnixNano(), Bound: cfg.Bound, Budget: bud})
}

// others are the client groups a worker's abandonment touches: all but
// its own (whose stall is its pause).
func (r *run) others(id string) []string {
	var out []string
	for g := range r.groups {
		if n := fmt.Sprintf("g%d", g); n != group(id) {
			out = append(out, n)
		}
	}
	for _, s := range r.procs {
		out = append(out, s.id)
	}
	return out
}

// writeFaults writes the fault schedule as it happened, one per line.
func writeFaults(path string, fs []Fault) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, x := range fs {
		enc.Encode(x)
	}
	return f.Close()
}

// proxies makes a proxy to every node.
func (r *run) proxies() ([]*Proxy, []string, error) {
	var ps []*Proxy
	var addrs []string
	for _, a := range r.ns.addrs {
		p, err := NewProxy(a)
		if err != nil {
			return nil, nil, err
		}
		ps, addrs = append(ps, p), append(addrs, p.Addr())
	}
	r.all = append(r.all, ps...)
	return ps, addrs, nil
}

// startProc starts a new incarnation of a client process in slot s.
func (r *run) startProc(s *procSlot) error {
	r.lives++
	s.id = fmt.Sprintf("p%d", r.lives)
	var addrs []string
	for _, p := range s.proxies {
		addrs = append(addrs, p.Addr())
	}
	path := filepath.Join(r.cfg.Dir, "client-"+s.id+".jsonl")
	r.hists = append(r.hists, path)
	cmd := r.cfg.ClientProcess([]string{
		envID + "=" + s.id, envAddrs + "=" + strings.Join(addrs, ","), envStore + "=" + r.storeU,
		envHistory + "=" + path, envSeed + "=" + strconv.FormatUint(r.cfg.Seed, 10),
		envUntil + "=" + strconv.FormatInt(r.until.UnixNano(), 10), envWorkers + "=" + strconv.Itoa(r.cfg.PerProc),
		envTTL + "=" + r.cfg.TTL.String(),
	})
	cmd.Stdout, cmd.Stderr = r.cfg.Stderr, r.cfg.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd = cmd
	s.exited = make(chan error, 1)
	go func() { s.exited <- cmd.Wait() }()
	return nil
}

// inject injects faults drawn from the seed until calm: one at a time,
// with a random gap between them, so that the seed fixes the schedule
// (which faults, on what, for how long, after what gap).
func (r *run) inject(ctx context.Context, calm time.Time) error {
	kinds := r.cfg.Faults.kinds()
	if len(kinds) == 0 {
		return nil
	}
	rnd := rand.New(rand.NewPCG(r.cfg.Seed, 0xfa17))
	n := r.cfg.Nodes
	for {
		gap := time.Duration(rnd.Int64N(int64(2 * r.cfg.Every)))
		kind := kinds[rnd.IntN(len(kinds))]
		i, k := rnd.IntN(n), rnd.IntN(n-1)
		if k >= i {
			k++
		}
		d := time.Duration(rnd.Int64N(int64(time.Second)))
		switch kind {
		case "partition", "node-kill":
			d = 200*time.Millisecond + d*18/10
		case "long-partition":
			d = r.cfg.Suspect + 500*time.Millisecond + d*2
		case "client-cut":
			d = 100*time.Millisecond + d*14/10
		default:
			d = 0
		}
		pick := rnd.IntN(1 << 20)
		sleep(ctx, gap)
		if ctx.Err() != nil || time.Now().Add(d).After(calm) {
			return nil
		}
		f := Fault{Kind: kind, Start: time.Now().UnixNano(), Touched: []string{"*"}}
		switch kind {
		case "link-cut":
			f.Target = fmt.Sprintf("node %d ↔ node %d", i, k)
			for _, p := range r.ns.link(i, k) {
				p.Cut()
			}
		case "partition", "long-partition":
			f.Target = fmt.Sprintf("node %d for %v", i, d.Round(time.Millisecond))
			ps := r.ns.isolate(i)
			for _, p := range ps {
				p.Down()
			}
			sleep(ctx, d)
			for _, p := range ps {
				p.Up()
			}
		case "client-cut":
			var p *Proxy
			if g := pick % (len(r.groups) + len(r.procs)); g < len(r.groups) {
				p, f.Touched = r.groups[g][i], []string{fmt.Sprintf("g%d", g)}
			} else {
				s := r.procs[g-len(r.groups)]
				p, f.Touched = s.proxies[i], []string{s.id}
			}
			f.Target = fmt.Sprintf("%s ↔ node %d for %v", f.Touched[0], i, d.Round(time.Millisecond))
			p.Down()
			sleep(ctx, d)
			p.Up()
		case "client-kill":
			if len(r.procs) == 0 {
				continue
			}
			s := r.procs[pick%len(r.procs)]
			f.Target = s.id
			s.cmd.Process.Kill()
			<-s.exited
			r.harness.Put(Event{Client: "harness", Op: "killed", Type: "info", Keys: []string{s.id}})
			if err := r.startProc(s); err != nil {
				return err
			}
		case "abandon":
			if len(r.workers) == 0 {
				continue
			}
			w := r.workers[pick%len(r.workers)]
			f.Target = w.ID
			f.Touched = r.others(w.ID)
			w.Abandon()
		case "node-kill":
			f.Target = fmt.Sprintf("node %d, down %v", i, d.Round(time.Millisecond))
			r.ns.kill(i)
			sleep(ctx, d)
			if err := r.ns.start(i); err != nil {
				return err
			}
		}
		f.End = time.Now().UnixNano()
		r.faults = append(r.faults, f)
	}
}
