package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/allot-dev/allot/client"
)

const lockUsage = `usage: allot lock --addr A,B,C [flags] NAME... -- CMD [ARGS...]

Takes the lock on every NAME at once, in a session of its own, runs CMD
while it holds them, and gives them back when CMD exits. CMD's environment
has the fencing tokens (EPOCH.COUNTER; a later holder's is larger: compare
the epochs, then the counters):

  ALLOT_TOKEN    the token of the first NAME
  ALLOT_TOKENS   NAME=TOKEN for each NAME, one a line, in the order given

SIGINT and SIGTERM are passed on to CMD. When the session is lost (its node
and the node that backs it unreachable past the lease), CMD gets SIGTERM,
and SIGKILL after --grace: the lock may be another's by then, as only its
token can tell the resource. The exit status is CMD's (128+N when a signal
N ended it); 1 when the session was lost and CMD exited 0.`

// exitStatus is an exit status to pass on as it is (allot lock: its
// command's), with nothing more to print.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// lockCmd runs a command while holding the lock on some names.
func lockCmd(args []string, stdout, stderr io.Writer) error {
	var (
		dial                clientOpts
		ttl, grace, timeout time.Duration
	)
	fs := flag.NewFlagSet("allot lock", flag.ContinueOnError)
	dial.flags(fs)
	fs.DurationVar(&ttl, "ttl", 10*time.Second, "the session's lease: how long the cluster keeps the lock for a client it no longer hears from")
	fs.DurationVar(&grace, "grace", 5*time.Second, "when the session is lost: how long CMD has after SIGTERM before SIGKILL")
	fs.DurationVar(&timeout, "timeout", 10*time.Second, "give up opening the session after this long (the lock itself is waited for without a limit)")
	sep := slices.Index(args, "--")
	flagArgs := args
	if sep >= 0 {
		flagArgs = args[:sep]
	}
	// The names come before the flags, after them or between them.
	var names []string
	for {
		if err := parseFlagsOnly(fs, flagArgs, stdout, lockUsage); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		flagArgs = fs.Args()[1:]
	}
	switch {
	case sep < 0:
		return badf("lock: no -- before the command: allot lock NAME... -- CMD [ARGS...]")
	case len(names) == 0:
		return badf("lock: no name to lock: allot lock NAME... -- CMD [ARGS...]")
	case sep == len(args)-1:
		return badf("lock: no command after --")
	case ttl <= 0 || ttl > client.MaxTTL:
		return badf("lock: --ttl %v: want more than 0 and at most %v", ttl, client.MaxTTL)
	case grace < 0:
		return badf("lock: --grace %v: must not be negative", grace)
	case timeout <= 0:
		return badf("lock: --timeout %v: must be positive", timeout)
	}
	for _, n := range names {
		if strings.Contains(n, "\n") {
			return badf("lock: name %q: a newline would split it in ALLOT_TOKENS", n)
		}
	}
	argv := args[sep+1:]
	// A command that cannot start is found before the lock is taken.
	if _, err := exec.LookPath(argv[0]); err != nil {
		return badf("lock: %v", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)

	// A signal before the command runs ends the wait; after, it is the
	// command's.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got os.Signal
	waiting := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case got = <-sigs:
			cancel()
		case <-waiting:
		}
	}()
	interrupted := func() error {
		close(waiting)
		<-stopped
		if got == nil {
			return nil
		}
		fmt.Fprintf(stderr, "allot: lock: stopped by %v before the lock was taken\n", got)
		return exitStatus(128 + int(got.(syscall.Signal)))
	}

	c, err := dial.dial(ctx, "lock")
	if err != nil {
		return err
	}
	defer c.Close()
	sctx, scancel := context.WithTimeout(ctx, timeout)
	s, err := c.Session(sctx, client.WithTTL(ttl))
	scancel()
	if err != nil {
		if e := interrupted(); e != nil {
			return e
		}
		return badf("lock: no session on the cluster at %s: %s", dial.addr, bare(err))
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		s.Close(cctx)
	}()
	g, err := s.Lock(ctx, names...)
	if e := interrupted(); e != nil {
		return e
	}
	switch {
	case errors.Is(err, client.ErrBadName), errors.Is(err, client.ErrTooManyNames), errors.Is(err, client.ErrInvalid):
		return badf("lock: %s", bare(err))
	case err != nil:
		return fmt.Errorf("lock: %s", bare(err))
	}

	toks := make([]string, len(names))
	for i, n := range names {
		toks[i] = n + "=" + g.Token(n).String()
	}
	cmd.Env = append(os.Environ(), "ALLOT_TOKEN="+g.Token(names[0]).String(), "ALLOT_TOKENS="+strings.Join(toks, "\n"))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	// A process CMD left behind holding its output does not hold the
	// lock past CMD's own end for long.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		g.Unlock(ctx)
		return fmt.Errorf("lock: %v", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	lost := g.Done()
	wasLost := false
	var kill <-chan time.Time
	var werr error
wait:
	for {
		select {
		case sig := <-sigs:
			cmd.Process.Signal(sig)
		case <-lost:
			fmt.Fprintf(stderr, "allot: lock: the session was lost: ending %s (SIGTERM, then SIGKILL after %v)\n", argv[0], grace)
			cmd.Process.Signal(syscall.SIGTERM)
			lost, kill, wasLost = nil, time.After(grace), true
		case <-kill:
			cmd.Process.Kill()
			kill = nil
		case werr = <-ended:
			break wait
		}
	}
	code := cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	if werr != nil && !errors.As(werr, new(*exec.ExitError)) {
		fmt.Fprintf(stderr, "allot: lock: %s: %v\n", argv[0], werr)
	}
	switch {
	case wasLost:
		code = max(code, 1)
	default:
		uctx, ucancel := context.WithTimeout(context.Background(), min(ttl, 10*time.Second))
		if err := g.Unlock(uctx); err != nil {
			// The lease gives it back at the latest.
			fmt.Fprintf(stderr, "allot: lock: unlock: %s\n", bare(err))
		}
		ucancel()
	}
	if code != 0 {
		return exitStatus(code)
	}
	return nil
}

// bare is an error's text without the "allot: " that the client's errors
// start with, at its start or where a wrap put one inside ("allot: node
// A: allot: TLS handshake failed"): the command's line has one already.
func bare(err error) string {
	s := err.Error()
	for strings.HasPrefix(s, "allot: ") {
		s = s[len("allot: "):]
	}
	return strings.ReplaceAll(s, ": allot: ", ": ")
}
