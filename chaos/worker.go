package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/allot-dev/allot/client"
)

// The workload's names: lock sets are drawn from Resources (overlapping,
// so clients contend), semaphores and the quota are shared by all.
var (
	Resources  = []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9"}
	Semaphores = map[string]int{"workers": 3, "slots": 5}
	QuotaName  = "q"
)

// Worker is one client: a goroutine running operations one at a time on
// a session it reopens whenever the session is lost, recording each in
// its history.
type Worker struct {
	ID    string
	C     *client.Client
	Store Store
	H     *History
	Rnd   *rand.Rand
	TTL   time.Duration // zero: the client's default
	// Pause is how long an abandoning worker stays paused, holding a
	// lock it no longer has, before it writes with its stale token (more
	// than the lease and the lock-delay, so others may have moved on).
	Pause time.Duration
	// OpTimeout bounds every operation.
	OpTimeout time.Duration
	// abandon: at its next lock held, orphan the session and pause.
	abandon atomic.Bool
	// abandoned is when it last abandoned its session (Unix ns).
	abandoned atomic.Int64
	// Ops counts the operations that succeeded.
	Ops atomic.Int64
}

// Abandon makes the worker, at the next lock it holds, stop keeping its
// session alive and pause past its lease, then write with the stale
// token, as a client hung in a GC pause would.
func (w *Worker) Abandon() { w.abandon.Store(true) }

func (w *Worker) put(e Event) {
	e.Client = w.ID
	w.H.Put(e)
}

// session is the worker's current session and what watches its Done.
type session struct {
	s *client.Session
	// l is s, as far as its loss is concerned (a test's fake).
	l interface {
		Done() <-chan struct{}
		Renewed() time.Time
	}
	closing chan struct{} // the worker closes the session: not a loss
	// lostOnce records the session's Done once, from whichever sees it
	// first: the goroutine that watches it, or a call it cut short,
	// whose answer comes after it in the history (as it did for the
	// client).
	lostOnce sync.Once
}

// lost records that ss's Done closed (but not when the worker closed it).
func (w *Worker) lost(ss *session) {
	select {
	case <-ss.closing:
		return // closed by the worker (closing first), not lost
	default:
	}
	ss.lostOnce.Do(func() { w.put(Event{Op: "done", Type: "info", Renewed: ss.l.Renewed().UnixNano()}) })
}

func (w *Worker) open(ctx context.Context) (*session, error) {
	octx, cancel := context.WithTimeout(ctx, w.OpTimeout)
	defer cancel()
	var opts []client.SessionOption
	if w.TTL > 0 {
		opts = append(opts, client.WithTTL(w.TTL))
	}
	s, err := w.C.Session(octx, opts...)
	if err != nil {
		return nil, err
	}
	ss := &session{s: s, l: s, closing: make(chan struct{})}
	ttl := w.TTL
	if ttl == 0 {
		ttl = defaultTTL
	}
	w.put(Event{Op: "session", Type: "ok", TTL: ttl})
	go func() {
		// The lease may be gone from here on: whatever the session holds
		// is no longer the worker's, and a grant answered after this is
		// not either.
		select {
		case <-s.Done():
			w.lost(ss)
		case <-ss.closing:
		}
	}()
	return ss, nil
}

func (w *Worker) close(ss *session) {
	close(ss.closing)
	ctx, cancel := context.WithTimeout(context.Background(), w.OpTimeout)
	defer cancel()
	ss.s.Close(ctx)
}

