package client_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service"
	"github.com/allot-dev/allot/service/eventlog"
	"github.com/allot-dev/allot/service/verify"
)

// hung is what the hanging client of workload saw: when its grant's Done
// closed, and its token for r0.
type hung struct {
	done  time.Time
	token client.Token
}

// workload runs lockers on overlapping sets of 8 resources and users of a
// semaphore of 3 units against addrs, bounded by count and by time, and
// lets one session expire while it holds a lock. It returns the first
// error.
func workload(ctx context.Context, t testing.TB, addrs []string, lockers, semUsers, rounds int) (h hung) {
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, lockers+semUsers+8)
	names := []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"}
	for i := range lockers {
		wg.Go(func() {
			s, err := c.Session(ctx, client.WithTTL(5*time.Second))
			if err != nil {
				errs <- err
				return
			}
			defer s.Close(context.Background())
			rnd := rand.New(rand.NewPCG(uint64(i), 1))
			for range rounds {
				k := 1 + rnd.IntN(3)
				perm := rnd.Perm(len(names))[:k]
				set := make([]string, k)
				for j, p := range perm {
					set[j] = names[p]
				}
				g, err := s.Lock(ctx, set...)
				if err != nil {
					errs <- fmt.Errorf("locker %d: lock %v: %w", i, set, err)
					return
				}
				time.Sleep(time.Duration(rnd.IntN(500)) * time.Microsecond)
				if err := g.Unlock(ctx); err != nil {
					errs <- fmt.Errorf("locker %d: unlock: %w", i, err)
					return
				}
			}
		})
	}
	for i := range semUsers {
		wg.Go(func() {
			s, err := c.Session(ctx, client.WithTTL(5*time.Second))
			if err != nil {
				errs <- err
				return
			}
			defer s.Close(context.Background())
			sem := s.Semaphore("workers", 3)
			for range rounds {
				if err := sem.Acquire(ctx); err != nil {
					errs <- fmt.Errorf("semaphore user %d: %w", i, err)
					return
				}
				time.Sleep(200 * time.Microsecond)
				if err := sem.Release(ctx); err != nil {
					errs <- fmt.Errorf("semaphore user %d: release: %w", i, err)
					return
				}
			}
		})
	}
	// Quota users take permits of "calls" (100, waste 10) until it is
	// exhausted: the logs' check.Quota says at most 100 were issued.
	for i := range 3 {
		wg.Go(func() {
			s, err := c.Session(ctx, client.WithTTL(5*time.Second))
			if err != nil {
				errs <- err
				return
			}
			defer s.Close(context.Background())
			for range 60 {
				err := s.Quota("calls").Take(ctx, 1)
				if errors.Is(err, client.ErrExhausted) {
					return
				}
				if err != nil {
					errs <- fmt.Errorf("quota user %d: %w", i, err)
					return
				}
			}
		})
	}
	// A client that takes r0 and r1 and then hangs: its lease expires, its
	// Done closes, and the next holder — a client already waiting for r0
	// — gets it, with a larger token.
	wg.Go(func() {
		s, err := c.Session(ctx, client.WithTTL(time.Second))
		if err != nil {
			errs <- err
			return
		}
		g, err := s.Lock(ctx, "r0", "r1")
		if err != nil {
			errs <- fmt.Errorf("hanging client: %w", err)
			return
		}
		s.Orphan()
		s2, err := c.Session(ctx, client.WithTTL(5*time.Second))
		if err != nil {
			errs <- err
			return
		}
		defer s2.Close(context.Background())
		next := make(chan *client.Grant, 1)
		go func() {
			g2, err := s2.Lock(ctx, "r0")
			if err != nil {
				errs <- fmt.Errorf("waiting for the hung r0: %w", err)
			}
			next <- g2
		}()
		select {
		case <-g.Done():
			h = hung{time.Now(), g.Token("r0")}
		case <-time.After(5 * time.Second):
			errs <- fmt.Errorf("the hanging client's grant is not Done 5s after its 1s lease")
			return
		}
		g2 := <-next
		if g2 == nil {
			return
		}
		if !g.Token("r0").Less(g2.Token("r0")) {
			errs <- fmt.Errorf("token of r0 went from %v to %v across an expiry", g.Token("r0"), g2.Token("r0"))
		}
		g2.Unlock(ctx)
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	return h
}

// verify checks the nodes' event logs.
func verifyLogs(t testing.TB, logs [][]byte) verify.Verdict {
	var recs [][]eventlog.Record
	for i, b := range logs {
		r, err := eventlog.Read(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("node %d's log: %v", i, err)
		}
		recs = append(recs, r)
	}
	v, err := verify.Logs(recs...)
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK() {
		t.Errorf("the event logs show %v", v)
	}
	return v
}

func TestConcurrentInProcess(t *testing.T) {
	const lockDelay = 100 * time.Millisecond
	addrs, stop := cluster(t, 3, lockDelay)
	h := workload(context.Background(), t, addrs, 9, 4, 40)
	logs := stop()
	v := verifyLogs(t, logs)
	t.Logf("%v", v)
	if v.Answered < 9*40+4*40 {
		t.Errorf("only %d requests answered", v.Answered)
	}
	// The next holder of r0 after the hanging client entered after the
	// hanging client's Done closed (with lockDelay to spare for the
	// scheduler).
	var recs []eventlog.Record
	for _, b := range logs {
		r, _ := eventlog.Read(bytes.NewReader(b))
		recs = append(recs, r...)
	}
	slices.SortStableFunc(recs, func(a, b eventlog.Record) int { return cmp.Compare(a.T, b.T) })
	c := service.Cluster{}
	key := c.LockKey("r0")
	lastEnter := map[[2]int]int64{} // (node, process) -> time of its last enter
	for _, r := range recs {
		if !strings.HasPrefix(r.Instance, "lock@") {
			continue
		}
		if r.Ev == "enter" {
			lastEnter[[2]int{r.Node, int(r.P)}] = r.T
		}
		if r.Ev != "fenced" {
			continue
		}
		for i, k := range r.Keys {
			if k == key && h.token.Less(client.Token{Epoch: r.Epoch, Counter: r.Counters[i]}) {
				entered := time.Unix(0, lastEnter[[2]int{r.Node, int(r.P)}])
				if !entered.After(h.done) {
					t.Errorf("r0's next holder entered at %v, before the hung holder's Done closed at %v", entered, h.done)
				}
				t.Logf("the next holder of r0 entered %v after the hung holder's Done closed", entered.Sub(h.done))
				return
			}
		}
	}
	t.Errorf("no holder of r0 after the hung one's token %v", h.token)
}
