package client_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
)

// sessions opens n sessions on the cluster (the client deals them round
// its nodes).
func sessions(t *testing.T, ctx context.Context, c *client.Client, n int) []*client.Session {
	t.Helper()
	ss := make([]*client.Session, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range ss {
		wg.Go(func() {
			s, err := c.Session(ctx, client.WithTTL(30*time.Second))
			if err != nil {
				errs <- err
				return
			}
			ss[i] = s
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return ss
}

// onCluster starts a 3-node cluster and opens n sessions on it, for a
// test that ends within d.
func onCluster(t *testing.T, d time.Duration, n int) (context.Context, []*client.Session) {
	t.Helper()
	addrs, stop := cluster(t, 3, 0)
	t.Cleanup(func() { stop() })
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return ctx, sessions(t, ctx, c, n)
}

// TestThousandNames is the acceptance test of exact names without a slot
// limit: 1,000 sessions on a 3-node cluster each lock a different name at
// once, while another session holds "hold/me". Every lock is granted and
// all are held together (none waits for another: each is asked before any
// is given back), within a time that is not a queue's.
func TestThousandNames(t *testing.T) {
	const n = 1000
	ctx, ss := onCluster(t, 60*time.Second, n+1)
	hold, err := ss[n].Lock(ctx, "hold/me")
	if err != nil {
		t.Fatal(err)
	}
	var held atomic.Int32
	var slowest atomic.Int64
	release := make(chan struct{})
	errs := make(chan error, n)
	grants := make([]*client.Grant, n)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			// Each lock must come within a time no queue of 1,000 would
			// allow on its own: it waits for nobody.
			lctx, lcancel := context.WithTimeout(ctx, 20*time.Second)
			defer lcancel()
			t0 := time.Now()
			g, err := ss[i].Lock(lctx, fmt.Sprintf("name/%d", i))
			if err != nil {
				errs <- fmt.Errorf("name/%d: %w (after %d granted)", i, err, held.Load())
				return
			}
			d := time.Since(t0)
			for old := slowest.Load(); d.Nanoseconds() > old && !slowest.CompareAndSwap(old, d.Nanoseconds()); old = slowest.Load() {
			}
			grants[i] = g
			held.Add(1)
			<-release // held until every lock is granted
		})
	}
	deadline := time.After(30 * time.Second)
	for held.Load() < n {
		select {
		case err := <-errs:
			close(release)
			wg.Wait()
			t.Fatal(err)
		case <-deadline:
			close(release)
			wg.Wait()
			t.Fatalf("%d of %d locks of different names granted in 30s", held.Load(), n)
		case <-time.After(5 * time.Millisecond):
		}
	}
	all := time.Since(start)
	close(release)
	wg.Wait()
	t.Logf("%d locks of different names, held at once: all granted in %v, the slowest single lock %v", n, all, time.Duration(slowest.Load()))
	for i, g := range grants {
		name := fmt.Sprintf("name/%d", i)
		tok := g.Token(name)
		if tok == (client.Token{}) {
			t.Fatalf("%s: no token", name)
		}
		if err := g.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := hold.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestHoldBlocksNoOther: while one session holds "hold/me", 1,000 other
// names are each locked and unlocked by another session at once, none
// waiting (under names hashed onto 256 resources some shared
// "hold/me"'s and waited for it).
func TestHoldBlocksNoOther(t *testing.T) {
	ctx, ss := onCluster(t, 60*time.Second, 4)
	hold, err := ss[0].Lock(ctx, "hold/me")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for w := range 30 { // 30 lockers over the three other sessions
		wg.Go(func() {
			s := ss[1+w%3]
			for i := w; i < 1000; i += 30 {
				name := fmt.Sprintf("other/%d", i)
				// A lock that waited for "hold/me" would wait forever:
				// it is held to the end.
				lctx, lcancel := context.WithTimeout(ctx, 10*time.Second)
				g, err := s.Lock(lctx, name)
				lcancel()
				if err != nil {
					errs <- fmt.Errorf("%s while hold/me is held: %w", name, err)
					return
				}
				if err := g.Unlock(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := hold.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestSameNameWaits: a Lock of a name another session holds waits, and is
// granted at its Unlock with a larger token of that name; a Lock of
// another name meanwhile is granted at once, with a token of its own.
func TestSameNameWaits(t *testing.T) {
	ctx, ss := onCluster(t, 30*time.Second, 3)
	var last client.Token
	for round := range 3 {
		a, err := ss[0].Lock(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		ta := a.Token("x")
		if !last.Less(ta) {
			t.Fatalf("round %d: token of x %v not above the last %v", round, ta, last)
		}
		got := make(chan *client.Grant, 1)
		go func() {
			b, err := ss[1].Lock(ctx, "x")
			if err != nil {
				t.Error(err)
			}
			got <- b
		}()
		y, err := ss[2].Lock(ctx, "y") // another name: not behind x's holder
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-got:
			t.Fatalf("round %d: x granted to a second session while held", round)
		case <-time.After(200 * time.Millisecond):
		}
		if err := a.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		var b *client.Grant
		select {
		case b = <-got:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: x not granted after its Unlock", round)
		}
		if b == nil {
			t.FailNow()
		}
		tb := b.Token("x")
		if !ta.Less(tb) {
			t.Fatalf("round %d: the waiter's token of x %v is not above the holder's %v", round, tb, ta)
		}
		last = tb
		for _, g := range []*client.Grant{b, y} {
			if err := g.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestTryLockFree: TryLock fails only behind a holder. 300 sessions each
// TryLock a different free name at once, on three nodes: every one is
// granted, however long its names take to resolve and its grant to come
// (a timer's guess would give up on some under this load). A TryLock of a
// held name is ErrLocked, and after its Unlock it is granted.
func TestTryLockFree(t *testing.T) {
	const n = 300
	ctx, ss := onCluster(t, 60*time.Second, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			g, err := ss[i].TryLock(ctx, fmt.Sprintf("free/%d", i))
			if err != nil {
				errs <- fmt.Errorf("TryLock of free/%d: %w", i, err)
				return
			}
			if err := g.Unlock(ctx); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if failed == 0 {
			t.Error(err)
		}
		failed++
	}
	if failed > 0 {
		t.Fatalf("%d of %d TryLocks of free names failed", failed, n)
	}
	held, err := ss[0].Lock(ctx, "held")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 4; i++ { // sessions on every node
		if _, err := ss[i].TryLock(ctx, "held"); !errors.Is(err, client.ErrLocked) {
			t.Fatalf("TryLock of a held name from session %d: %v, want ErrLocked", i, err)
		}
	}
	if err := held.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	// The Unlock's release may still be on its way to the name's
	// manager: a TryLock that reaches it first is behind the holder.
	for try := 0; ; try++ {
		g, err := ss[1].TryLock(ctx, "held")
		if err == nil {
			if err := g.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			break
		}
		if !errors.Is(err, client.ErrLocked) || try == 100 {
			t.Fatalf("TryLock after the Unlock, try %d: %v", try, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
