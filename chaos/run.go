package chaos

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service"
)

// Faults says which kinds of fault a run injects.
type Faults struct {
	ClientKill bool // kill -9 of a client process (a new one takes its place)
	Abandon    bool // a client goroutine stops renewing its session while it holds a lock, pauses past its lease, then writes with its stale token
	LinkCut    bool // every connection of one node↔node link closed (reconnects at once)
	Partition  bool // every link of one node refused for 0.2–2s (below the default Config.Suspect: rarely taken for a crash)
	ClientCut  bool // one client group's connections to one node refused for 0.1–1.5s
	// LongPartition: every link of one node refused for Config.Suspect
	// plus 0.5–2.5s, so that the others surely think it dead and move to
	// a view without it, while it fences itself. Off by default: a
	// Pause (1–30s) outlasts the default Suspect often enough.
	LongPartition bool
	// NodeKill: kill -9 of a node process, restarted after 0.2–2s.
	NodeKill bool
	// Drop: one node↔node link forwards nothing either way for 0.5–4s
	// while its connections stay open (a silent drop); then it flows on,
	// or one side's connections are reset and the other's left open and
	// silent (a reset seen by one side only).
	Drop bool
	// DropOneWay: as Drop, one way only: A's bytes to B dropped, B's to
	// A flowing.
	DropOneWay bool
	// Bridge: a non-transitive partition: the link A–B forwards nothing
	// for 0.5–4s while both reach every other node.
	Bridge bool
	// Pause: SIGSTOP of a node process for 1s–Config.MaxPause
	// (log-uniform), then SIGCONT.
	Pause bool
	// FastRestart: kill -9 of a node process, restarted on its data dir
	// after 10–60ms, before anyone can suspect it.
	FastRestart bool
	// KillTwo and KillAll: kill -9 of two nodes, or of every node, at
	// once, restarted together on their data dirs after 0.2–2s.
	KillTwo, KillAll bool
	// Busy: Config.Hogs processes spin on the CPU beside the nodes for
	// 1–5s, a loaded machine (each ends by itself after the fault too,
	// should the harness die first).
	Busy bool
	// Stutter: a node process stopped (SIGSTOP) and let go (SIGCONT) over
	// and over for 1–5s, each stop of 10–90ms and each run between of
	// 5–50ms: a node starved of the CPU, in bursts shorter than any
	// timeout.
	Stutter bool
}

// faultKinds names every kind of fault, in the order runs list them.
var faultKinds = []struct {
	name string
	on   func(*Faults) *bool
}{
	{"client-kill", func(f *Faults) *bool { return &f.ClientKill }},
	{"abandon", func(f *Faults) *bool { return &f.Abandon }},
	{"link-cut", func(f *Faults) *bool { return &f.LinkCut }},
	{"partition", func(f *Faults) *bool { return &f.Partition }},
	{"client-cut", func(f *Faults) *bool { return &f.ClientCut }},
	{"long-partition", func(f *Faults) *bool { return &f.LongPartition }},
	{"node-kill", func(f *Faults) *bool { return &f.NodeKill }},
	{"drop", func(f *Faults) *bool { return &f.Drop }},
	{"drop-oneway", func(f *Faults) *bool { return &f.DropOneWay }},
	{"bridge", func(f *Faults) *bool { return &f.Bridge }},
	{"pause", func(f *Faults) *bool { return &f.Pause }},
	{"fast-restart", func(f *Faults) *bool { return &f.FastRestart }},
	{"kill-two", func(f *Faults) *bool { return &f.KillTwo }},
	{"kill-all", func(f *Faults) *bool { return &f.KillAll }},
	{"busy", func(f *Faults) *bool { return &f.Busy }},
	{"stutter", func(f *Faults) *bool { return &f.Stutter }},
}

// FaultNames are the names -faults takes.
func FaultNames() []string {
	var out []string
	for _, k := range faultKinds {
		out = append(out, k.name)
	}
	return out
}

// AllFaults are the faults of a default run: everything but
// LongPartition.
func AllFaults() Faults {
	var f Faults
	for _, k := range faultKinds {
		*k.on(&f) = k.name != "long-partition"
	}
	return f
}

