package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service/store"
)

// serveOnce runs allot serve ARGS as a process of its own until it exits
// (at most d) and returns its output (stdout and stderr) and exit code.
func serveOnce(t *testing.T, d time.Duration, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"serve", "--log-level", "warn"}, args...)...)
	cmd.Env = append(coLocated(os.Environ(), 4), "ALLOT_TEST_MAIN=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("allot serve %q still running after %v:\n%s", args, d, out)
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return string(out), 0
}

// refusedOnce checks out and code are a refusal: exit 2, one allot: line
// saying want, and no panic or goroutine dump.
func refusedOnce(t *testing.T, what, out string, code int, want string) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "allot: ") {
			lines = append(lines, l)
		}
	}
	if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], want) || strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
		t.Fatalf("%s: exit %d, want 2 and one allot: line saying %q, no panic:\n%s", what, code, want, out)
	}
	t.Logf("%s: %s", what, lines[0])
}

// wipeCluster starts three allot serve processes with data dirs (node i's
// at data(i)) and returns them, their addresses and node i's flags.
func wipeCluster(t *testing.T) (procs []*serveProc, addrs []string, data func(i int) string, args func(i int) []string) {
	t.Helper()
	dir := t.TempDir()
	addrs, err := freePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	data = func(i int) string { return filepath.Join(dir, fmt.Sprint(i)) }
	args = func(i int) []string {
		return []string{"--nodes", strings.Join(addrs, ","), "--node", fmt.Sprint(i), "--data-dir", data(i),
			"--suspect", "1s", "--drain", "1s", "--peer-timeout", "15s"}
	}
	return serveTogether(t, 3, args), addrs, data, args
}

// lockOn takes and gives back a lock on the node at addr, within 15s (a
// view without a killed node serves within a few leases).
func lockOn(t *testing.T, addr, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for {
		g, err := sessionOn(ctx, t, addr, 10*time.Second).Lock(ctx, name)
		if errors.Is(err, client.ErrSessionExpired) && ctx.Err() == nil {
			// The node fenced itself during the view change (its
			// lease ran out on a loaded machine): another session.
			t.Logf("lock on %s: %v: another session asks", addr, err)
			continue
		}
		if err != nil {
			t.Fatalf("lock %q on %s: %v", name, addr, err)
		}
		if err := g.Unlock(ctx); err != nil {
			t.Fatalf("unlock %q on %s: %v", name, addr, err)
		}
		return
	}
}

// TestWipedDataDirIsRefused: node 2 killed (kill -9) and restarted with
// the same flags on a wiped data directory. It panicked (tocommit(N) is
// out of range [lastIndex(1)]) at the leader's first heartbeat, or came
// back as a voter with an empty log; it must refuse to start, with one
// allot: line and exit 2, and leave nothing in the directory (a second
// try refuses again), while the two others go on granting locks. Then
// it comes back as the refusal says: removed, added under a new id, and
// started with --join on an empty data directory.
func TestWipedDataDirIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts allot serve processes")
	}
	procs, addrs, data, args := wipeCluster(t)
	for i := range 3 {
		lockOn(t, addrs[0], fmt.Sprint("before", i))
	}
	procs[2].cmd.Process.Kill()
	procs[2].waitExit(t, 10*time.Second)
	if err := os.RemoveAll(data(2)); err != nil {
		t.Fatal(err)
	}
	for try := range 2 {
		out, code := serveOnce(t, 30*time.Second, args(2)...)
		refusedOnce(t, fmt.Sprintf("restart %d on a wiped data dir", try+1), out, code, "data directory "+data(2)+" is empty, but the cluster has run with it")
		if empty, err := store.Empty(data(2)); !empty || err != nil {
			t.Fatalf("the refused node left a store behind (empty %v, %v)", empty, err)
		}
	}
	lockOn(t, addrs[0], "after")
	lockOn(t, addrs[1], "after")

	// Truncated to nothing is the same as wiped.
	if err := os.MkdirAll(data(2), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data(2), store.FileName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := serveOnce(t, 30*time.Second, args(2)...)
	refusedOnce(t, "restart on a store truncated to 0 bytes", out, code, "is empty, but the cluster has run with it")

	// Back under a new id, as the refusal says.
	if out, errs, code := allot(t, "member", "remove", "--addr", addrs[0], "2"); code != 0 {
		t.Fatalf("member remove 2: exit %d, %q %q", code, out, errs)
	}
	if out, errs, code := allot(t, "member", "add", "--addr", addrs[0], addrs[2]); code != 0 || !strings.Contains(out, "node 3 added at "+addrs[2]) {
		t.Fatalf("member add: exit %d, %q %q", code, out, errs)
	}
	fresh := filepath.Join(t.TempDir(), "3")
	startServe(t, "--join", addrs[0], "--node", "3", "--listen", addrs[2], "--data-dir", fresh, "--suspect", "1s", "--drain", "1s")
	lockOn(t, addrs[2], "rejoined")
	for _, p := range procs[:2] {
		p.cmd.Process.Signal(syscall.SIGTERM)
		p.waitExit(t, 15*time.Second)
	}
}

