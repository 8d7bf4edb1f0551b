// Command peers measures allot beside the lock services users run today —
// etcd, ZooKeeper and Redis — on this machine, in one run: the same four
// workloads (package workload), the same window, warm-up and operation
// bound, one system after the other. allot runs as `allot bench --format
// json`, built from this repository; the peers run as servers of their
// own on 127.0.0.1 (package backend). It writes the summary table with
// the ratios beside the absolute numbers, the full report (Markdown) and
// the run (JSON), and with -w the README's performance table.
//
//	./setup.sh               # once: Debian's redis-server, zookeeper, a JRE
//	go run ./cmd/peers -w    # about 3 minutes; a system not installed is skipped, and said so
//
// It is a module of its own so that the project's module does not take
// etcd's, ZooKeeper's or Redis's client libraries.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/allot-dev/allot/bench/peers/allotbench"
	"github.com/allot-dev/allot/bench/peers/backend"
	"github.com/allot-dev/allot/bench/peers/report"
	"github.com/allot-dev/allot/bench/peers/workload"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// errBad is bad input: one line and exit 2.
var errBad = errors.New("bad input")

func badf(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errBad}, a...)...)
}

// defaultBackends are the systems of the README's table.
const defaultBackends = "baseline,allot,allot-near,etcd,zk,redis,redis-fastretry,inproc"

type options struct {
	backends            []string
	runs                int
	cfg                 workload.Config
	warmup, jvmWarmup   time.Duration
	allotBin, src       string
	mdPath, jsonPath    string
	write               bool
	readme, workdir     string
	redisServer, java   string
	zkClasspath, zkHeap string
}

func parse(args []string, stdout io.Writer) (options, error) {
	o := options{cfg: workload.Default()}
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	backends := fs.String("backends", defaultBackends, "the systems, comma-separated, of: baseline, allot, allot-near, "+strings.Join(backend.Names(), ", ")+"; or all")
	fs.IntVar(&o.runs, "runs", 1, "runs of every system (interleaved: all systems once, then again)")
	fs.DurationVar(&o.cfg.Window, "dur", o.cfg.Window, "how long each workload is measured")
	fs.IntVar(&o.cfg.MaxOps, "max-ops", o.cfg.MaxOps, "and at most this many operations of it")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "each workload runs this long, unmeasured, before the measured runs")
	fs.DurationVar(&o.jvmWarmup, "jvm-warmup", 5*time.Second, "the warm-up of ZooKeeper, whose JIT takes longer to settle")
	fs.DurationVar(&o.cfg.Drain, "drain", o.cfg.Drain, "how long operations in flight at the window's end may take to finish")
	fs.IntVar(&o.cfg.W4, "w4-sessions", o.cfg.W4, "W4's clients, each with a session of its own (allot bench --w4-sessions)")
	fs.IntVar(&o.cfg.W4Keys, "w4-names", o.cfg.W4Keys, "W4's key space: each operation locks one key drawn uniformly from this many (allot bench --w4-names)")
	fs.StringVar(&o.allotBin, "allot", "", "the allot program to run (default: build ./cmd/allot of -src)")
	fs.StringVar(&o.src, "src", "../..", "the allot repository")
	fs.StringVar(&o.mdPath, "md", "results.md", "write the report here")
	fs.StringVar(&o.jsonPath, "json", "results.json", "write the run as JSON here")
	fs.BoolVar(&o.write, "w", false, "rewrite the performance table of -readme")
	fs.StringVar(&o.readme, "readme", "", "the README whose table -w rewrites (default: -src's README.md)")
	fs.StringVar(&o.workdir, "workdir", "", "the parent of the servers' temporary directories (default: the system's)")
	fs.StringVar(&o.redisServer, "redis-server", "redis-server", "the redis-server program")
	fs.StringVar(&o.java, "java", "java", "the java program ZooKeeper runs on")
	fs.StringVar(&o.zkClasspath, "zk-classpath", "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-nop.jar", "ZooKeeper's jars")
	fs.StringVar(&o.zkHeap, "zk-heap", "1g", "ZooKeeper's -Xmx")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "usage: go run ./cmd/peers [flags]\n\nruns W1-W4 against allot bench's cluster, etcd, ZooKeeper and Redis in one run")
			fs.PrintDefaults()
			return o, err
		}
		return o, badf("%v", err)
	}
	if fs.NArg() > 0 {
		return o, badf("unexpected argument %q", fs.Arg(0))
	}
	if *backends == "all" {
		*backends = "baseline,allot,allot-near," + strings.Join(backend.Names(), ",")
	}
	for _, b := range strings.Split(*backends, ",") {
		b = strings.TrimSpace(b)
		if b != "baseline" && !report.IsAllot(b) && !slices.Contains(backend.Names(), b) {
			return o, badf("-backends: unknown system %q", b)
		}
		if slices.Contains(o.backends, b) {
			return o, badf("-backends: %s twice", b)
		}
		o.backends = append(o.backends, b)
	}
	if o.runs < 1 {
		return o, badf("-runs must be at least 1")
	}
	if o.warmup < 0 || o.jvmWarmup < 0 {
		return o, badf("-warmup and -jvm-warmup must not be negative")
	}
	if err := o.cfg.Validate(); err != nil {
		return o, badf("%v", err)
	}
	if o.readme == "" {
		o.readme = filepath.Join(o.src, "README.md")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// The servers this program runs as: etcd's and the baseline's echo.
	if len(args) == 2 && args[0] == backend.EtcdFlag {
		return exit(stderr, backend.ServeEtcd(ctx, args[1], stdout))
	}
	if len(args) == 1 && args[0] == backend.EchoFlag {
		return exit(stderr, backend.ServeEcho(ctx, stdout))
	}
	o, err := parse(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return exit(stderr, err)
	}
	return exit(stderr, measure(ctx, o, "go run ./cmd/peers "+strings.Join(args, " "), stdout))
}

