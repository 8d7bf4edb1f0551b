package main

import (
	"context"
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
	"syscall"
	"time"

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/ui"
)

// uiUsage is allot ui -h.
func uiUsage() string {
	return fmt.Sprintf(`usage:
  allot ui TRACE [--addr A] [--window FROM:TO]   a trace (allot sim --trace, allot explore --trace)
  allot ui [sim flags] [scenario.yaml]            run allot sim here (one algorithm) and show its run
  allot ui --cluster ADDRS                        a live cluster: its nodes' --metrics addresses

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