// Run runs operations until ctx ends or max have been tried.
func (w *Worker) Run(ctx context.Context, max int) {
	var ss *session
	defer func() {
		if ss != nil {
			w.close(ss)
		}
	}()
	for k := 0; k < max && ctx.Err() == nil; k++ {
		if ss != nil {
			select {
			case <-ss.s.Done():
				w.close(ss)
				ss = nil
			default:
			}
		}
		if ss == nil {
			var err error
			if ss, err = w.open(ctx); err != nil {
				sleep(ctx, 20*time.Millisecond+time.Duration(w.Rnd.IntN(30))*time.Millisecond)
				continue
			}
		}
		var err error
		switch r := w.Rnd.IntN(10); {
		case r < 6:
			err = w.lock(ctx, ss)
		case r < 8:
			err = w.acquire(ctx, ss)
		default:
			err = w.take(ctx, ss)
		}
		if errors.Is(err, errAbandoned) || errors.Is(err, errGiveBack) || errors.Is(err, client.ErrSessionExpired) || errors.Is(err, client.ErrUnavailable) {
			if !errors.Is(err, errAbandoned) {
				w.close(ss)
			}
			ss = nil
		}
	}
}

var errAbandoned = errors.New("abandoned")

// errGiveBack: an Unlock or Release failed (it timed out, say) while the
// session lives on: the node may still hold the grant for the session,
// so the worker ends the session, which gives back all it holds, as a
// careful user of the client would. (Going on with the session instead
// holds the grant for good, and every client needing it waits: seen as
// a liveness failure with seed 1795568362535939757.)
var errGiveBack = errors.New("a grant could not be given back")

// giveBack runs an Unlock or Release on a context of its own (the
// grant's may be spent by a slow grant), and says errGiveBack if it
// failed but for the session's loss or the grant being gone already.
func (w *Worker) giveBack(ctx context.Context, f func(context.Context) error) error {
	octx, cancel := w.opCtx(ctx)
	defer cancel()
	err := f(octx)
	switch {
	case err == nil, errors.Is(err, client.ErrSessionExpired), errors.Is(err, client.ErrUnavailable), errors.Is(err, client.ErrNotHeld):
		return err
	}
	return fmt.Errorf("%w: %w", errGiveBack, err)
}

func (w *Worker) opCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, w.OpTimeout)
}

// fail is e failed with err; an answer that the session expired says
// when the session's last keep-alive answered was sent, for the checker
// to judge whether it could have. An answer given once Done closed (the
// client's own count ran out) comes after Done in the history: the
// checker judges the Done, not the calls it ended (the goroutine that
// watches Done may not have recorded it yet).
func (w *Worker) fail(ss *session, e Event, err error) Event {
	e.Type, e.Err = "fail", err.Error()
	if errors.Is(err, client.ErrSessionExpired) {
		select {
		case <-ss.l.Done():
			w.lost(ss)
		default:
		}
		e.Renewed = ss.l.Renewed().UnixNano()
	}
	return e
}

// lock locks 1 to 3 resources, does a read-modify-write of each in the
// store with its token, and unlocks.
func (w *Worker) lock(ctx context.Context, ss *session) error {
	k := 1 + w.Rnd.IntN(3)
	set := make([]string, k)
	for i, p := range w.Rnd.Perm(len(Resources))[:k] {
		set[i] = Resources[p]
	}
	inv := Event{Op: "lock", Type: "invoke", Keys: set}
	w.put(inv)
	octx, cancel := w.opCtx(ctx)
	defer cancel()
	g, err := ss.s.Lock(octx, set...)
	if err != nil {
		w.put(w.fail(ss, inv, err))
		return err
	}
	toks := make([]client.Token, k)
	for i, r := range set {
		toks[i] = g.Token(r)
	}
	w.put(Event{Op: "lock", Type: "ok", Keys: set, Tokens: toks})
	w.Ops.Add(1)
	if w.abandon.CompareAndSwap(true, false) {
		// A hung client: it stops renewing its lease and wakes up past
		// it, still believing it holds the lock.
		w.put(Event{Op: "abandon", Type: "info"})
		w.abandoned.Store(time.Now().UnixNano())
		ss.s.Orphan()
		close(ss.closing)
		sleep(ctx, w.Pause)
		w.rmw(set, toks)
		return errAbandoned
	}
	select {
	case <-g.Done():
	default:
		w.rmw(set, toks)
	}
	sleep(ctx, time.Duration(w.Rnd.IntN(2000))*time.Microsecond)
	w.put(Event{Op: "unlock", Type: "invoke", Keys: set})
	if err := w.giveBack(ctx, g.Unlock); err != nil {
		w.put(w.fail(ss, Event{Op: "unlock", Keys: set}, err))
		return err
	}
	w.put(Event{Op: "unlock", Type: "ok", Keys: set})
	return nil
}

