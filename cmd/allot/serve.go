package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/allot-dev/allot/mtls"
	"github.com/allot-dev/allot/service"
)

// serveOpts are the flags of allot serve.
type serveOpts struct {
	clusterFile, nodes, peerAddrs          string
	self                                   int
	lock, semaphore                        string
	slots, resources                       int
	metrics, events, logLevel, dataDir     string
	lockDelay, peerTimeout, drain, suspect time.Duration
	quotas                                 []string
	tls                                    tlsOpts
}

// parseQuota reads NAME=BUDGET[:WASTE].
func parseQuota(v string) (string, service.QuotaSpec, error) {
	name, rest, ok := strings.Cut(v, "=")
	b, w, _ := strings.Cut(rest, ":")
	var q service.QuotaSpec
	var err error
	if ok && name != "" {
		if q.Budget, err = strconv.Atoi(b); err == nil && w != "" {
			q.Waste, err = strconv.Atoi(w)
		}
	}
	if !ok || name == "" || err != nil {
		return "", q, fmt.Errorf("--quota %q: want NAME=BUDGET[:WASTE]", v)
	}
	return name, q, nil
}

func serveFlags(o *serveOpts) *flag.FlagSet {
	fs := flag.NewFlagSet("allot serve", flag.ContinueOnError)
	fs.StringVar(&o.clusterFile, "cluster", "", "the cluster as a YAML file (nodes, lock, semaphore, slots, resources, epoch)")
	fs.StringVar(&o.nodes, "nodes", "", "the cluster's node addresses host:port, comma-separated (instead of --cluster)")
	fs.StringVar(&o.peerAddrs, "peer-addrs", "", "dial the nodes at these addresses instead, in node order, comma-separated (a proxy in between, for tests)")
	fs.IntVar(&o.self, "node", 0, "this node's index in the node list; it listens on that address")
	fs.StringVar(&o.lock, "lock", "", "the algorithm serving Lock (default "+service.DefaultLock+")")
	fs.StringVar(&o.semaphore, "semaphore", "", "the algorithm serving semaphores (default "+service.DefaultSemaphore+")")
	fs.IntVar(&o.slots, "slots", 0, fmt.Sprintf("requests a node serves at once per lock or semaphore (default %d)", service.DefaultSlots))
	fs.IntVar(&o.resources, "resources", 0, fmt.Sprintf("size of the lock namespace names are hashed onto (default %d)", service.DefaultResources))
	fs.StringVar(&o.metrics, "metrics", "", "serve Prometheus /metrics (and Go profiles under /debug/pprof/) on this address (default: none)")
	fs.StringVar(&o.events, "events", "", "write the node event log (JSONL) to FILE")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.DurationVar(&o.lockDelay, "lock-delay", 0, "hold an expired session's resources this long before releasing them")
	fs.DurationVar(&o.suspect, "suspect", time.Second, "the control plane's lease: a node cut off from the majority stops serving within it, a silent node is left out of the view after it, elections start after a third to two thirds of it")
	fs.StringVar(&o.dataDir, "data-dir", "", "keep the node's control log and quota counts in DIR (default allot-data/node-I under the working directory); restarted on its data, a node rejoins as itself")
	fs.DurationVar(&o.peerTimeout, "peer-timeout", 10*time.Second, "give up when the other nodes are not reachable within this time")
	fs.DurationVar(&o.drain, "drain", 5*time.Second, "on SIGINT or SIGTERM, wait this long for granted leases to be given back")
	fs.Func("quota", "a quota Take serves, NAME=BUDGET[:WASTE] (repeatable; adds to the cluster file's)", func(v string) error {
		if _, _, err := parseQuota(v); err != nil {
			return err
		}
		o.quotas = append(o.quotas, v)
		return nil
	})
	o.tls.flags(fs)
	return fs
}

