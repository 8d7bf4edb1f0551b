package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/ui"
)

// uiUsage is allot ui -h.
func uiUsage() string {
	return fmt.Sprintf(`usage:
  allot ui TRACE [--addr A] [--window FROM:TO]   a trace (allot sim --trace, allot explore --trace)
  allot ui [sim flags] [scenario.yaml]            run allot sim here (one algorithm) and show its run
  allot ui --cluster ADDRS                        a live cluster: its nodes' addresses (allot serve
                                                  --listen; each tells where it serves its /status,
                                                  its --metrics address) or their --metrics addresses

Serves the page on 127.0.0.1 at a free port, printed (--addr HOST:PORT chooses);
opens nothing by itself. --window FROM:TO loads only the events of those ticks
(a trace of more than %d events opens only so).
`, ui.MaxEvents)
}

// uiFlags are ui's own flags; every other flag goes to allot sim.
type uiFlags struct {
	addr, window, cluster string
}

// splitUIArgs takes ui's own flags out of args and leaves the rest.
func splitUIArgs(args []string) (uiFlags, []string, error) {
	f := uiFlags{addr: "127.0.0.1:0"}
	own := map[string]*string{"addr": &f.addr, "window": &f.window, "cluster": &f.cluster}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		p, ok := own[name]
		if !strings.HasPrefix(a, "-") || !ok {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return f, nil, fmt.Errorf("flag needs an argument: -%s", name)
			}
			i++
			val = args[i]
		}
		*p = val
	}
	return f, rest, nil
}

// uiServer builds what allot ui serves from its arguments. A trace the
// page cannot show is said on stderr and served as a page that says it
// too (bad is then set); a bad command line is an error.
func uiServer(args []string, stderr io.Writer) (s *ui.Server, addr string, bad error, err error) {
	f, rest, err := splitUIArgs(args)
	if err != nil {
		return nil, "", nil, badf("ui: %v", err)
	}
	if f.cluster != "" {
		if len(rest) > 0 {
			return nil, "", nil, badf("ui --cluster takes no trace or sim flags, got %q", rest)
		}
		addrs, err := ui.ParseAddrs(f.cluster)
		if err != nil {
			return nil, "", nil, badf("--cluster: %v", err)
		}
		if addrs, err = statusAddrs(context.Background(), addrs, stderr); err != nil {
			return nil, "", nil, err
		}
		c := &ui.Cluster{Addrs: addrs, Changed: func(addr string, err error) {
			if err != nil {
				fmt.Fprintf(stderr, "allot: cluster node %s: %v\n", addr, err)
			} else {
				fmt.Fprintf(stderr, "allot: cluster node %s: reachable again\n", addr)
			}
		}}
		return ui.NewClusterServer(c), f.addr, nil, nil
	}
	var o ui.Options
	if f.window != "" {
		a, b, ok := strings.Cut(f.window, ":")
		from, err1 := strconv.ParseInt(a, 10, 64)
		to, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil || from < 0 || to < from {
			return nil, "", nil, badf("--window %q: want FROM:TO, ticks, FROM <= TO", f.window)
		}
		o.From, o.To = proc.Time(from), proc.Time(to)
	}
	path := ""
	switch {
	case len(rest) == 1 && !strings.HasPrefix(rest[0], "-") && !isScenario(rest[0]):
		path = rest[0]
	case len(rest) == 0:
		fmt.Fprint(stderr, uiUsage())
		return nil, "", nil, badf("ui needs a trace, sim flags or --cluster")
	default:
		dir, err := os.MkdirTemp("", "allot-ui-")
		if err != nil {
			return nil, "", nil, err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "run.jsonl")
		simArgs := append(append([]string{}, rest...), "--trace-messages", "--trace", path)
		if err := simCmd(simArgs, io.Discard, stderr); err != nil && !errors.Is(err, errFailed) {
			return nil, "", nil, err
		}
		if _, err := os.Stat(path); err != nil {
			return nil, "", nil, badf("ui shows one run: name one algorithm with --algo")
		}
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, "", nil, badf("%v", err)
	}
	defer file.Close()
	run, err := ui.Load(file, filepath.Base(path), o)
	if err != nil {
		bad = fmt.Errorf("%s: %w", path, err)
		fmt.Fprintf(stderr, "allot: %v\n", bad)
		return ui.NewErrorServer(bad), f.addr, bad, nil
	}
	s, err = ui.NewRunServer(run)
	return s, f.addr, nil, err
}

func isScenario(name string) bool {
	ext := filepath.Ext(name)
	return ext == ".yaml" || ext == ".yml"
}

func uiCmd(args []string, stdout, stderr io.Writer) error {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fmt.Fprint(stdout, uiUsage())
			return errHelp
		}
	}
	s, addr, bad, err := uiServer(args, stderr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return badf("--addr: %v", err)
	}
	fmt.Fprintf(stdout, "allot ui: http://%s/ (Ctrl-C stops)\n", ln.Addr())
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	if bad != nil {
		return usageError{bad} // said on stderr already; exit 2
	}
	return nil
}

// statusAddrs finds where each of addrs serves its /status. An address
// may be that already (a node's --metrics address), or a node's own
// address (allot serve --listen), which tells its status address when
// asked (Admin.ListMembers; in plaintext: a TLS cluster's nodes ask for a
// node certificate, so give their --metrics addresses there). What each
// turned out to be is said on stderr; one that answers neither way is
// kept as given, and the page shows it unreachable until it answers.
func statusAddrs(ctx context.Context, addrs []string, stderr io.Writer) ([]string, error) {
	out := make([]string, len(addrs))
	said := make([]string, len(addrs))
	errs := make([]error, len(addrs))
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	hc := &http.Client{Timeout: time.Second}
	var wg sync.WaitGroup
	for i, a := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = a
			if isStatus(ctx, hc, a) {
				return
			}
			conn, err := grpc.NewClient(a, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				said[i] = fmt.Sprintf("allot: ui: %s: %v; polled as a status address\n", a, err)
				return
			}
			defer conn.Close()
			r, err := pb.NewAdminClient(conn).ListMembers(ctx, &pb.ListMembersRequest{})
			switch {
			case err != nil:
				said[i] = fmt.Sprintf("allot: ui: %s: neither a node's status address (allot serve --metrics) nor a node that answers in plaintext "+
					"(a TLS cluster's: give its --metrics address); polled as a status address until it answers\n", a)
			case r.StatusAddress == "":
				errs[i] = badf("--cluster: node %s serves no /status: start it with --metrics ADDR", a)
			default:
				out[i] = statusOf(a, r.StatusAddress)
				said[i] = fmt.Sprintf("allot: ui: node %s: its status at %s\n", a, out[i])
			}
		}()
	}
	wg.Wait()
	for _, s := range said {
		fmt.Fprint(stderr, s)
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// isStatus reports whether addr serves a node's /status (JSON) over HTTP.
func isStatus(ctx context.Context, hc *http.Client, addr string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/status", nil)
	if err != nil {
		return false
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	return err == nil && resp.StatusCode == http.StatusOK && json.Valid(b)
}

// statusOf is the status address a node at nodeAddr gave: a host of
// 0.0.0.0, :: or none (--metrics :9090) is any of the node's, so the
// node's own host stands for it.
func statusOf(nodeAddr, status string) string {
	host, port, err := net.SplitHostPort(status)
	if err != nil {
		return status
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		if nh, _, err := net.SplitHostPort(nodeAddr); err == nil {
			return net.JoinHostPort(nh, port)
		}
	}
	return status
}
