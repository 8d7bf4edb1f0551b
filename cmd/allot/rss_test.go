package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
)

var (
	rssFull    = flag.Bool("rss.full", false, "TestRSSAfterLoad: the acceptance's size, 100k sessions and 10k semaphore names (default: a tenth of it)")
	rssRefresh = flag.Int("rss.refresh-idle", 0, "TestRSSAfterLoad: the nodes' --refresh-idle (0: their default; -1: no refresh, to see the check fail without it)")
)

// TestRSSAfterLoad is the acceptance of bounded memory: three allot serve
// processes; a node's resident set measured idle (after a warm-up that
// builds what every node builds once: links, the first view's tables);
// then short sessions (each opened, one Lock and Unlock or one Acquire and
// Release, closed; 64 at a time, over the three nodes) and distinct
// semaphore names (each acquired once and released); once they are all
// gone, each node's resident set is within 20% of its idle measure.
//
// The measure is VmRSS of /proc/PID/status once the node's heap is
// collected and every freed page given back to the kernel (POST
// /debug/free-os-memory on its --metrics address: debug.FreeOSMemory; the
// runtime's scavenger alone keeps up to about the next GC's heap goal for
// a while): the least of the readings a second apart, until two in a row
// agree within 1%.
//
// By default a tenth of the acceptance's size (10k sessions, 1k names: a
// CI's minute); -rss.full runs 100k and 10k, and -rss.refresh-idle -1
// shows the check failing without the refresh that collects idle
// semaphores.
func TestRSSAfterLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts allot serve processes and runs thousands of sessions")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: VmRSS is read from /proc/PID/status")
	}
	sessions, names := 10_000, 1_000
	if *rssFull {
		sessions, names = 100_000, 10_000
	}
	addrs, err := freePorts(6)
	if err != nil {
		t.Fatal(err)
	}
	nodes, metrics := strings.Join(addrs[:3], ","), addrs[3:]
	dir := t.TempDir()
	procs := serveTogether(t, 3, func(i int) []string {
		args := []string{"--nodes", nodes, "--node", strconv.Itoa(i), "--data-dir", fmt.Sprintf("%s/node-%d", dir, i),
			"--metrics", metrics[i], "--max-sessions", "100000", "--refresh-every", "500ms"}
		if *rssRefresh != 0 {
			args = append(args, "--refresh-idle", strconv.Itoa(*rssRefresh))
		}
		return args
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	clients := make([]*client.Client, 3)
	for i := range clients {
		c, err := client.Dial(ctx, addrs[i])
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		clients[i] = c
	}

	// One short session: a Lock and Unlock of one of 1,000 names, or an
	// Acquire and Release of semaphore sem (if not "").
	short := func(k int, sem string) error {
		s, err := clients[k%3].Session(ctx, client.WithTTL(5*time.Second))
		if err != nil {
			return fmt.Errorf("session: %w", err)
		}
		defer s.Close(ctx)
		if sem != "" {
			m := s.Semaphore(sem, 2)
			if err := m.Acquire(ctx); err != nil {
				return fmt.Errorf("acquire %s: %w", sem, err)
			}
			return m.Release(ctx)
		}
		g, err := s.Lock(ctx, fmt.Sprintf("rss/%d", k%1000))
		if err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		return g.Unlock(ctx)
	}
	// run runs n short sessions, 64 at a time; sem(k) names the
	// semaphore of the k-th ("": a lock). A semaphore refused at the
	// node's limit (the idle ones not collected yet) is asked again; so
	// is a session a node ended because it stopped serving (a lease run
	// out on a loaded machine: the node comes back as a new run), at
	// most n/10 times: this test is of memory, not of leases.
	var limited, lost atomic.Int64
	run := func(n int, sem func(k int) string) {
		t.Helper()
		var next atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for range 64 {
			wg.Go(func() {
				for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
					for {
						err := short(k, sem(k))
						if errors.Is(err, client.ErrLimit) {
							limited.Add(1)
							time.Sleep(50 * time.Millisecond)
							continue
						}
						if (errors.Is(err, client.ErrSessionExpired) || errors.Is(err, client.ErrUnavailable)) && lost.Add(1) <= int64(n/10) {
							time.Sleep(50 * time.Millisecond)
							continue
						}
						if err != nil {
							errs <- err
							return
						}
						break
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			for i, p := range procs {
				out := p.output()
				t.Logf("node %d's log (its last 2000 bytes):\n%s", i, out[max(0, len(out)-2000):])
			}
			t.Fatal(err)
		}
	}
	none := func(int) string { return "" }
	// Warm-up: every path once (a few sessions, locks and semaphores).
	run(300, func(k int) string {
		if k%3 == 0 {
			return fmt.Sprintf("warm%d", k%30)
		}
		return ""
	})
	// Collected: no node hosts an idle instance (a quiet view is
	// refreshed QuietRefreshes × --refresh-every after it began).
	collected := func() {
		t.Helper()
		if *rssRefresh < 0 {
			time.Sleep(3 * time.Second) // nothing will be: the sessions' ends only
			return
		}
		for give := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			left := ""
			for i := range procs {
				if v := scrapeMetric(t, metrics[i], `allot_instances{state="idle"}`); v != "0" {
					left += fmt.Sprintf(" node %d: %s", i, v)
				}
			}
			if left == "" {
				return
			}
			if time.Now().After(give) {
				t.Fatalf("idle instances not collected within 60s:%s", left)
			}
		}
	}
	collected()
	idle := make([]int64, 3)
	for i, p := range procs {
		idle[i] = settledRSS(t, p.cmd.Process.Pid, metrics[i])
		t.Logf("node %d idle: %s", i, runtimeOf(t, metrics[i]))
	}
	start := time.Now()
	run(sessions-names, none)
	lockTime := time.Since(start)
	lockLost := lost.Load()
	start = time.Now()
	run(names, func(k int) string { return fmt.Sprintf("s%d", k) })
	semTime := time.Since(start)
	t.Logf("%d lock sessions in %v (%.0f/s), %d sessions of as many semaphore names in %v (%.0f/s), %d refused at --max-semaphores and asked again, %d and %d ended by a node that stopped serving and run again",
		sessions-names, lockTime.Round(time.Millisecond), float64(sessions-names)/lockTime.Seconds(),
		names, semTime.Round(time.Millisecond), float64(names)/semTime.Seconds(), limited.Load(), lockLost, lost.Load()-lockLost)
	wait := time.Now()
	// A closed session stays in its node's expiry queue until its TTL
	// has run out (the queue is lazy): the sessions are gone once it has.
	time.Sleep(5 * time.Second)
	collected()
	if *rssRefresh >= 0 {
		t.Logf("every idle instance collected %v after the load", time.Since(wait).Round(time.Millisecond))
	}
	for i, p := range procs {
		after := settledRSS(t, p.cmd.Process.Pid, metrics[i])
		refreshes := scrapeMetric(t, metrics[i], "allot_refreshes_asked_total")
		epoch := scrapeMetric(t, metrics[i], "allot_view_epoch")
		views, _ := strconv.ParseFloat(scrapeMetric(t, metrics[i], "allot_view_pause_seconds_count"), 64)
		paused, _ := strconv.ParseFloat(scrapeMetric(t, metrics[i], "allot_view_pause_seconds_sum"), 64)
		t.Logf("node %d: %.0f views served (the first, at start, included), each after a pause of %.1f ms on average (allot_view_pause_seconds)", i, views, 1000*paused/max(views, 1))
		t.Logf("node %d: VmRSS %d KiB idle, %d KiB after (%+.1f%%); %s refreshes asked, view epoch %s; %s",
			i, idle[i], after, 100*float64(after-idle[i])/float64(idle[i]), refreshes, epoch, runtimeOf(t, metrics[i]))
		if float64(after) > 1.2*float64(idle[i]) {
			t.Errorf("node %d: VmRSS %d KiB after the load, more than 20%% over its idle %d KiB", i, after, idle[i])
		}
	}
}

// settledRSS is node pid's VmRSS in KiB once its heap is collected and the
// freed pages given back (POST /debug/free-os-memory at metrics), the
// least of the readings until two in a row agree within 1% (at most 20s).
func settledRSS(t *testing.T, pid int, metrics string) int64 {
	t.Helper()
	least, last := int64(-1), int64(-1)
	for give := time.Now().Add(20 * time.Second); time.Now().Before(give); {
		resp, err := http.Post("http://"+metrics+"/debug/free-os-memory", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		time.Sleep(time.Second)
		rss := vmRSS(t, pid)
		if least < 0 || rss < least {
			least = rss
		}
		if last > 0 && rss <= last+last/100 && rss >= last-last/100 {
			break
		}
		last = rss
	}
	return least
}

// vmRSS is process pid's resident set in KiB.
func vmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// runtimeOf is what the Go runtime of the node at addr says of its memory.
func runtimeOf(t *testing.T, addr string) string {
	t.Helper()
	kib := func(series string) string {
		v, err := strconv.ParseFloat(scrapeMetric(t, addr, series), 64)
		if err != nil {
			return "?"
		}
		return strconv.Itoa(int(v) >> 10)
	}
	return fmt.Sprintf("%s goroutines, heap in use %s KiB (idle %s KiB, of which returned %s KiB), stacks %s KiB, runtime's total %s KiB",
		scrapeMetric(t, addr, "go_goroutines"), kib("go_memstats_heap_inuse_bytes"), kib("go_memstats_heap_idle_bytes"), kib("go_memstats_heap_released_bytes"),
		kib("go_memstats_stack_inuse_bytes"), kib("go_memstats_sys_bytes"))
}

// scrapeMetric is the value of the series named series (no labels) on the
// node's /metrics at addr ("" if absent).
func scrapeMetric(t *testing.T, addr, series string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			return v
		}
	}
	return ""
}
