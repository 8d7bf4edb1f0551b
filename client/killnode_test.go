package client_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
)

// lockedBuffer is a bytes.Buffer a process writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// served reports whether a fresh session, wherever the client opens it,
// locks every one of names (their managers are spread over the nodes) and
// takes a quota permit within d.
func served(ctx context.Context, c *client.Client, names []string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	s, err := c.Session(ctx, client.WithTTL(2*time.Second))
	if err != nil {
		return err
	}
	defer s.Close(context.Background())
	g, err := s.Lock(ctx, names...)
	if err != nil {
		return err
	}
	if err := g.Unlock(ctx); err != nil {
		return err
	}
	return s.Quota("calls").Take(ctx, 1)
}

// untilServed tries served until it succeeds or limit passes, and says
// how long that took.
func untilServed(ctx context.Context, c *client.Client, names []string, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	for {
		err := served(ctx, c, names, time.Second)
		if err == nil {
			return time.Since(start), nil
		}
		if time.Since(start) > limit {
			return time.Since(start), err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestClusterSurvivesNodeKill does what a new user would: starts allot
// cluster --nodes 3, kills one node's process with kill -9, and checks
// that the other two go on serving (every lock resource and the quota),
// that allot cluster says the node died, and that it restarts it on its
// data dir, after which the three serve.
func TestClusterSurvivesNodeKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the allot binary and starts processes")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var addrs []string
	pids := map[int]int{}
	nodeLine := regexp.MustCompile(`^node (\d+): \S+, pid (\d+)`)
	stderr := &lockedBuffer{}
	// The restart comes well after the time measured below, so that
	// what is measured is the other two serving without it.
	const suspect, restartDelay = time.Second, 6 * time.Second
	stop := allotCluster(ctx, t, dir, func(line string) bool {
		if a, ok := strings.CutPrefix(line, "cluster of 3 nodes: "); ok {
			addrs = strings.Split(a, ",")
		}
		if m := nodeLine.FindStringSubmatch(line); m != nil {
			i, _ := strconv.Atoi(m[1])
			pids[i], _ = strconv.Atoi(m[2])
		}
		return strings.HasPrefix(line, "try:")
	}, stderr, "--nodes", "3", "--quota", "calls=100000", "--suspect", suspect.String(),
		"--restart-delay", restartDelay.String(), "--data-dir", filepath.Join(dir, "data"))
	defer stop()
	if len(addrs) != 3 || len(pids) != 3 {
		t.Fatalf("allot cluster printed addresses %v and pids %v; want 3 of each\n%s", addrs, pids, stderr)
	}
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	names := make([]string, 12)
	for i := range names {
		names[i] = fmt.Sprintf("r%d", i)
	}
	if d, err := untilServed(ctx, c, names, 10*time.Second); err != nil {
		t.Fatalf("not served before the kill (%v): %v", d, err)
	}

	const victim = 1
	if err := syscall.Kill(pids[victim], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	// The others serve within --suspect and one election (the time to
	// agree on going on without the dead node), with two seconds' margin
	// for a loaded machine; in any case before the node is back.
	bound := 2*suspect + 2*time.Second
	d, err := untilServed(ctx, c, names, restartDelay)
	t.Logf("served by the other two %v after the kill -9 of node %d", d.Round(time.Millisecond), victim)
	if err != nil || d > bound {
		t.Errorf("the other two nodes served %v after the kill (%v); want within %v\n%s", d, err, bound, stderr)
	}
	said := fmt.Sprintf("allot cluster: node %d (pid %d) died", victim, pids[victim])
	back := regexp.MustCompile(fmt.Sprintf(`allot cluster: node %d restarted.* \(pid (\d+)\)`, victim))
	for time.Since(killed) < restartDelay+30*time.Second && back.FindStringSubmatch(stderr.String()) == nil {
		time.Sleep(50 * time.Millisecond)
	}
	out := stderr.String()
	m := back.FindStringSubmatch(out)
	if !strings.Contains(out, said) || m == nil {
		t.Fatalf("allot cluster's stderr does not say %q, then that the node restarted:\n%s", said, out)
	}
	if m[1] == strconv.Itoa(pids[victim]) {
		t.Fatalf("node %d restarted with the dead process's pid %s", victim, m[1])
	}
	t.Logf("node %d back %v after the kill", victim, time.Since(killed).Round(time.Millisecond))
	// Back with all three: the restarted node serves too (a session on
	// each node in turn: the client opens them round-robin).
	for range 3 {
		if d, err := untilServed(ctx, c, names, 15*time.Second); err != nil {
			t.Fatalf("not served after the restart (%v): %v\n%s", d, err, stderr)
		}
	}
}

// TestClusterMemberRemoved: a node of allot cluster removed with allot
// member remove stops on purpose (exit status 0); allot cluster says so
// and does not restart it (its data dir would refuse to start it anyway),
// and the other two serve on.
func TestClusterMemberRemoved(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the allot binary and starts processes")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var addrs []string
	stderr := &lockedBuffer{}
	stop := allotCluster(ctx, t, dir, func(line string) bool {
		if a, ok := strings.CutPrefix(line, "cluster of 3 nodes: "); ok {
			addrs = strings.Split(a, ",")
		}
		return strings.HasPrefix(line, "try:")
	}, stderr, "--nodes", "3", "--quota", "calls=1000", "--restart-delay", "200ms")
	defer stop()
	if len(addrs) != 3 {
		t.Fatalf("allot cluster printed addresses %v; want 3\n%s", addrs, stderr)
	}
	out, err := exec.CommandContext(ctx, filepath.Join(dir, "allot"), "member", "remove", "--addr", addrs[0], "1").CombinedOutput()
	if err != nil {
		t.Fatalf("allot member remove: %v\n%s", err, out)
	}
	said := "allot cluster: node 1 (pid "
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !strings.Contains(stderr.String(), "exited on its own"); {
		time.Sleep(20 * time.Millisecond)
	}
	// A restart, had there been one, comes 200ms after the exit.
	time.Sleep(time.Second)
	got := stderr.String()
	if !strings.Contains(got, said) || !strings.Contains(got, "exited on its own") || strings.Contains(got, "restarting") || strings.Contains(got, "did not come back") {
		t.Fatalf("allot cluster's stderr after node 1's removal; want it to say the node exited on its own and not restart it:\n%s", got)
	}
	c, err := client.Dial(ctx, addrs[0], addrs[2])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if d, err := untilServed(ctx, c, []string{"r0", "r1", "r2"}, 10*time.Second); err != nil {
		t.Fatalf("the other two not served after the removal (%v): %v", d, err)
	}
}
