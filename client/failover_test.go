package client_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
)

// errorKinds counts a loop's errors by kind.
type errorKinds struct {
	mu sync.Mutex
	n  map[string]int
	ok int
	// first and last are when the first and the last error came.
	first, last time.Time
}

// kind names err for the count: the package's typed errors by name, any
// other by its text with the numbers taken out (a port, a session id).
func kind(err error) string {
	for _, k := range []struct {
		name string
		err  error
	}{
		{"ErrSessionExpired", client.ErrSessionExpired}, {"ErrUnavailable", client.ErrUnavailable},
		{"ErrNotHeld", client.ErrNotHeld}, {"ErrExhausted", client.ErrExhausted},
		{"context.DeadlineExceeded", context.DeadlineExceeded}, {"context.Canceled", context.Canceled},
	} {
		if errors.Is(err, k.err) {
			return k.name + ": " + regexp.MustCompile(`[0-9]+`).ReplaceAllString(err.Error(), "N")
		}
	}
	return regexp.MustCompile(`[0-9]+`).ReplaceAllString(err.Error(), "N")
}

func (e *errorKinds) add(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err == nil {
		e.ok++
		return
	}
	k := kind(err)
	e.n[k]++
	if e.first.IsZero() {
		e.first = time.Now()
	}
	e.last = time.Now()
}

func (e *errorKinds) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	ks := make([]string, 0, len(e.n))
	for k := range e.n {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b strings.Builder
	fmt.Fprintf(&b, "%d ok", e.ok)
	if !e.first.IsZero() {
		fmt.Fprintf(&b, ", errors for %v", e.last.Sub(e.first).Round(time.Millisecond))
	}
	for _, k := range ks {
		fmt.Fprintf(&b, "; %d × %s", e.n[k], k)
	}
	return b.String()
}

func (e *errorKinds) errors() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, c := range e.n {
		n += c
	}
	return n
}

// TestKill9 starts one cluster of allot serve processes (allot cluster,
// which restarts a node that dies) for two cases of kill -9: of the node
// that serves sessions in the middle of their calls (failoverHidden), and
// of a leader's process (leaderKilled).
func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the allot binary and starts processes")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	var addrs []string
	pids := map[string]int{}
	nodeLine := regexp.MustCompile(`^node (\d+): (\S+), pid (\d+)`)
	stderr := &lockedBuffer{}
	stop := allotCluster(ctx, t, dir, func(line string) bool {
		if a, ok := strings.CutPrefix(line, "cluster of 3 nodes: "); ok {
			addrs = strings.Split(a, ",")
		}
		if m := nodeLine.FindStringSubmatch(line); m != nil {
			pids[m[2]], _ = strconv.Atoi(m[3])
		}
		return strings.HasPrefix(line, "try:")
	}, stderr, "--nodes", "3", "--quota", "calls=1000000:100", "--suspect", "1s", "--restart-delay", "1500ms")
	defer stop()
	if len(addrs) != 3 || len(pids) != 3 {
		t.Fatalf("allot cluster printed addresses %v and pids %v; want 3 of each\n%s", addrs, pids, stderr)
	}
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	t.Logf("allot built and its cluster up in %v", time.Since(start).Round(time.Millisecond))
	// The leader's first: the other case leaves a node restarting.
	t.Run("leader", func(t *testing.T) { leaderKilled(ctx, t, c, addrs) })
	t.Run("session's node", func(t *testing.T) { failoverHidden(ctx, t, c, addrs[1], pids[addrs[1]], stderr) })
}

// failoverHidden: kill -9 of the node that serves a session, in the
// middle of a loop of each call (Lock and Unlock, Acquire and Release,
// Take, and the keep-alives of a session that calls nothing), gives the
// caller no error at all: every session is adopted by its backup with
// what it holds, the calls cut off by the loss ride over it, and the
// restart of the node (a view change more) too. The loops run at once,
// each on a session of its own on the victim node, whose process is pid.
func failoverHidden(ctx context.Context, t *testing.T, c *client.Client, victim string, pid int, stderr *lockedBuffer) {
	// Sessions open on the nodes in turn: each loop's is opened until it
	// lands on the victim.
	onVictim := func() *client.Session {
		for {
			s, err := c.Session(ctx, client.WithTTL(3*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if s.Node() == victim {
				return s
			}
			defer s.Close(ctx)
		}
	}
	loops := map[string]func(ctx context.Context, s *client.Session, e *errorKinds){
		"lock/unlock": func(ctx context.Context, s *client.Session, e *errorKinds) {
			g, err := s.Lock(ctx, "failover-lock")
			e.add(err)
			if err == nil {
				e.add(g.Unlock(ctx))
			}
		},
		"acquire/release": func(ctx context.Context, s *client.Session, e *errorKinds) {
			m := s.Semaphore("failover-sem", 3)
			err := m.Acquire(ctx)
			e.add(err)
			if err == nil {
				e.add(m.Release(ctx))
			}
		},
		"take": func(ctx context.Context, s *client.Session, e *errorKinds) {
			e.add(s.Quota("calls").Take(ctx, 3))
		},
		"keep-alive": func(ctx context.Context, s *client.Session, e *errorKinds) {
			select {
			case <-s.Done():
				e.add(errors.New("the session's Done closed"))
			case <-ctx.Done():
			case <-time.After(10 * time.Millisecond):
				e.add(nil)
			}
		},
	}
	names := []string{"lock/unlock", "acquire/release", "take", "keep-alive"}
	counts := map[string]*errorKinds{}
	sessions := map[string]*client.Session{}
	for _, name := range names {
		counts[name] = &errorKinds{n: map[string]int{}}
		sessions[name] = onVictim()
		// Each call once before the kill: the cluster serves them.
		loops[name](ctx, sessions[name], counts[name])
	}
	if n := counts["lock/unlock"].errors() + counts["acquire/release"].errors() + counts["take"].errors(); n > 0 {
		t.Fatalf("calls failed before the kill: %v %v %v", counts["lock/unlock"], counts["acquire/release"], counts["take"])
	}
	// The loops run through the kill, the others' view without the
	// victim, its restart and the view with it again (a --suspect after
	// allot cluster says it restarted it, and a margin).
	lctx, lcancel := context.WithTimeout(ctx, 20*time.Second)
	defer lcancel()
	go func() {
		for lctx.Err() == nil && !strings.Contains(stderr.String(), "restarted") {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(2 * time.Second)
		lcancel()
	}()
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Go(func() {
			for lctx.Err() == nil {
				// Each call within a context of its own: the loop's end
				// is not the call's error.
				cctx, ccancel := context.WithTimeout(ctx, 15*time.Second)
				loops[name](cctx, sessions[name], counts[name])
				ccancel()
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for _, name := range names {
		e := counts[name]
		t.Logf("%s: %v", name, e)
		if e.errors() > 0 {
			t.Errorf("%s loop: errors through the kill -9 of the session's node: %v", name, e)
		}
		if e.ok == 0 {
			t.Errorf("%s loop: nothing succeeded", name)
		}
		if s := sessions[name]; s.Node() == victim {
			t.Errorf("%s loop: its session is still at the killed node %s", name, victim)
		}
	}
	if !strings.Contains(stderr.String(), "died") || !strings.Contains(stderr.String(), "restarted") {
		t.Errorf("allot cluster did not see the node die and restart it:\n%s", stderr)
	}
}
