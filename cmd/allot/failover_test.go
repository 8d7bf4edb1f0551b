package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service/eventlog"
	"github.com/allot-dev/allot/service/verify"
)

// fencingStore is the store the locks protect: it accepts a write to a
// name only with a token at least the largest it has accepted for it, as
// a resource must (docs/service.md).
type fencingStore struct {
	mu      sync.Mutex
	highest map[string]client.Token
	refused []string
}

func (f *fencingStore) write(name string, tok client.Token, who string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if tok.Less(f.highest[name]) {
		f.refused = append(f.refused, fmt.Sprintf("%s: %s's token %v below %v", name, who, tok, f.highest[name]))
		return false
	}
	f.highest[name] = tok
	return true
}

// onNode is a client whose sessions open on node k first (Session goes
// round the addresses from the first), and which knows every node, so
// that its sessions can move.
func onNode(ctx context.Context, t *testing.T, addrs []string, k int, ttl time.Duration) *client.Session {
	t.Helper()
	rot := append(slices.Clone(addrs[k:]), addrs[:k]...)
	c, err := client.Dial(ctx, rot...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := c.Session(ctx, client.WithTTL(ttl))
	if err != nil {
		t.Fatalf("session on %s: %v", addrs[k], err)
	}
	return s
}

// waitStopped waits until process pid is stopped (state T in
// /proc/PID/stat), at most 5s.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Skipf("cannot tell whether the node is stopped: %v", err)
		}
		// pid (comm) STATE ...: comm may hold spaces, the state follows
		// its last ')'.
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 && strings.HasPrefix(string(b[i+1:]), " T") {
			return
		}
	}
	t.Fatalf("process %d not stopped 5s after SIGSTOP", pid)
}

// readLogs reads the nodes' event logs.
func readLogs(t *testing.T, paths []string) [][]eventlog.Record {
	t.Helper()
	var logs [][]eventlog.Record
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := eventlog.Read(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, rs)
	}
	return logs
}

// TestSessionsOutliveTheirNode is issue #20's acceptance of sessions that
// outlive their node: three allot serve processes; sessions on the
// leader hold locks and a semaphore unit, while sessions on the other
// two nodes wait for the same names; the leader is killed (kill -9), or
// frozen (SIGSTOP). Its sessions' clients keep their grants with the
// same tokens through its backup, which adopted them: their writes with those tokens are
// still accepted by the fencing store, and their Unlock works there. No
// other session is granted those names before they are unlocked (the
// fencing store and the nodes' event logs checked by service/verify
// say so), and the waiting sessions are granted after.
func TestSessionsOutliveTheirNode(t *testing.T) {
	if testing.Short() {
		t.Skip("starts allot serve processes")
	}
	t.Run("kill", func(t *testing.T) { outlive(t, syscall.SIGKILL) })
	// Frozen (SIGSTOP) past its lease, then running again: it finds its
	// lease over and drops the sessions its backup adopted meanwhile.
	t.Run("stop", func(t *testing.T) { outlive(t, syscall.SIGSTOP) })
}