// parseFlags parses args with fs, printing help on stdout for -h.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer, use string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if err == flag.ErrHelp {
		fs.SetOutput(stdout)
		fmt.Fprintln(stdout, use)
		fs.PrintDefaults()
		return errHelp
	}
	if err != nil {
		return badf("%v", err)
	}
	if fs.NArg() > 0 {
		return badf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

func (o *serveOpts) cluster() (service.Cluster, error) {
	var c service.Cluster
	switch {
	case o.clusterFile != "" && o.nodes != "":
		return c, badf("give --cluster or --nodes, not both")
	case o.clusterFile != "":
		var err error
		if c, err = service.ReadCluster(o.clusterFile); err != nil {
			return c, badf("%v", err)
		}
	case o.nodes != "":
		c.Nodes = strings.Split(o.nodes, ",")
	default:
		return c, badf("no cluster: give --nodes or --cluster")
	}
	for _, s := range []struct {
		dst *string
		v   string
	}{{&c.Lock, o.lock}, {&c.Semaphore, o.semaphore}} {
		if s.v != "" {
			*s.dst = s.v
		}
	}
	if o.slots != 0 {
		c.Slots = o.slots
	}
	for _, v := range o.quotas {
		name, q, _ := parseQuota(v) // checked when parsed
		if c.Quotas == nil {
			c.Quotas = map[string]service.QuotaSpec{}
		}
		c.Quotas[name] = q
	}
	if o.resources != 0 {
		c.Resources = o.resources
	}
	if err := c.Complete(); err != nil {
		return c, badf("%v", err)
	}
	if o.self < 0 || o.self >= len(c.Nodes) {
		return c, badf("--node %d: the cluster has nodes 0..%d", o.self, len(c.Nodes)-1)
	}
	if o.peerAddrs != "" {
		via := strings.Split(o.peerAddrs, ",")
		if len(via) != len(c.Nodes) {
			return c, badf("--peer-addrs: %d addresses for %d nodes", len(via), len(c.Nodes))
		}
		for _, a := range via {
			if _, _, err := net.SplitHostPort(a); err != nil {
				return c, badf("--peer-addrs: %v", err)
			}
		}
	}
	return c, nil
}

func serveCmd(args []string, stdout, stderr io.Writer) error {
	var o serveOpts
	if err := parseFlags(serveFlags(&o), args, stdout, "usage: allot serve --nodes A,B,C --node I [flags]\n\nruns node I of a cluster: the Allot API for clients and the links to the other nodes, on the node's address"); err != nil {
		return err
	}
	c, err := o.cluster()
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return badf("--log-level: %v", err)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	srvOpts, dialOpts, err := o.tls.options(log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.Nodes[o.self])
	if err != nil {
		return badf("%v", err)
	}
	defer ln.Close()
	var mln net.Listener
	if o.metrics != "" {
		if mln, err = net.Listen("tcp", o.metrics); err != nil {
			return badf("--metrics: %v", err)
		}
		defer mln.Close()
	}
	if o.suspect <= 0 {
		return badf("--suspect must be positive, got %v", o.suspect)
	}
	if o.dataDir == "" {
		o.dataDir = filepath.Join("allot-data", fmt.Sprintf("node-%d", o.self))
	}
	cfg := service.Config{Cluster: c, Self: o.self, LockDelay: o.lockDelay, Suspect: o.suspect, DataDir: o.dataDir, Log: log, ServerOptions: srvOpts, DialOptions: dialOpts}
	if o.peerAddrs != "" {
		cfg.PeerAddrs = strings.Split(o.peerAddrs, ",")
	}
	if o.events != "" {
		f, err := os.Create(o.events)
		if err != nil {
			return badf("%v", err)
		}
		defer f.Close()
		cfg.Events = f
	}
	n, err := service.New(cfg)
	if err != nil {
		return badf("%v", err)
	}
	srv, err := n.NewServer()
	if err != nil {
		return badf("%v", err)
	}
	go srv.Serve(ln)
	if mln != nil {
		mux := http.NewServeMux()
		mux.Handle("/metrics", n.Metrics())
		// Profiles of a running node, beside its metrics (opt-in with
		// --metrics, like the metrics themselves).
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go hs.Serve(mln)
		defer hs.Close()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	wctx, cancel := context.WithTimeout(ctx, o.peerTimeout)
	err = n.WaitReady(wctx)
	cancel()
	if err != nil {
		dctx, cancel := context.WithTimeout(context.Background(), time.Second)
		n.Shutdown(dctx)
		cancel()
		srv.Stop()
		if ctx.Err() != nil {
			return nil
		}
		return badf("%v", err)
	}
	log.Info("serving", "node", o.self, "addr", c.Nodes[o.self], "lock", c.Lock, "semaphore", c.Semaphore, "quota", c.Quota)
	fmt.Fprintf(stdout, "node %d ready at %s\n", o.self, c.Nodes[o.self])
	<-ctx.Done()
	log.Info("shutting down", "drain", o.drain)
	dctx, cancel := context.WithTimeout(context.Background(), o.drain)
	defer cancel()
	n.Shutdown(dctx)
	srv.Stop()
	return nil
}

// clusterCmd starts nodes of one cluster on loopback, each as its own
// allot serve process, and stops them on SIGINT or SIGTERM.
func clusterCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("allot cluster", flag.ContinueOnError)
	nodes := fs.Int("nodes", 3, "number of nodes")
	dir := fs.String("events", "", "write each node's event log to DIR/node-I.jsonl")
	metrics := fs.Bool("metrics", false, "serve each node's /metrics on a loopback port of its own")
	secure := fs.Bool("tls", false, "mTLS and a client token: a throwaway CA and certificates in a temporary directory, removed when the cluster stops")
	data := fs.String("data-dir", "", "keep node I's data in DIR/node-I (default: a temporary directory, removed when the cluster stops)")
	var quotas []string
	fs.Func("quota", "a quota the cluster serves, NAME=BUDGET[:WASTE] (repeatable)", func(v string) error {
		if _, _, err := parseQuota(v); err != nil {
			return err
		}
		quotas = append(quotas, v)
		return nil
	})
	if err := parseFlags(fs, args, stdout, "usage: allot cluster [--nodes N] [--tls] [--quota NAME=BUDGET[:WASTE]]...\n\nstarts an N-node cluster on 127.0.0.1 as N allot serve processes, prints the addresses, and runs until interrupted"); err != nil {
		return err
	}
	if *nodes < 1 || *nodes > 64 {
		return badf("--nodes %d: want 1 to 64", *nodes)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var serveArgs []string
	var tlsDir, token string
	var files mtls.Files
	if *secure {
		var err error
		if serveArgs, tlsDir, token, files, err = secureCluster(); err != nil {
			return err
		}
		defer os.RemoveAll(tlsDir)
	}
	if *data == "" {
		tmp, err := os.MkdirTemp("", "allot-cluster-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		*data = tmp
	}
	cl, err := startCluster(ctx, *nodes, *dir, *data, *metrics, quotas, serveArgs, stderr)
	if err != nil {
		return err
	}
	defer cl.stop()
	fmt.Fprintf(stdout, "cluster of %d nodes: %s\n", *nodes, strings.Join(cl.addrs, ","))
	for i, m := range cl.metrics {
		fmt.Fprintf(stdout, "node %d metrics: http://%s/metrics\n", i, m)
	}
	if *secure {
		fmt.Fprintf(stdout, "mTLS certificates: %s (removed when the cluster stops)\nclient token: %s\n", tlsDir, token)
		fmt.Fprintf(stdout, "try: client.DialWith(ctx, []string{%q}, client.WithTLSFiles(%q, %q, %q), client.WithToken(%q)) — Ctrl-C stops the cluster\n", cl.addrs[0], files.CA, files.ClientCert, files.ClientKey, token)
	} else {
		fmt.Fprintf(stdout, "try: go run ./examples/quickstart %s — Ctrl-C stops the cluster\n", strings.Join(cl.addrs, ","))
	}
	select {
	case <-ctx.Done():
	case err := <-cl.exited:
		return fmt.Errorf("a node stopped: %v", err)
	}
	return nil
}

// localCluster is a cluster of allot serve processes on loopback.
type localCluster struct {
	addrs, metrics []string
	cmds           []*exec.Cmd
	exited         chan error
}

// freePorts returns n loopback addresses that were free a moment ago.
func freePorts(n int) ([]string, error) {
	var out []string
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, l)
		out = append(out, l.Addr().String())
	}
	return out, nil
}

// coLocated is the environment of one of n nodes sharing this machine:
// unless GOMAXPROCS is set, each node runs on its share of the CPUs. Go's
// scheduler spins idle threads looking for work; n processes each
// spinning on every CPU take turns from one another (on 2 CPUs, 3 nodes
// with GOMAXPROCS=1 run the bench's W2 and W3 20-35 % faster, at a quarter
// less CPU an operation).
func coLocated(env []string, n int) []string {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "GOMAXPROCS="); ok && v != "" {
			return env
		}
	}
	return append(env, fmt.Sprintf("GOMAXPROCS=%d", max(1, runtime.NumCPU()/n)))
}

