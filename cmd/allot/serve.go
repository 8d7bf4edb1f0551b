package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/mtls"
	"github.com/allot-dev/allot/service"
	"github.com/allot-dev/allot/service/store"
)

// serveOpts are the flags of allot serve.
type serveOpts struct {
	clusterFile, nodes, peerAddrs          string
	join, listen                           string
	self                                   int
	lock, semaphore                        string
	slots, resources                       int
	maxSessions, maxSemaphores             int
	refreshIdle                            int
	refreshEvery                           time.Duration
	maxLocks                               int
	resourcesGiven                         bool // --resources or the file's resources: (deprecated)
	snapshotEvery                          int
	metrics, events, logLevel, dataDir     string
	logFormat                              string
	lockDelay, peerTimeout, drain, suspect time.Duration
	quotas                                 []string
	tls                                    tlsOpts
	profile                                profileOpts
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
	fs.StringVar(&o.clusterFile, "cluster", "", "the cluster as a YAML file: "+clusterFields+" (deploy/cluster.yaml documents each)")
	fs.StringVar(&o.nodes, "nodes", "", "the cluster's node addresses host:port, comma-separated (instead of --cluster)")
	fs.StringVar(&o.peerAddrs, "peer-addrs", "", "dial the nodes at these addresses instead, in node order, comma-separated (a proxy in between, for tests)")
	fs.IntVar(&o.self, "node", 0, "this node's id: its index in the node list (it listens on that address), or the id allot member add gave it")
	fs.StringVar(&o.join, "join", "", "join the running cluster of this node (host:port) as the member --node that allot member add made: the cluster and its members come from it, and the data dir keeps them")
	fs.StringVar(&o.listen, "listen", "", "the address to listen on: the member's address (default: the node list's, or the membership's)")
	fs.StringVar(&o.lock, "lock", "", "the algorithm serving Lock (default "+service.DefaultLock+")")
	fs.StringVar(&o.semaphore, "semaphore", "", "the algorithm serving semaphores (default "+service.DefaultSemaphore+")")
	fs.IntVar(&o.slots, "slots", 0, fmt.Sprintf("requests a node serves at once per quota, and per semaphore of fewer units than slots (default %d; locks and larger semaphores have no slots: see --max-locks, --max-sessions)", service.DefaultSlots))
	fs.IntVar(&o.resources, "resources", 0, "deprecated and ignored: a lock's resources are its names, exactly (accepted so that scripts that pass it keep working)")
	fs.StringVar(&o.metrics, "metrics", "", "serve Prometheus /metrics, the node's /status (read by allot ui --cluster) Go profiles under /debug/pprof/ and POST /debug/free-os-memory (every freed page back to the kernel) on this address (default: none)")
	fs.StringVar(&o.events, "events", "", "write the node event log (JSONL) to FILE")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&o.logFormat, "log-format", "text", "log format: text (key=value) or json (one object a line)")
	fs.IntVar(&o.maxSessions, "max-sessions", service.DefaultMaxSessions, "the most sessions open at this node at once; one more is refused (RESOURCE_EXHAUSTED) and the client opens it on another node; also the most requests of one semaphore of slots units or more it serves at once")
	fs.IntVar(&o.maxLocks, "max-locks", service.DefaultMaxLocks, fmt.Sprintf("the most lock requests open at this node at once, waiting or held (at most %d); one more is refused (RESOURCE_EXHAUSTED)", service.MaxMaxLocks))
	fs.IntVar(&o.maxSemaphores, "max-semaphores", service.DefaultMaxSemaphores, fmt.Sprintf("the most semaphores in use on this node, idle ones included until a refresh collects them (at most %d); an Acquire of another name beyond it is refused (RESOURCE_EXHAUSTED) and the node asks for a refresh", service.MostSemaphores))
	fs.IntVar(&o.refreshIdle, "refresh-idle", service.DefaultRefreshIdle, "ask for a refresh (a view of the same members, which collects every idle instance: a short pause of new requests) once this node has this many idle instances and twice as many as in use (-1: never; idle instances then live as long as their view)")
	fs.DurationVar(&o.refreshEvery, "refresh-every", service.DefaultRefreshEvery, "refresh a view at most once per this long: a view serves this long before a node asks to refresh it")
	fs.IntVar(&o.snapshotEvery, "snapshot-every", control.DefaultSnapshotEvery, "snapshot the control plane's state every N log entries applied, and drop the entries before it from the data dir (-1: never)")
	fs.DurationVar(&o.lockDelay, "lock-delay", 0, "hold an expired session's resources this long before releasing them")
	fs.DurationVar(&o.suspect, "suspect", service.DefaultSuspect, "the control plane's lease: a node cut off from the majority stops serving within it, a silent node is left out of the view after it, elections start after a third to two thirds of it")
	fs.StringVar(&o.dataDir, "data-dir", "", "keep the node's control log and quota counts in DIR (default allot-data/node-I under the working directory); restarted on its data, a node rejoins as itself, and needs no --nodes: the membership is its log's")
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
	o.profile.flags(fs)
	return fs
}