// outlive is TestSessionsOutliveTheirNode with the leader lost to sig.
func outlive(t *testing.T, sig syscall.Signal) {
	dir := t.TempDir()
	addrs, err := freePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	nodes := strings.Join(addrs, ",")
	events := make([]string, 3)
	for i := range events {
		events[i] = filepath.Join(dir, fmt.Sprintf("node-%d.jsonl", i))
	}
	// The default --suspect, chosen for a loaded machine: the node lost
	// leads, and its loss leaves every node's lease to the next
	// leader's election, which a CPU-starved machine (four busy
	// processes beside the test) delays past a lease of 1 s: every
	// node's lease ran out and no node could vouch for the sessions
	// meanwhile (lost 1.02 s after the SIGSTOP, 6 of 8 runs, each with
	// the frozen node leading), while with 3 s both subtests passed 5
	// runs of 5 under the same load, the sessions moving in 4.4-5.0 s.
	procs := serveTogether(t, 3, func(i int) []string {
		return []string{"--nodes", nodes, "--node", fmt.Sprint(i), "--data-dir", filepath.Join(dir, fmt.Sprint(i)),
			"--events", events[i], "--suspect", "3s", "--drain", "1s", "--peer-timeout", "15s"}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	const ttl = 10 * time.Second
	store := &fencingStore{highest: map[string]client.Token{}}
	// The node lost is the leader, the hardest case: every node's lease
	// waits for the next leader's election, and no node can vouch for
	// the sessions meanwhile.
	victim := leader(t, addrs)
	others := []int{(victim + 1) % 3, (victim + 2) % 3}

	// The holders, on the victim: a lock each, and one a unit of a
	// semaphore of one unit.
	type holder struct {
		s     *client.Session
		g     *client.Grant
		name  string
		unit  bool
		given chan struct{} // closed just before its Unlock is sent
	}
	var hs []*holder
	for i := range 4 {
		s := onNode(ctx, t, addrs, victim, ttl)
		name := fmt.Sprintf("name-%d", i)
		g, err := s.Lock(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, &holder{s: s, g: g, name: name, given: make(chan struct{})})
	}
	sem := hs[0].s.Semaphore("pool", 1)
	gu, err := sem.AcquireUnit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hs = append(hs, &holder{s: hs[0].s, g: gu, name: "pool", unit: true, given: make(chan struct{})})
	for _, h := range hs {
		if !store.write(h.name, h.g.Token(h.name), "holder") {
			t.Fatalf("the first write: %v", store.refused)
		}
	}

	// The others wait for the same names on nodes 0 and 2.
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(hs)) // two waiters per name, each a violation and its Unlock at most
	for i, h := range hs {
		for _, k := range others {
			s := onNode(ctx, t, addrs, k, ttl)
			wg.Go(func() {
				var g *client.Grant
				var err error
				if h.unit {
					g, err = s.Semaphore("pool", 1).AcquireUnit(ctx)
				} else {
					g, err = s.Lock(ctx, h.name)
				}
				if err != nil {
					errs <- fmt.Errorf("waiter %d on node %d: %w", i, k, err)
					return
				}
				select {
				case <-h.given:
				default:
					errs <- fmt.Errorf("%s granted to a session on node %d (token %v) while node %d's session still held it", h.name, k, g.Token(h.name), victim)
				}
				store.write(h.name, g.Token(h.name), fmt.Sprintf("node %d's session", k))
				errs <- g.Unlock(ctx)
			})
		}
	}
	time.Sleep(300 * time.Millisecond) // they wait

	if err := syscall.Kill(procs[victim].cmd.Process.Pid, sig); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if sig == syscall.SIGKILL {
		<-procs[victim].exited
	} else {
		defer syscall.Kill(procs[victim].cmd.Process.Pid, syscall.SIGCONT)
		// Stopped for sure before the probes below: a Lock the node
		// answered before would not show the session moved.
		waitStopped(t, procs[victim].cmd.Process.Pid)
	}

	// Each holder's session moves: a Lock of a name of its own through
	// it is served once it has (ErrUnavailable until then).
	for i, h := range hs {
		for {
			// Within half a second: a frozen node takes the call and
			// does not answer.
			lctx, lcancel := context.WithTimeout(ctx, 500*time.Millisecond)
			g, err := h.s.Lock(lctx, fmt.Sprintf("own-%d", i))
			lcancel()
			if err == nil {
				if err := g.Unlock(ctx); err != nil {
					t.Fatalf("holder %d: Unlock of its own name after the move: %v", i, err)
				}
				break
			}
			if !errors.Is(err, client.ErrUnavailable) && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("holder %d: a Lock while its session moves: %v, want ErrUnavailable or no answer until it has", i, err)
			}
			select {
			case <-h.s.Done():
				t.Fatalf("holder %d: its session was lost with node %d, the leader, %v after the %v", i, victim, time.Since(killed).Round(time.Millisecond), sig)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	t.Logf("the sessions moved %v after the %s of node %d, the leader", time.Since(killed).Round(time.Millisecond), map[syscall.Signal]string{syscall.SIGKILL: "kill -9", syscall.SIGSTOP: "SIGSTOP"}[sig], victim)
	// They still hold their grants, with the tokens the store knows.
	time.Sleep(500 * time.Millisecond) // the waiters' chance to be granted wrongly
	for i, h := range hs {
		if !store.write(h.name, h.g.Token(h.name), "holder") {
			t.Errorf("holder %d: its write after the move was refused: %s", i, store.refused[len(store.refused)-1])
		}
		select {
		case <-h.s.Done():
			t.Errorf("holder %d: Done closed", i)
		default:
		}
	}
	for i, h := range hs {
		close(h.given)
		var err error
		if h.unit {
			err = sem.Release(ctx)
		} else {
			err = h.g.Unlock(ctx)
		}
		if err != nil {
			t.Errorf("holder %d: giving %s back through its new node: %v", i, h.name, err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if len(store.refused) > 0 {
		t.Errorf("the fencing store refused: %v", store.refused)
	}
	live := others
	var missing []int
	if sig == syscall.SIGKILL {
		missing = []int{victim}
	} else {
		// Running again, the node must not give anything back late in
		// the view it was left out of (the event logs would show it).
		if err := syscall.Kill(procs[victim].cmd.Process.Pid, syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		live = append(live, victim)
	}
	for _, k := range live {
		procs[k].cmd.Process.Signal(syscall.SIGTERM)
		procs[k].waitExit(t, 15*time.Second)
	}
	v, err := verify.Partial(missing, readLogs(t, events)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the nodes' event logs: %v", v)
	if v.Violations > 0 {
		t.Errorf("the nodes' event logs: %d violations: %v", v.Violations, v.First)
	}
}

// TestSessionLostWithItsBackup: a session's node and its backup killed at
// once (nodes 1 and 2 of five) lose the session cleanly: its Done closes,
// and only after that are its lock and its semaphore unit granted to
// another session, with larger tokens. The other session lives on node 3,
// whose backup (node 4) lives: on node 0, whose backup is node 1, it was
// lost too whenever node 0's lease ran out while the cluster elected a
// leader in place of a killed one (a node that stops serving hands its
// sessions to its backup, here dead) — a limit of its own, written in
// docs/failures.md, not what this test is about.
func TestSessionLostWithItsBackup(t *testing.T) {
	if testing.Short() {
		t.Skip("starts allot serve processes")
	}
	dir := t.TempDir()
	addrs, err := freePorts(5)
	if err != nil {
		t.Fatal(err)
	}
	nodes := strings.Join(addrs, ",")
	procs := serveTogether(t, 5, func(i int) []string {
		return []string{"--nodes", nodes, "--node", fmt.Sprint(i), "--data-dir", filepath.Join(dir, fmt.Sprint(i)),
			"--suspect", "1s", "--drain", "1s", "--peer-timeout", "15s"}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const ttl = 5 * time.Second
	s := onNode(ctx, t, addrs, 1, ttl)
	g, err := s.Lock(ctx, "z")
	if err != nil {
		t.Fatal(err)
	}
	gu, err := s.Semaphore("pool", 1).AcquireUnit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other := onNode(ctx, t, addrs, 3, ttl)
	for _, k := range []int{1, 2} { // the node, and its backup (the next member)
		if err := syscall.Kill(procs[k].cmd.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	killed := time.Now()
	g2, err := other.Lock(ctx, "z")
	if err != nil {
		t.Fatal(err)
	}
	granted := time.Now()
	select {
	case <-s.Done():
	default:
		t.Errorf("z granted again %v after the kill while the lost session's Done was open", granted.Sub(killed).Round(time.Millisecond))
	}
	if !g.Token("z").Less(g2.Token("z")) {
		t.Errorf("z granted again with token %v, not above the lost session's %v", g2.Token("z"), g.Token("z"))
	}
	gu2, err := other.Semaphore("pool", 1).AcquireUnit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !gu.Token("pool").Less(gu2.Token("pool")) {
		t.Errorf("the unit granted again with token %v, not above the lost session's %v", gu2.Token("pool"), gu.Token("pool"))
	}
	t.Logf("the lost session's lock granted again %v after the kill", granted.Sub(killed).Round(time.Millisecond))
	if err := g2.Unlock(ctx); err != nil {
		t.Error(err)
	}
}

// leader is the node of addrs that leads the cluster, once one does.
func leader(t *testing.T, addrs []string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, m := range memberList(t, addrs[0]) {
			if m.Leader {
				return m.ID
			}
		}
	}
	t.Fatal("no leader within 10s")
	return -1
}