// startCluster starts n allot serve processes; serveArgs are added to
// each one's flags.
func startCluster(ctx context.Context, n int, events, data string, metrics bool, quotas, serveArgs []string, stderr io.Writer) (*localCluster, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	addrs, err := freePorts(n)
	if err != nil {
		return nil, err
	}
	cl := &localCluster{addrs: addrs, exited: make(chan error, n)}
	if metrics {
		if cl.metrics, err = freePorts(n); err != nil {
			return nil, err
		}
	}
	ready := make(chan error, n)
	for i := range n {
		args := []string{"serve", "--nodes", strings.Join(addrs, ","), "--node", fmt.Sprint(i), "--log-level", "warn",
			"--data-dir", filepath.Join(data, fmt.Sprintf("node-%d", i))}
		if events != "" {
			args = append(args, "--events", fmt.Sprintf("%s/node-%d.jsonl", events, i))
		}
		if metrics {
			args = append(args, "--metrics", cl.metrics[i])
		}
		for _, q := range quotas {
			args = append(args, "--quota", q)
		}
		args = append(args, serveArgs...)
		cmd := exec.Command(exe, args...)
		cmd.Env = coLocated(os.Environ(), n)
		cmd.Stderr = stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			cl.stop()
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			cl.stop()
			return nil, err
		}
		cl.cmds = append(cl.cmds, cmd)
		go func() {
			sc := bufio.NewScanner(out)
			ok := false
			for sc.Scan() {
				if !ok && strings.Contains(sc.Text(), "ready") {
					ok = true
					ready <- nil
				}
			}
			if !ok {
				ready <- fmt.Errorf("node %d exited before it was ready", i)
			}
			cl.exited <- cmd.Wait()
		}()
	}
	timeout := time.After(20 * time.Second)
	for range n {
		select {
		case err := <-ready:
			if err != nil {
				cl.stop()
				return nil, err
			}
		case <-timeout:
			cl.stop()
			return nil, errors.New("the nodes were not ready within 20s")
		case <-ctx.Done():
			cl.stop()
			return nil, ctx.Err()
		}
	}
	return cl, nil
}

// stop asks every node to shut down (SIGTERM: they drain) and waits for
// them; a node still running after 10s is killed.
func (cl *localCluster) stop() {
	for _, c := range cl.cmds {
		if c.Process != nil {
			c.Process.Signal(syscall.SIGTERM)
		}
	}
	deadline := time.After(10 * time.Second)
	for range cl.cmds {
		select {
		case <-cl.exited:
		case <-deadline:
			for _, c := range cl.cmds {
				c.Process.Kill()
			}
			return
		}
	}
}
