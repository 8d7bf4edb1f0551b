package host_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/allot-dev/allot/host"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport"
)

// handlers is a transport that keeps the Handlers registered with it,
// for a test to call as a transport's goroutines would; sends go nowhere.
type handlers struct {
	mu sync.Mutex
	h  map[proc.ID]transport.Handler
}

func (t *handlers) Register(id proc.ID, h transport.Handler) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.h[id] = h
	return nil
}
func (t *handlers) Unregister(id proc.ID) error                 { return nil }
func (t *handlers) Send(from, to proc.ID, _ proc.Message) error { return nil }
func (t *handlers) Close() error                                { return nil }
func (t *handlers) Ordered() bool                               { return true }

func (t *handlers) of(id proc.ID) transport.Handler {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.h[id]
}

// gate counts the seqs it is handed, in order, and holds the one
// numbered hold until release is closed.
type gate struct {
	inOrder
	hold    int
	holding chan struct{}
	release chan struct{}
	handled atomic.Int64
}

func (g *gate) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if m.(seq).N == g.hold {
		close(g.holding)
		<-g.release
	}
	g.inOrder.Deliver(env, from, m)
	g.handled.Add(1)
}

// started waits until the process has handled its Start (it is idle).
func started(t *testing.T, h *host.Host, id proc.ID) {
	t.Helper()
	done := make(chan struct{})
	if err := h.Call(id, func(proc.Env) { close(done) }); err != nil {
		t.Fatal(err)
	}
	<-done
	time.Sleep(10 * time.Millisecond) // the call's goroutine lingers a moment
}

// TestInline: with Config.Inline a message for an idle process is
// handled before the transport's Handler returns, on the transport's
// goroutine; one that comes while the process is busy (here: the inline
// step of another deliverer, held) is queued behind it and handled in
// order; and a process removed while a step runs inline is finished
// once that step is done. Without Inline, the Handler only queues.
func TestInline(t *testing.T) {
	for _, inline := range []bool{true, false} {
		tr := &handlers{h: map[proc.ID]transport.Handler{}}
		h, err := host.New(host.Config{Transport: tr, Inline: inline})
		if err != nil {
			t.Fatal(err)
		}
		var bad atomic.Int64
		g := &gate{inOrder: inOrder{last: 1000, bad: &bad}, hold: 1, holding: make(chan struct{}), release: make(chan struct{})}
		if err := h.Add(0, g, nil); err != nil {
			t.Fatal(err)
		}
		started(t, h, 0)
		deliver := tr.of(0)
		deliver(9, seq{0})
		if got := g.handled.Load(); inline && got != 1 {
			t.Fatalf("inline: %d handled when the Handler returned, want 1", got)
		} else if !inline && got != 0 {
			// Not a certainty in principle, but the process's goroutine
			// would have to run within these few instructions.
			t.Logf("queued: %d handled when the Handler returned", got)
		}
		// seq 1 is held in its step; seqs 2.. come meanwhile from
		// another goroutine and must wait behind it, in order.
		stepDone := make(chan struct{})
		go func() { deliver(9, seq{1}); close(stepDone) }()
		<-g.holding
		for i := 2; i < 10; i++ {
			deliver(9, seq{i})
		}
		if got := g.handled.Load(); got != 1 {
			t.Errorf("inline=%v: %d handled while seq 1 was held, want 1", inline, got)
		}
		close(g.release)
		<-stepDone
		// What queued behind the held step is handled with nothing more
		// delivered.
		for wait := time.Now().Add(5 * time.Second); g.handled.Load() < 10 && time.Now().Before(wait); {
			time.Sleep(time.Millisecond)
		}
		if got := g.handled.Load(); got != 10 {
			t.Fatalf("inline=%v: %d handled after the held step, want the 10 delivered", inline, got)
		}
		for i := 10; i < 1000; i++ {
			deliver(9, seq{i})
		}
		deadline := time.Now().Add(5 * time.Second)
		for g.handled.Load() < 1000 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if got := g.handled.Load(); got != 1000 || bad.Load() != 0 {
			t.Errorf("inline=%v: %d of 1000 handled, %d out of order", inline, got, bad.Load())
		}

		// Removed while a step is held inline: Remove waits for it.
		g2 := &gate{inOrder: inOrder{last: 1000, bad: &bad}, hold: 0, holding: make(chan struct{}), release: make(chan struct{})}
		if err := h.Add(1, g2, nil); err != nil {
			t.Fatal(err)
		}
		started(t, h, 1)
		go tr.of(1)(9, seq{0})
		<-g2.holding
		removed := make(chan error)
		go func() { removed <- h.Remove(1) }()
		select {
		case err := <-removed:
			t.Fatalf("inline=%v: Remove returned (%v) while the step ran", inline, err)
		case <-time.After(50 * time.Millisecond):
		}
		close(g2.release)
		select {
		case err := <-removed:
			if err != nil {
				t.Errorf("Remove: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("inline=%v: Remove did not return once the step ended", inline)
		}
		h.Close()
	}
}