// LegacyFaults are the faults the service before the Raft control plane
// (an allot serve without --data-dir) was built to survive: AllFaults
// but the silent drops, bridges, pauses, fast restarts, two and all nodes
// killed, which it fails, and the starved CPU (busy, stutter), which came
// after it.
func LegacyFaults() Faults {
	return Faults{ClientKill: true, Abandon: true, LinkCut: true, Partition: true, ClientCut: true, NodeKill: true}
}

// ParseFaults reads a comma-separated list of fault kinds ("all": every
// kind but long-partition).
func ParseFaults(list string) (Faults, error) {
	if list == "all" {
		return AllFaults(), nil
	}
	var f Faults
next:
	for _, name := range strings.Split(list, ",") {
		for _, k := range faultKinds {
			if k.name == name {
				*k.on(&f) = true
				continue next
			}
		}
		return f, fmt.Errorf("unknown fault kind %q (want some of %s)", name, strings.Join(FaultNames(), ", "))
	}
	return f, nil
}

func (f Faults) kinds() []string {
	var out []string
	for _, k := range faultKinds {
		if *k.on(&f) {
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
	Groups, PerGroup      int           // client goroutines: Groups groups (each its own connections) of PerGroup
	Procs, PerProc        int           // client processes, of PerProc clients each
	TTL, LockDelay        time.Duration // TTL: the client goroutines' sessions'
	// ProcTTL is the client processes' session TTL; zero leaves it to
	// the client's default (10s), so that the service sees sessions of
	// the default TTL in every run.
	ProcTTL time.Duration
	// MaxPause bounds a Pause fault (SIGSTOP), drawn from 1s to it.
	MaxPause time.Duration
	// Suspect is the nodes' --suspect: a node whose links stay down this
	// long is thought dead and the others move to a view without it.
	Suspect time.Duration
	// Hogs is how many processes spin on the CPU in a Busy fault.
	Hogs   int
	Every  time.Duration // mean gap between faults
	Faults Faults
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
	defD(&c.TTL, 2*time.Second)
	defD(&c.LockDelay, 200*time.Millisecond)
	// A client killed just before the calm holds its locks for its TTL
	// and the lock-delay; what it blocked is served some seconds after.
	defD(&c.Bound, 8*time.Second+c.maxTTL())
	defD(&c.Calm, c.Bound+2*time.Second)
	defD(&c.MaxPause, 30*time.Second)
	// The service's default: node kills are found after this, and the
	// longer pauses are taken for crashes (then the node fences itself
	// and rejoins), which the run must survive too.
	defD(&c.Suspect, service.DefaultSuspect)
	// Four hogs on a machine of two cores: the load under which the
	// default --suspect was chosen.
	def(&c.Hogs, 4)
	defD(&c.Every, 400*time.Millisecond)
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
}

// defaultTTL is the client's session TTL when none is asked for.
const defaultTTL = 10 * time.Second

// maxTTL is the longest TTL of the run's sessions.
func (c *Config) maxTTL() time.Duration {
	if c.ProcTTL == 0 {
		return max(c.TTL, defaultTTL)
	}
	return max(c.TTL, c.ProcTTL)
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
	// envHog makes the process a CPU hog until the Unix nanosecond it
	// holds.
	envHog = "ALLOT_CHAOS_HOG"
)

// IsClientProcess reports whether this process was started as a chaos
// client process (or as a CPU hog of a Busy fault).
func IsClientProcess() bool { return os.Getenv(envID) != "" || os.Getenv(envHog) != "" }

// RunClientProcess runs the workers of a client process until the time
// its harness gave, writing their history to the file it named (or, in a
// Busy fault, spins on the CPU until then).
func RunClientProcess() error {
	if v := os.Getenv(envHog); v != "" {
		until, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("chaos hog: bad environment: %w", err)
		}
		hog(time.Unix(0, until))
		return nil
	}
	id := os.Getenv(envID)
	seed, err1 := strconv.ParseUint(os.Getenv(envSeed), 10, 64)
	until, err2 := strconv.ParseInt(os.Getenv(envUntil), 10, 64)
	workers, err3 := strconv.Atoi(os.Getenv(envWorkers))
	var ttl time.Duration
	var err4 error
	if v := os.Getenv(envTTL); v != "" {
		ttl, err4 = time.ParseDuration(v)
	}
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

// hog spins on one CPU until until: it looks at the clock only every few
// million steps, so it is on the CPU nearly all the time.
func hog(until time.Time) {
	for time.Now().Before(until) {
		for i := 0; i < 1<<22; i++ {
		}
	}
}

// maxOps bounds each worker's operations (the run's time bounds them
// first).
const maxOps = 1_000_000

func newWorker(id string, seed uint64, c *client.Client, s Store, h *History, ttl, lockDelay time.Duration) *Worker {
	f := fnv.New64a()
	f.Write([]byte(id))
	lease := ttl
	if lease == 0 {
		lease = defaultTTL
	}
	return &Worker{ID: id, C: c, Store: s, H: h, Rnd: rand.New(rand.NewPCG(seed, f.Sum64())), TTL: ttl,
		Pause: lease + lockDelay + 500*time.Millisecond, OpTimeout: 5 * time.Second}
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
	// held goes back, before the nodes stop (usually long before: the
	// calm outlasts a lease).
	last := start
	if len(r.faults) > 0 {
		last = time.Unix(0, r.faults[len(r.faults)-1].End)
	}
	for _, w := range r.workers {
		if t := time.Unix(0, w.abandoned.Load()); t.After(last) {
			last = t
		}
	}
	time.Sleep(time.Until(last.Add(cfg.maxTTL() + cfg.LockDelay + 500*time.Millisecond)))
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

// ttlEnv is a TTL for a client process's environment ("": the client's
// default).
func ttlEnv(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
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
	// Emptied first: the process appends, and a -dir kept from an
	// earlier run must not lend it that run's history.
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		return err
	}
	r.hists = append(r.hists, path)
	cmd := r.cfg.ClientProcess([]string{
		envID + "=" + s.id, envAddrs + "=" + strings.Join(addrs, ","), envStore + "=" + r.storeU,
		envHistory + "=" + path, envSeed + "=" + strconv.FormatUint(r.cfg.Seed, 10),
		envUntil + "=" + strconv.FormatInt(r.until.UnixNano(), 10), envWorkers + "=" + strconv.Itoa(r.cfg.PerProc),
		envTTL + "=" + ttlEnv(r.cfg.ProcTTL),
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

// schedule draws the faults of a run from its seed.
type schedule struct {
	rnd                    *rand.Rand
	kinds                  []string
	round                  []int // what is left of the round, as indexes into kinds
	nodes                  int
	every, suspect, pauses time.Duration
}

// draw is one fault drawn: its kind, the gap before it, its nodes i and
// k (k ≠ i), its duration d, and pick, for the choices left (which client,
// how a drop heals).
type draw struct {
	kind       string
	gap, d     time.Duration
	i, k, pick int
}

func newSchedule(cfg Config, kinds []string) *schedule {
	return &schedule{rnd: rand.New(rand.NewPCG(cfg.Seed, 0xfa17)), kinds: kinds, nodes: cfg.Nodes,
		every: cfg.Every, suspect: cfg.Suspect, pauses: cfg.MaxPause}
}

// next draws the next fault; every draw takes the same random numbers, so
// a seed fixes the whole schedule.
func (s *schedule) next() draw {
	rnd := s.rnd
	if len(s.round) == 0 {
		// A pause, the longest fault, comes last in its round: cut
		// short to fit before the calm, it leaves the round's other
		// kinds their turn.
		s.round = rnd.Perm(len(s.kinds))
		slices.SortStableFunc(s.round, func(a, b int) int {
			return cmp.Compare(b2i(s.kinds[a] == "pause"), b2i(s.kinds[b] == "pause"))
		})
	}
	dr := draw{kind: s.kinds[s.round[0]]}
	s.round = s.round[1:]
	dr.gap = time.Duration(rnd.Int64N(int64(2 * s.every)))
	dr.i, dr.k = rnd.IntN(s.nodes), rnd.IntN(s.nodes-1)
	if dr.k >= dr.i {
		dr.k++
	}
	u := rnd.Float64()
	d := time.Duration(u * float64(time.Second))
	switch dr.kind {
	case "partition", "node-kill", "kill-two", "kill-all":
		d = 200*time.Millisecond + d*18/10
	case "long-partition":
		d = s.suspect + 500*time.Millisecond + d*2
	case "client-cut":
		d = 100*time.Millisecond + d*14/10
	case "drop", "drop-oneway", "bridge":
		d = 500*time.Millisecond + d*35/10
	case "pause":
		// Log-uniform from 1s: half the pauses under the geometric mean
		// (5.5s of 1–30s).
		d = time.Duration(float64(time.Second) * math.Pow(s.pauses.Seconds(), u))
	case "fast-restart":
		d = 10*time.Millisecond + d/20
	case "busy", "stutter":
		d = time.Second + d*4
	default:
		d = 0
	}
	dr.d = d
	dr.pick = rnd.IntN(1 << 20)
	return dr
}

// inject injects faults drawn from the seed until calm: one at a time,
// with a random gap between them, so that the seed fixes the schedule
// (which faults, on what, for how long, after what gap). The kinds come
// in rounds, each kind once per round in a seeded order, so that a short
// run sees every kind. A fault that would run into the calm ends the
// schedule, but a pause (last in its round) is cut short to fit if a
// second of it does.
func (r *run) inject(ctx context.Context, calm time.Time) error {
	kinds := r.cfg.Faults.kinds()
	if len(kinds) == 0 {
		return nil
	}
	sch := newSchedule(r.cfg, kinds)
	n := r.cfg.Nodes
	for {
		dr := sch.next()
		kind, i, k, d, pick := dr.kind, dr.i, dr.k, dr.d, dr.pick
		sleep(ctx, dr.gap)
		if ctx.Err() != nil {
			return nil
		}
		now := time.Now()
		if left := calm.Sub(now); kind == "pause" && d > left && left > time.Second {
			d = left
		}
		if now.Add(d).After(calm) {
			return nil
		}
		f := Fault{Kind: kind, Start: time.Now().UnixNano(), Touched: []string{"*"}}
		var err error
		switch kind {
		case "link-cut":
			f.Target = fmt.Sprintf("node %d ↔ node %d", i, k)
			for _, p := range r.ns.link(i, k) {
				p.Cut()
			}
		case "partition", "long-partition":
			f.Target, f.Nodes = fmt.Sprintf("node %d for %v", i, d.Round(time.Millisecond)), []int{i}
			ps := r.ns.isolate(i)
			for _, p := range ps {
				p.Down()
			}
			sleep(ctx, d)
			for _, p := range ps {
				p.Up()
			}
		case "drop", "drop-oneway", "bridge":
			f.Target, f.Nodes = r.drop(ctx, kind, i, k, d, pick), []int{i, k}
		case "client-cut":
			var p *Proxy
			if g := pick % (len(r.groups) + len(r.procs)); g < len(r.groups) {
				p, f.Touched = r.groups[g][i], []string{fmt.Sprintf("g%d", g)}
			} else {
				s := r.procs[g-len(r.groups)]
				p, f.Touched = s.proxies[i], []string{s.id}
			}
			f.Target, f.Nodes = fmt.Sprintf("%s ↔ node %d for %v", f.Touched[0], i, d.Round(time.Millisecond)), []int{i}
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
		case "pause":
			f.Target, f.Nodes = fmt.Sprintf("node %d for %v", i, d.Round(time.Millisecond)), []int{i}
			r.ns.pause(i)
			sleep(ctx, d)
			r.ns.cont(i)
		case "stutter":
			f.Target, f.Nodes = r.stutter(ctx, i, d, pick), []int{i}
		case "busy":
			if r.cfg.ClientProcess == nil {
				continue
			}
			var herr error
			if f.Target, herr = r.busy(ctx, d); herr != nil {
				return herr // the harness's failure, not the service's
			}
		case "node-kill", "fast-restart", "kill-two", "kill-all":
			is := []int{i}
			switch kind {
			case "kill-two":
				is = []int{i, k}
			case "kill-all":
				is = is[:0]
				for j := range n {
					is = append(is, j)
				}
			}
			f.Target, f.Nodes = fmt.Sprintf("nodes %v, down %v", is, d.Round(time.Millisecond)), is
			r.ns.kill(is...)
			sleep(ctx, d)
			err = r.ns.restart(is...)
		}
		f.End = time.Now().UnixNano()
		if err != nil {
			// A node that does not come back is the service's failure,
			// not the harness's: the checker reports it, and the faults
			// stop here (the node is down for good).
			f.Err = err.Error()
			r.faults = append(r.faults, f)
			return nil
		}
		r.faults = append(r.faults, f)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// drop holds the bytes of the link between nodes i and k for d: both
// ways (drop, and bridge, where every other link flows), or only i's to k
// (drop-oneway). pick says how it heals: the bytes flow on, or the
// connections are reset on one side only and left open and silent on the
// other (a drop only). It returns the fault's description.
func (r *run) drop(ctx context.Context, kind string, i, k int, d time.Duration, pick int) string {
	ik, ki := r.ns.links[i][k], r.ns.links[k][i] // i's connections to k, k's to i
	desc := fmt.Sprintf("node %d ↔ node %d", i, k)
	if kind == "drop-oneway" {
		// i's bytes to k go forward on i's connections and backward on k's.
		desc = fmt.Sprintf("node %d → node %d", i, k)
		ik.Hold(Forward)
		ki.Hold(Backward)
	} else {
		for _, p := range []*Proxy{ik, ki} {
			p.Hold(Forward)
			p.Hold(Backward)
		}
	}
	sleep(ctx, d)
	if kind == "bridge" || pick%2 == 0 {
		ik.Release()
		ki.Release()
		return fmt.Sprintf("%s for %v", desc, d.Round(time.Millisecond))
	}
	// Node i sees its link reset (its own dialled connections, and
	// the ones it accepted from k), node k sees nothing.
	ik.ResetOneSide(false)
	ki.ResetOneSide(true)
	return fmt.Sprintf("%s for %v, then reset seen by node %d only", desc, d.Round(time.Millisecond), i)
}

// stutter stops node i and lets it go on, over and over, for d: each
// stop of 10–90ms, each run between of 5–50ms, drawn from pick (the
// schedule's draws stay the same whatever a stutter takes). The node is
// always let go at the end. It returns the fault's description.
func (r *run) stutter(ctx context.Context, i int, d time.Duration, pick int) string {
	rnd := rand.New(rand.NewPCG(uint64(pick), 0x5707))
	end := time.Now().Add(d)
	stops, stopped := 0, time.Duration(0)
	for time.Now().Before(end) && ctx.Err() == nil {
		stop := 10*time.Millisecond + time.Duration(rnd.Int64N(int64(80*time.Millisecond)))
		t := time.Now()
		r.ns.pause(i)
		sleep(ctx, stop)
		r.ns.cont(i)
		stops, stopped = stops+1, stopped+time.Since(t)
		sleep(ctx, 5*time.Millisecond+time.Duration(rnd.Int64N(int64(45*time.Millisecond))))
	}
	return fmt.Sprintf("node %d for %v: %d stops, %v stopped", i, d.Round(time.Millisecond), stops, stopped.Round(time.Millisecond))
}

// busy runs Config.Hogs processes that spin on the CPU for d, beside
// the nodes and the clients, and kills them at its end. Each also ends by
// itself a second after d, should the harness not be there to kill it.
// It returns the fault's description.
func (r *run) busy(ctx context.Context, d time.Duration) (string, error) {
	until := time.Now().Add(d + time.Second)
	var cmds []*exec.Cmd
	var err error
	for range r.cfg.Hogs {
		cmd := r.cfg.ClientProcess([]string{envHog + "=" + strconv.FormatInt(until.UnixNano(), 10)})
		cmd.Stdout, cmd.Stderr = r.cfg.Stderr, r.cfg.Stderr
		if err = cmd.Start(); err != nil {
			break
		}
		cmds = append(cmds, cmd)
	}
	if err == nil {
		sleep(ctx, d)
	}
	for _, cmd := range cmds {
		cmd.Process.Kill()
		cmd.Wait()
	}
	if err != nil {
		return "", fmt.Errorf("a CPU hog: %w", err)
	}
	return fmt.Sprintf("%d hogs for %v", len(cmds), d.Round(time.Millisecond)), nil
}