// TestOlderDataDirStops: node 2 restarted on a copy of its data directory
// taken before its last run (its log ends before what it acknowledged
// since). The directory is not empty, so nothing refuses it at the
// start; the leader's first heartbeat commits past the end of its log:
// Raft panicked there. It must stop, with one allot: line and exit 2,
// while the two others go on granting locks.
func TestOlderDataDirStops(t *testing.T) {
	if testing.Short() {
		t.Skip("starts allot serve processes")
	}
	procs, addrs, data, args := wipeCluster(t)
	procs[2].cmd.Process.Signal(syscall.SIGTERM)
	procs[2].waitExit(t, 15*time.Second)
	old := filepath.Join(t.TempDir(), "old")
	if err := os.CopyFS(old, os.DirFS(data(2))); err != nil {
		t.Fatal(err)
	}
	// A run on its data: the log grows (its rejoin, views, its ready),
	// and node 2 acknowledges it all.
	second := startServe(t, args(2)...)
	lockOn(t, addrs[2], "second run")
	second.cmd.Process.Kill()
	second.waitExit(t, 10*time.Second)
	if err := os.RemoveAll(data(2)); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(data(2), os.DirFS(old)); err != nil {
		t.Fatal(err)
	}
	out, code := serveOnce(t, 30*time.Second, args(2)...)
	refusedOnce(t, "restart on an older copy", out, code, "heartbeat commits index")
	lockOn(t, addrs[0], "after")
	lockOn(t, addrs[1], "after")
	for _, p := range procs[:2] {
		p.cmd.Process.Signal(syscall.SIGTERM)
		p.waitExit(t, 15*time.Second)
	}
}

// TestTruncatedAndForeignDataDir: a store cut in half, another node's, or
// another cluster's: one allot: line and exit 2, whether the node is
// started with its node list or on its data dir alone (which crashed
// with a SIGBUS on a truncated store).
func TestTruncatedAndForeignDataDir(t *testing.T) {
	if testing.Short() {
		t.Skip("starts allot serve processes")
	}
	procs, addrs, data, args := wipeCluster(t)
	for _, p := range procs {
		p.cmd.Process.Signal(syscall.SIGTERM)
		p.waitExit(t, 15*time.Second)
	}
	b, err := os.ReadFile(filepath.Join(data(1), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	// Cut past bbolt's two meta pages, inside the pages they point to: a
	// cut at half the file can leave every page in use (a small store's
	// second half may be free pages), and the store is then intact.
	cut := min(len(b)/2, 2*os.Getpagesize()+os.Getpagesize()/2)
	if err := os.WriteFile(filepath.Join(data(1), store.FileName), b[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other")
	st, err := store.Open(other, store.Identity{Nodes: []string{addrs[0], "127.0.0.1:1"}, Node: 0})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, c := range []struct {
		what string
		args []string
		want string
	}{
		{"truncated", args(1), "the store is corrupt"},
		{"truncated, the data dir alone", []string{"--data-dir", data(1)}, "the store is corrupt"},
		{"node 0's data as node 2", append(args(2)[:4:4], "--data-dir", data(0)), "belongs to another node: it is node 0"},
		{"node 0's data as node 2, the data dir and --node", []string{"--node", "2", "--data-dir", data(0)}, "is node 0's"},
		{"another cluster's data", append(args(0)[:4:4], "--data-dir", other), "belongs to another node"},
	} {
		out, code := serveOnce(t, 30*time.Second, c.args...)
		refusedOnce(t, c.what, out, code, c.want)
	}
}

// TestNewClusterStartsAtOnce: a new cluster's nodes, started together on
// empty data directories, are all in the data-loss check at once, each
// asking the others. A node in the check must refuse the others' calls
// at once (its port is not taken yet), not hold them: each node used to
// wait out the check's whole timeout (half of --suspect) before it even
// started serving its API. With --suspect 20s that was 10 s; it is the
// time to a health answer (any status) that is judged, not the time to
// ready, which a long --suspect draws out by itself.
func TestNewClusterStartsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts allot serve processes")
	}
	dir := t.TempDir()
	addrs, err := freePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			if _, err := tryServe(t, "--nodes", strings.Join(addrs, ","), "--node", fmt.Sprint(i), "--data-dir", filepath.Join(dir, fmt.Sprint(i)),
				"--suspect", "20s", "--peer-timeout", "15s"); err != nil {
				t.Error(err)
			}
		})
	}
	defer wg.Wait()
	for _, a := range addrs {
		conn, err := grpc.NewClient(a, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			_, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
			cancel()
			if err == nil || status.Code(err) != codes.Unavailable && status.Code(err) != codes.DeadlineExceeded {
				break
			}
			if time.Since(start) > 20*time.Second {
				t.Fatalf("node at %s: no answer within 20s: %v", a, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		conn.Close()
	}
	if took := time.Since(start); took > 6*time.Second {
		t.Errorf("a new cluster's nodes took %v to answer, want well under the check's timeout of 10s", took.Round(time.Millisecond))
	} else {
		t.Logf("a new cluster's nodes answered in %v", took.Round(time.Millisecond))
	}
}