func exit(stderr io.Writer, err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errBad):
		fmt.Fprintf(stderr, "peers: %s\n", strings.TrimPrefix(err.Error(), errBad.Error()+": "))
		return 2
	}
	fmt.Fprintf(stderr, "peers: %v\n", err)
	return 1
}

func measure(ctx context.Context, o options, command string, stdout io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if o.write {
		// A README without its region fails now, not after the run.
		old, err := os.ReadFile(o.readme)
		if err != nil {
			return err
		}
		if _, err := report.Splice(old, ""); err != nil {
			return fmt.Errorf("%s: %w", o.readme, err)
		}
	}
	procs := backend.NewProcs()
	defer procs.StopAll()
	env := backend.DefaultEnv(procs, self)
	env.RedisServer, env.Java, env.ZKClasspath, env.ZKHeap = o.redisServer, o.java, o.zkClasspath, o.zkHeap
	doc := report.Doc{Date: time.Now(), Machine: machine(), Load: loadAverage(), CPUs: runtime.NumCPU(),
		Command: strings.TrimSpace(command),
		Settings: fmt.Sprintf("each workload %v (at most %d operations) after a %v warm-up (ZooKeeper: %v); W2 %d clients; W3 %d clients taking %d of %d keys, holding %v; W4 %d clients each taking 1 of %d keys",
			o.cfg.Window, o.cfg.MaxOps, o.warmup, o.jvmWarmup, o.cfg.W2, o.cfg.W3, o.cfg.W3K, o.cfg.W3Keys, o.cfg.W3Hold, o.cfg.W4, o.cfg.W4Keys)}
	fmt.Fprintf(stdout, "%s; load average %.1f\n", doc.Machine, doc.Load)
	var systems []string
	for _, b := range o.backends {
		if b == "baseline" || report.IsAllot(b) {
			systems = append(systems, b)
			continue
		}
		var ni *backend.NotInstalled
		if err := backend.Check(b, env); errors.As(err, &ni) {
			doc.Skipped = append(doc.Skipped, report.Skip{Backend: b, Reason: ni.Error()})
			fmt.Fprintf(stdout, "skipped %s\n", ni)
			continue
		} else if err != nil {
			return err
		}
		systems = append(systems, b)
	}
	tmp, err := os.MkdirTemp(o.workdir, "peers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if slices.ContainsFunc(systems, report.IsAllot) && o.allotBin == "" {
		fmt.Fprintf(stdout, "building allot from %s\n", o.src)
		if o.allotBin, err = allotbench.Build(ctx, o.src, tmp); err != nil {
			return err
		}
	}
	if slices.Contains(systems, "baseline") {
		bl, err := backend.MeasureBaseline(env, tmp, 10000)
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		doc.Baseline = &bl
		fmt.Fprintf(stdout, "baseline: loopback round trip p50 %s; unary gRPC call p50 %s; fdatasync p50 %s\n", report.FmtUs(bl.RTTP50us), report.FmtUs(bl.GRPCP50us), report.FmtUs(bl.FsyncP50us))
	}
	for r := 1; r <= o.runs; r++ {
		for _, name := range systems {
			if name == "baseline" {
				continue
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			res := runSystem(ctx, o, env, tmp, name, r)
			for _, s := range res.Workloads {
				fmt.Fprintf(stdout, "%s run %d %s: %s ops/s, p50 %s, p99 %s, min/max per client %.2f\n", name, r, s.Workload,
					report.FmtRate(s.OpsPerSec), report.FmtUs(s.P50us), report.FmtUs(s.P99us), s.Fairness())
			}
			if res.Error != "" {
				fmt.Fprintf(stdout, "%s run %d: error: %s\n", name, r, res.Error)
			}
			doc.Runs = append(doc.Runs, res)
		}
	}
	fmt.Fprintf(stdout, "\n%s\n%s", doc.Table(), doc.TargetList())
	if err := writeOutputs(o, doc); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", o.mdPath, o.jsonPath)
	if o.write {
		fmt.Fprintf(stdout, "rewrote the performance table of %s\n", o.readme)
	}
	return nil
}

// runSystem runs the workloads against one system, started afresh.
func runSystem(ctx context.Context, o options, env backend.Env, tmp, name string, run int) report.Run {
	res := report.Run{Backend: name, Run: run, Started: time.Now()}
	if report.IsAllot(name) {
		ao := allotbench.Options{Window: o.cfg.Window, Warmup: o.warmup, MaxOps: o.cfg.MaxOps, Near: name == report.AllotNear,
			W4Sessions: o.cfg.W4, W4Names: o.cfg.W4Keys}
		r, err := allotbench.Run(ctx, o.allotBin, ao)
		res.Workloads, res.CPUSeconds = r.Workloads, r.CPUSeconds
		res.Info = map[string]string{"server": "allot (its own 3-node cluster on loopback)", "command": "allot " + strings.Join(ao.Args(), " ")}
		if r.Protocol != "" {
			res.Info["protocol"] = r.Protocol
		}
		if err != nil {
			res.Error = err.Error()
		}
		return res
	}
	dir, err := os.MkdirTemp(tmp, name+"-")
	if err != nil {
		res.Error = err.Error()
		return res
	}
	b, err := backend.New(name, env)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	if err := b.Start(dir); err != nil {
		res.Error = "start: " + err.Error()
		return res
	}
	defer func() {
		if err := b.Stop(); err != nil {
			res.StopNote = err.Error()
		}
	}()
	res.Info = b.Info()
	warm := o.warmup
	if strings.HasPrefix(name, "zk") {
		warm = o.jvmWarmup
	}
	if warm > 0 {
		wc := o.cfg
		wc.Window, wc.KeyBase = warm, "warm"
		if _, err := workload.Run(ctx, wc, b.NewClient, nil); err != nil {
			res.Error = "warm-up: " + err.Error()
			return res
		}
	}
	cfg := o.cfg
	cfg.Seed = uint64(run)
	res.Workloads, err = workload.Run(ctx, cfg, b.NewClient, backend.Meter{B: b})
	if err != nil {
		res.Error = err.Error()
	}
	return res
}

func writeOutputs(o options, doc report.Doc) error {
	js, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.jsonPath, append(js, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(o.mdPath, []byte(doc.Markdown()), 0o644); err != nil {
		return err
	}
	if !o.write {
		return nil
	}
	old, err := os.ReadFile(o.readme)
	if err != nil {
		return err
	}
	updated, err := report.Splice(old, doc.Region())
	if err != nil {
		return fmt.Errorf("%s: %w", o.readme, err)
	}
	return os.WriteFile(o.readme, updated, 0o644)
}

// machine describes the machine: its CPUs, kernel and Go.
func machine() string {
	model := "?"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return fmt.Sprintf("%d CPUs (%s), Linux %s, %s", runtime.NumCPU(), model, strings.TrimSpace(string(kernel)), runtime.Version())
}

// loadAverage is the 1-minute load average (-1 when unknown).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}