// rmw reads and writes back version+1 of each key with its token.
func (w *Worker) rmw(keys []string, toks []client.Token) {
	for i, key := range keys {
		tk := []client.Token{toks[i]}
		v, ok, err := w.Store.Read(key, toks[i])
		if err != nil || !ok {
			e := Event{Op: "read", Type: "fail", Keys: []string{key}, Tokens: tk, Err: "stale token"}
			if err != nil {
				e.Err = err.Error()
			}
			w.put(e)
			continue
		}
		w.put(Event{Op: "read", Type: "ok", Keys: []string{key}, Tokens: tk, Version: v})
		ok, err = w.Store.Write(key, toks[i], v+1)
		e := Event{Op: "write", Type: "ok", Keys: []string{key}, Tokens: tk, Version: v + 1}
		if err != nil || !ok {
			e.Type, e.Err = "fail", "stale token"
			if err != nil {
				e.Err = err.Error()
			}
		}
		w.put(e)
	}
}

// acquire takes a unit of a semaphore, holds it a moment and releases it.
func (w *Worker) acquire(ctx context.Context, ss *session) error {
	name := "workers"
	if w.Rnd.IntN(2) == 0 {
		name = "slots"
	}
	units := Semaphores[name]
	key := name + "/" + strconv.Itoa(units)
	w.put(Event{Op: "acquire", Type: "invoke", Keys: []string{key}})
	octx, cancel := w.opCtx(ctx)
	defer cancel()
	sem := ss.s.Semaphore(name, units)
	g, err := sem.AcquireUnit(octx)
	if err != nil {
		w.put(w.fail(ss, Event{Op: "acquire", Keys: []string{key}}, err))
		return err
	}
	// A unit is a unit of its view: units are numbered afresh when the
	// cluster's view changes, so the key carries the token's epoch.
	held := []string{fmt.Sprintf("%s/%d@%d", key, g.Unit(), g.Token(name).Epoch)}
	w.put(Event{Op: "acquire", Type: "ok", Keys: held, Tokens: []client.Token{g.Token(name)}})
	w.Ops.Add(1)
	sleep(ctx, time.Duration(w.Rnd.IntN(2000))*time.Microsecond)
	w.put(Event{Op: "release", Type: "invoke", Keys: held})
	if err := w.giveBack(ctx, sem.Release); err != nil {
		w.put(w.fail(ss, Event{Op: "release", Keys: held}, err))
		return err
	}
	w.put(Event{Op: "release", Type: "ok", Keys: held})
	return nil
}

// take takes 1 to 3 permits of the quota.
func (w *Worker) take(ctx context.Context, ss *session) error {
	n := 1 + w.Rnd.IntN(3)
	w.put(Event{Op: "take", Type: "invoke", Keys: []string{QuotaName}, N: n})
	octx, cancel := w.opCtx(ctx)
	defer cancel()
	err := ss.s.Quota(QuotaName).Take(octx, n)
	switch {
	case err == nil:
		w.put(Event{Op: "take", Type: "ok", Keys: []string{QuotaName}, N: n})
	case errors.Is(err, client.ErrExhausted):
		// An answer: the quota is spent (some of the n may be consumed).
		w.put(Event{Op: "take", Type: "ok", Keys: []string{QuotaName}, Err: "exhausted"})
		sleep(ctx, 5*time.Millisecond)
	default:
		w.put(w.fail(ss, Event{Op: "take", Keys: []string{QuotaName}, N: n}, err))
		return err
	}
	w.Ops.Add(1)
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