// parseFlags parses args with fs, printing help on stdout for -h.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer, use string) error {
	if err := parseFlagsOnly(fs, args, stdout, use); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// parseFlagsOnly is parseFlags for a command that takes arguments too:
// fs.Args() are left to it.
func parseFlagsOnly(fs *flag.FlagSet, args []string, stdout io.Writer, use string) error {
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
		return c, badf("no cluster: give --nodes or --cluster, --join, or the --data-dir of a node that ran")
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
	//lint:ignore SA1019 the deprecated field is read to say it is ignored
	o.resourcesGiven = o.resources != 0 || c.Resources != 0
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

// parseServe parses allot serve's flags and checks what can be checked
// without the files they name or the network: what serveCmd does before
// it reads anything. set holds the flags given. The deployments' test
// runs it on every allot serve command line under deploy/.
func parseServe(args []string, stdout io.Writer) (o *serveOpts, set map[string]bool, err error) {
	o = &serveOpts{}
	fs := serveFlags(o)
	if err := parseFlags(fs, args, stdout, "usage: allot serve --nodes A,B,C --node I [flags]\n       allot serve --join A --node I --listen ADDR [flags]\n       allot serve --data-dir DIR [flags]\n\nruns node I of a cluster: the Allot API for clients and the links to the other nodes, on the node's address"); err != nil {
		return nil, nil, err
	}
	set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.dataDir == "" && set["node"] {
		o.dataDir = filepath.Join("allot-data", fmt.Sprintf("node-%d", o.self))
	}
	if o.maxSessions < 1 || o.maxSemaphores < 1 {
		return nil, nil, badf("--max-sessions and --max-semaphores must be at least 1, got %d and %d", o.maxSessions, o.maxSemaphores)
	}
	if o.maxLocks < 1 || o.maxLocks > service.MaxMaxLocks {
		return nil, nil, badf("--max-locks must be 1 to %d, got %d", service.MaxMaxLocks, o.maxLocks)
	}
	if o.maxSemaphores > service.MostSemaphores {
		return nil, nil, badf("--max-semaphores is at most %d, got %d", service.MostSemaphores, o.maxSemaphores)
	}
	if o.refreshIdle == 0 || o.refreshIdle < -1 || o.refreshEvery <= 0 {
		return nil, nil, badf("--refresh-idle must be at least 1 (or -1: never) and --refresh-every positive, got %d and %v", o.refreshIdle, o.refreshEvery)
	}
	if o.snapshotEvery < 1 && o.snapshotEvery != -1 {
		return nil, nil, badf("--snapshot-every must be at least 1, or -1 (never), got %d", o.snapshotEvery)
	}
	if o.suspect <= 0 {
		return nil, nil, badf("--suspect must be positive, got %v", o.suspect)
	}
	if _, err := newLogger(io.Discard, o.logFormat, o.logLevel); err != nil {
		return nil, nil, err
	}
	return o, set, nil
}

func serveCmd(args []string, stdout, stderr io.Writer) error {
	o, set, err := parseServe(args, stdout)
	if err != nil {
		return err
	}
	log, err := newLogger(stderr, o.logFormat, o.logLevel)
	if err != nil {
		return err
	}
	srvOpts, dialOpts, id, err := o.tls.options(log)
	if err != nil {
		return err
	}
	var (
		c       service.Cluster
		fromLog bool
		peers   map[int]string
		addr    string
	)
	if o.join != "" || o.nodes == "" && o.clusterFile == "" && o.dataDir != "" {
		fromLog = true
		if c, addr, peers, err = o.joined(set, dialOpts); err != nil {
			return err
		}
	} else {
		if c, err = o.cluster(); err != nil {
			return err
		}
		if o.resourcesGiven {
			fmt.Fprintln(stderr, "allot: note: --resources and the cluster file's resources: are deprecated and ignored: a lock's resources are its names")
		}
		addr = c.Nodes[o.self]
		if o.listen != "" && o.listen != addr {
			return badf("--listen %s: node %d of the node list is at %s", o.listen, o.self, addr)
		}
	}
	if err := o.profile.check(o.metrics != ""); err != nil {
		return err
	}
	// The port is tried first, so that a port in use is said before the
	// data directory is touched, and taken for good only once the node is
	// built: while New checks that this node's data is not lost, it asks
	// the other nodes, and a new cluster's nodes are all in that check
	// at once; a port that refuses them answers at once, where one that
	// listened and did not serve yet kept each of them waiting out the
	// check's whole timeout.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return badf("%v", err)
	}
	ln.Close()
	var mln net.Listener
	if o.metrics != "" {
		if mln, err = net.Listen("tcp", o.metrics); err != nil {
			return badf("--metrics: %v", err)
		}
		defer mln.Close()
	}
	if o.dataDir == "" {
		o.dataDir = filepath.Join("allot-data", fmt.Sprintf("node-%d", o.self))
	}
	cfg := service.Config{Cluster: c, Self: o.self, FromLog: fromLog, Peers: peers, MaxSessions: o.maxSessions, MaxSemaphores: o.maxSemaphores, RefreshIdle: o.refreshIdle, RefreshEvery: o.refreshEvery, MaxLocks: o.maxLocks, LockDelay: o.lockDelay, Suspect: o.suspect, SnapshotEvery: o.snapshotEvery, DataDir: o.dataDir, Log: log, ServerOptions: srvOpts, DialOptions: dialOpts, Identity: id}
	if mln != nil {
		cfg.StatusAddr = mln.Addr().String() // the port chosen, for --metrics HOST:0
	}
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
	if ln, err = net.Listen("tcp", addr); err != nil {
		n.Shutdown(context.Background())
		return badf("%v", err)
	}
	defer ln.Close()
	if a := n.Addr(); a != "" && a != addr {
		n.Shutdown(context.Background())
		return badf("node %d is a member at %s, not %s: a node under a new address is a remove and an add (allot member)", o.self, a, addr)
	}
	srv, err := n.NewServer()
	if err != nil {
		return badf("%v", err)
	}
	go n.Serve(srv, ln)
	if mln != nil {
		mux := http.NewServeMux()
		mux.Handle("/metrics", n.Metrics())
		mux.Handle("GET /status", n.StatusHandler()) // read by allot ui --cluster
		// Profiles of a running node, beside its metrics (opt-in with
		// --metrics, like the metrics themselves).
		profileHandlers(mux)
		o.profile.start()
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
	log.Info("serving", "node", o.self, "addr", addr, "lock", c.Lock, "semaphore", c.Semaphore, "quota", c.Quota)
	fmt.Fprintf(stdout, "node %d ready at %s\n", o.self, addr)
	select {
	case <-ctx.Done():
	case <-n.Lost():
		// Its log lost what it acknowledged: it must not vote, and
		// stops at once (nothing to give back: it serves nothing).
		dctx, cancel := context.WithCancel(context.Background())
		cancel()
		n.Shutdown(dctx)
		srv.Stop()
		return badf("%v", n.LostErr())
	case <-n.Removed():
		// Removed from the cluster: nothing more to serve. The call
		// that removed it may be this node's own answer: let it go out.
		log.Warn("removed from the cluster: stopping")
		fmt.Fprintf(stdout, "node %d was removed from the cluster\n", o.self)
		n.Shutdown(context.Background())
		stopped := make(chan struct{})
		go func() { srv.GracefulStop(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(2 * time.Second):
			srv.Stop()
		}
		return nil
	}
	log.Info("shutting down", "drain", o.drain)
	dctx, cancel := context.WithTimeout(context.Background(), o.drain)
	defer cancel()
	n.Shutdown(dctx)
	srv.Stop()
	return nil
}

// joined is the cluster of a node whose membership is its log's: one
// restarted on its data dir (the store keeps the cluster), or one that
// joins (the cluster at --join tells it the cluster and the members). It
// returns the address to listen on, and for a join the members to link
// to until the log has this node.
func (o *serveOpts) joined(set map[string]bool, dial []grpc.DialOption) (service.Cluster, string, map[int]string, error) {
	for _, f := range []string{"nodes", "cluster", "peer-addrs", "lock", "semaphore", "slots", "resources", "quota"} {
		if set[f] {
			return service.Cluster{}, "", nil, badf("--%s: the cluster is the one the node joined (its data dir keeps it), not the flags'", f)
		}
	}
	c, id, err := service.FromDataDir(o.dataDir)
	switch {
	case err == nil:
		if set["node"] && id != o.self {
			return c, "", nil, badf("--node %d: the data dir %s is node %d's", o.self, o.dataDir, id)
		}
		o.self = id
		addr := o.listen
		if addr == "" && id < len(c.Nodes) {
			addr = c.Nodes[id]
		}
		if addr == "" {
			return c, "", nil, badf("--listen: node %d joined the cluster; give the address it was added at", id)
		}
		return c, addr, nil, nil
	case !errors.Is(err, store.ErrNoStore):
		return c, "", nil, badf("%v", err)
	case o.join == "":
		return c, "", nil, badf("no cluster: give --nodes or --cluster, --join, or the --data-dir of a node that ran (%s has no store)", o.dataDir)
	case !set["node"]:
		return c, "", nil, badf("--join: give --node, the id allot member add printed")
	}
	if dial == nil {
		dial = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	conn, err := grpc.NewClient(o.join, dial...)
	if err != nil {
		return c, "", nil, badf("--join %s: %v", o.join, err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), o.peerTimeout)
	defer cancel()
	r, err := pb.NewAdminClient(conn).ListMembers(ctx, &pb.ListMembersRequest{})
	if err != nil {
		return c, "", nil, rpcErr("--join", o.join, err)
	}
	peers := map[int]string{}
	for _, m := range r.Members {
		peers[int(m.Id)] = m.Address
	}
	addr, ok := peers[o.self]
	switch {
	case !ok:
		return c, "", nil, badf("--join: node %d is not a member of the cluster at %s: add it first (allot member add --addr %s ADDR)", o.self, o.join, o.join)
	case o.listen != "" && o.listen != addr:
		return c, "", nil, badf("--listen %s: node %d was added at %s", o.listen, o.self, addr)
	}
	return service.ClusterOf(r.Cluster), addr, peers, nil
}

// clusterCmd starts nodes of one cluster on loopback, each as its own
// allot serve process, keeps them running (a node that dies is restarted
// on its data dir) and stops them on SIGINT or SIGTERM.
func clusterCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("allot cluster", flag.ContinueOnError)
	nodes := fs.Int("nodes", 3, "number of nodes")
	dir := fs.String("events", "", "write each node's event log to DIR/node-I.jsonl (DIR/node-I.K.jsonl after its K-th restart)")
	metrics := fs.Bool("metrics", false, "serve each node's /metrics on a loopback port of its own")
	secure := fs.Bool("tls", false, "mTLS and a client token: a throwaway CA and certificates in a temporary directory, removed when the cluster stops")
	var prof profileOpts
	prof.flags(fs)
	data := fs.String("data-dir", "", "node I keeps its data in DIR/node-I, across its restarts (default: a temporary directory, removed when the cluster stops)")
	suspect := fs.Duration("suspect", 0, "the nodes' --suspect (default: allot serve's)")
	logFormat := fs.String("log-format", "text", "the nodes' --log-format: text or json")
	restart := fs.Duration("restart-delay", service.DefaultSuspect+time.Second, "restart a node that died after this long (past the default --suspect: the others have moved on without it first)")
	var quotas []string
	fs.Func("quota", "a quota the cluster serves, NAME=BUDGET[:WASTE] (repeatable)", func(v string) error {
		if _, _, err := parseQuota(v); err != nil {
			return err
		}
		quotas = append(quotas, v)
		return nil
	})
	if err := parseFlags(fs, args, stdout, "usage: allot cluster [--nodes N] [--tls] [--quota NAME=BUDGET[:WASTE]]...\n\nstarts an N-node cluster on 127.0.0.1 as N allot serve processes, prints the addresses, restarts a node that dies, and runs until interrupted"); err != nil {
		return err
	}
	if *nodes < 1 || *nodes > 64 {
		return badf("--nodes %d: want 1 to 64", *nodes)
	}
	if err := prof.check(*metrics); err != nil {
		return err
	}
	if *suspect < 0 || *restart < 0 {
		return badf("--suspect and --restart-delay must not be negative")
	}
	if _, err := newLogger(io.Discard, *logFormat, "info"); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	serveArgs := append(prof.args(), "--log-format", *logFormat)
	var tlsDir, token string
	var files mtls.Files
	if *secure {
		var err error
		var secureArgs []string
		if secureArgs, tlsDir, token, files, err = secureCluster(); err != nil {
			return err
		}
		serveArgs = append(serveArgs, secureArgs...)
		defer os.RemoveAll(tlsDir)
	}
	if *suspect > 0 {
		serveArgs = append(serveArgs, "--suspect", suspect.String())
	}
	dataDir := *data
	if dataDir == "" {
		tmp, err := os.MkdirTemp("", "allot-cluster-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dataDir = tmp
	}
	cl, err := startCluster(ctx, clusterSpec{n: *nodes, events: *dir, metrics: *metrics, quotas: quotas, serveArgs: serveArgs, dataDir: dataDir, restartDelay: *restart}, stderr)
	if err != nil {
		return err
	}
	defer cl.stop()
	fmt.Fprintf(stdout, "cluster of %d nodes: %s\n", *nodes, strings.Join(cl.addrs, ","))
	for i, nd := range cl.nodes {
		fmt.Fprintf(stdout, "node %d: %s, pid %d", i, cl.addrs[i], nd.pid())
		if dataDir != "" {
			fmt.Fprintf(stdout, ", data %s", nd.dataDir)
		}
		fmt.Fprintln(stdout)
	}
	for i, m := range cl.metrics {
		fmt.Fprintf(stdout, "node %d metrics: http://%s/metrics\n", i, m)
	}
	if len(cl.metrics) > 0 {
		fmt.Fprintf(stdout, "see it live: allot ui --cluster %s\n", strings.Join(cl.metrics, ","))
	}
	if *secure {
		fmt.Fprintf(stdout, "mTLS certificates: %s (removed when the cluster stops)\nclient token: %s\n", tlsDir, token)
		fmt.Fprintf(stdout, "try: go run ./examples/quickstart %s %s — Ctrl-C stops the cluster\n", secureClientFlags(files, tlsDir), strings.Join(cl.addrs, ","))
		fmt.Fprintf(stdout, "     (the same flags with --addr for allot lock and allot bench; in Go: client.DialWith(ctx, []string{%q}, client.WithTLSFiles(%q, %q, %q), client.WithToken(%q)))\n", cl.addrs[0], files.CA, files.ClientCert, files.ClientKey, token)
	} else {
		fmt.Fprintf(stdout, "try: go run ./examples/quickstart %s — Ctrl-C stops the cluster\n", strings.Join(cl.addrs, ","))
	}
	<-ctx.Done()
	return nil
}

// secureClientFlags are the flags a client of a cluster --tls gives.
func secureClientFlags(files mtls.Files, dir string) string {
	return fmt.Sprintf("--tls-ca %s --tls-cert %s --tls-key %s --token-file %s", files.CA, files.ClientCert, files.ClientKey, filepath.Join(dir, clientTokenFile))
}

// clusterSpec is what startCluster starts.
type clusterSpec struct {
	n               int
	events, dataDir string // "": no event logs; no data dirs
	metrics         bool
	quotas          []string
	lock            string   // the cluster's --lock ("": serve's default)
	serveArgs       []string // added to each node's flags
	restartDelay    time.Duration
}

// localCluster is a cluster of allot serve processes on loopback, each
// watched: one that dies while the cluster runs is reported on stderr and
// started again on its data dir after restartDelay.
type localCluster struct {
	exe            string
	addrs, metrics []string
	nodes          []*clusterNode
	restartDelay   time.Duration
	stderr         io.Writer
	n              int
	stopping       chan struct{}
	watchers       sync.WaitGroup
}

// clusterNode is one node's process, replaced when it restarts.
type clusterNode struct {
	i               int
	args            []string // without --events
	again           []string // the same for a restart: on the data dir alone, the membership its log's
	events, dataDir string
	mu              sync.Mutex
	cmd             *exec.Cmd
	exited          chan struct{} // closed when cmd has exited, with Wait's error in waitErr
	waitErr         error
	starts          int
}

// nextArgs are the flags of nd's next start: its event log is a new
// file each time.
func (nd *clusterNode) nextArgs() []string {
	args := nd.args
	if nd.starts > 0 && nd.again != nil {
		// Members may have been added or removed since (allot
		// member): the first node list would be stale.
		args = nd.again
	}
	if nd.events == "" {
		return args
	}
	name := nd.events + ".jsonl"
	if nd.starts > 0 {
		name = fmt.Sprintf("%s.%d.jsonl", nd.events, nd.starts)
	}
	return append(slices.Clone(args), "--events", name)
}

func (nd *clusterNode) pid() int {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	return nd.cmd.Process.Pid
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

// startCluster starts sp.n allot serve processes, waits until they are
// ready and watches them.
func startCluster(ctx context.Context, sp clusterSpec, stderr io.Writer) (*localCluster, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	addrs, err := freePorts(sp.n)
	if err != nil {
		return nil, err
	}
	cl := &localCluster{exe: exe, addrs: addrs, restartDelay: sp.restartDelay, stderr: stderr, n: sp.n, stopping: make(chan struct{})}
	if sp.metrics {
		if cl.metrics, err = freePorts(sp.n); err != nil {
			return nil, err
		}
	}
	for i := range sp.n {
		nd := &clusterNode{i: i}
		own := []string{"--log-level", "warn"} // the flags a restart keeps
		if sp.events != "" {
			nd.events = filepath.Join(sp.events, fmt.Sprintf("node-%d", i))
		}
		if sp.dataDir != "" {
			nd.dataDir = filepath.Join(sp.dataDir, fmt.Sprintf("node-%d", i))
			own = append(own, "--data-dir", nd.dataDir)
		}
		if sp.metrics {
			own = append(own, "--metrics", cl.metrics[i])
		}
		own = append(own, sp.serveArgs...)
		nd.args = append([]string{"serve", "--nodes", strings.Join(addrs, ","), "--node", fmt.Sprint(i)}, own...)
		for _, q := range sp.quotas {
			nd.args = append(nd.args, "--quota", q)
		}
		if sp.lock != "" { // a restart keeps the data dir's cluster, lock included
			nd.args = append(nd.args, "--lock", sp.lock)
		}
		if sp.dataDir != "" {
			nd.again = append([]string{"serve"}, own...)
		}
		cl.nodes = append(cl.nodes, nd)
	}
	ready := make(chan error, sp.n)
	for _, nd := range cl.nodes {
		go func() { ready <- cl.start(ctx, nd) }()
	}
	var failed error
	for range sp.n {
		failed = errors.Join(failed, <-ready)
	}
	if failed != nil {
		cl.stop()
		return nil, failed
	}
	for _, nd := range cl.nodes {
		cl.watchers.Go(func() { cl.watch(nd) })
	}
	return cl, nil
}

// start starts nd's process (again) and waits until it says it is ready,
// for at most 20s.
func (cl *localCluster) start(ctx context.Context, nd *clusterNode) error {
	args := nd.nextArgs()
	nd.starts++
	cmd := exec.Command(cl.exe, args...)
	cmd.Env = coLocated(os.Environ(), cl.n)
	cmd.Stderr = cl.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	nd.mu.Lock()
	nd.cmd, nd.exited = cmd, exited
	nd.mu.Unlock()
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if !ok && strings.Contains(sc.Text(), "ready") {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
		err := cmd.Wait()
		nd.mu.Lock()
		nd.waitErr = err
		nd.mu.Unlock()
		close(exited)
	}()
	select {
	case ok := <-ready:
		if !ok {
			return fmt.Errorf("node %d exited before it was ready", nd.i)
		}
		return nil
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		return fmt.Errorf("node %d was not ready within 20s", nd.i)
	case <-ctx.Done():
		cmd.Process.Kill()
		return ctx.Err()
	}
}

// watch restarts nd whenever its process dies while the cluster runs,
// saying so on stderr; if it cannot, it prints the command that would.
func (cl *localCluster) watch(nd *clusterNode) {
	for {
		nd.mu.Lock()
		pid, exited := nd.cmd.Process.Pid, nd.exited
		nd.mu.Unlock()
		select {
		case <-exited:
		case <-cl.stopping:
			return
		}
		select {
		case <-cl.stopping:
			return
		default:
		}
		nd.mu.Lock()
		err := nd.waitErr
		nd.mu.Unlock()
		if err == nil {
			// Exit status 0: the node stopped on purpose (removed from
			// the cluster with allot member remove, or stopped by
			// SIGTERM): not a crash to undo.
			fmt.Fprintf(cl.stderr, "allot cluster: node %d (pid %d) exited on its own (removed from the cluster, or stopped); not restarted\n", nd.i, pid)
			return
		}
		fmt.Fprintf(cl.stderr, "allot cluster: node %d (pid %d) died (%v); the others go on serving; restarting it in %v\n", nd.i, pid, err, cl.restartDelay)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-cl.stopping:
				cancel()
			case <-ctx.Done():
			}
		}()
		t := time.NewTimer(cl.restartDelay)
		select {
		case <-t.C:
			err = cl.start(ctx, nd)
		case <-ctx.Done():
			err = ctx.Err()
		}
		cancel()
		select {
		case <-cl.stopping:
			return
		default:
		}
		if err != nil {
			fmt.Fprintf(cl.stderr, "allot cluster: node %d did not come back: %v; start it again with:\n  %s\n", nd.i, err, shellQuote(append([]string{cl.exe}, nd.nextArgs()...)))
			return
		}
		where := ""
		if nd.dataDir != "" {
			where = " on " + nd.dataDir
		}
		fmt.Fprintf(cl.stderr, "allot cluster: node %d restarted%s (pid %d)\n", nd.i, where, nd.pid())
	}
}

// shellQuote joins args as a shell command line.
func shellQuote(args []string) string {
	var out []string
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}

// stop asks every node to shut down (SIGTERM: they drain) and waits for
// them; a node still running after 10s is killed.
func (cl *localCluster) stop() {
	close(cl.stopping)
	cl.watchers.Wait()
	var wg sync.WaitGroup
	for _, nd := range cl.nodes {
		nd.mu.Lock()
		cmd, exited := nd.cmd, nd.exited
		nd.mu.Unlock()
		if cmd == nil {
			continue
		}
		wg.Go(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
		})
	}
	wg.Wait()
}
