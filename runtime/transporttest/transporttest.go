// Package transporttest is the contract every runtime.Transport passes: one
// suite run over every transport, so a network transport is held to exactly
// what the in-memory one promises.
//
//	runtime_test:  transporttest.Run(t, func(t *testing.T) runtime.Transport { return runtime.NewMem(...) })
//	a grpc package: transporttest.Run(t, func(t *testing.T) runtime.Transport { return grpcTransport(...) })
//
// The suite sends Msg values; a transport that encodes messages must be able
// to carry them (a plain struct of two integers).
package transporttest

import (
	"errors"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"allot/proc"
	"allot/runtime"
)

// Msg is the message the suite sends.
type Msg struct {
	From proc.ID // the sender, as the payload says
	Seq  int32
}

// Kind implements proc.Message.
func (Msg) Kind() string { return "test" }

// Factory returns a new, empty transport.
type Factory func(t *testing.T) runtime.Transport

// Timeout bounds every wait of the suite.
var Timeout = 10 * time.Second

// Run runs the contract suite on transports made by f.
func Run(t *testing.T, f Factory) {
	t.Run("DeliversEachMessageOnce", func(t *testing.T) { deliversOnce(t, f) })
	t.Run("RegisterTwice", func(t *testing.T) { registerTwice(t, f) })
	t.Run("UnknownDestination", func(t *testing.T) { unknown(t, f) })
	t.Run("SendAfterClose", func(t *testing.T) { sendAfterClose(t, f) })
	t.Run("SendDoesNotDeliverInline", func(t *testing.T) { notInline(t, f) })
	t.Run("CloseStopsDelivery", func(t *testing.T) { closeStops(t, f) })
	t.Run("NoGoroutineLeak", func(t *testing.T) { noLeak(t, f) })
}

// deliversOnce: n processes each send k messages to every other one,
// concurrently; every message arrives exactly once with its true sender.
func deliversOnce(t *testing.T, f Factory) {
	const n, k = 4, 150
	tr := f(t)
	defer tr.Close()
	type key struct {
		from, to proc.ID
		seq      int32
	}
	var mu sync.Mutex
	got := map[key]int{}
	all := make(chan struct{})
	want := n * (n - 1) * k
	for id := proc.ID(0); id < n; id++ {
		to := id
		err := tr.Register(id, func(from proc.ID, m proc.Message) {
			tm, ok := m.(Msg)
			mu.Lock()
			defer mu.Unlock()
			if !ok || tm.From != from {
				t.Errorf("p%d got %#v from %d", to, m, from)
				return
			}
			got[key{from, to, tm.Seq}]++
			if len(got) == want && got[key{from, to, tm.Seq}] == 1 {
				close(all)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for from := proc.ID(0); from < n; from++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := int32(0); s < k; s++ {
				for to := proc.ID(0); to < n; to++ {
					if to == from {
						continue
					}
					if err := tr.Send(from, to, Msg{From: from, Seq: s}); err != nil {
						t.Errorf("send %d->%d: %v", from, to, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	select {
	case <-all:
	case <-time.After(Timeout):
		mu.Lock()
		t.Fatalf("%d of %d messages delivered", len(got), want)
	}
	// Give duplicates a moment to show up.
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for m, c := range got {
		if c != 1 {
			t.Errorf("%v delivered %d times", m, c)
		}
	}
}

func registerTwice(t *testing.T, f Factory) {
	tr := f(t)
	defer tr.Close()
	h := func(proc.ID, proc.Message) {}
	if err := tr.Register(1, h); err != nil {
		t.Fatal(err)
	}
	if err := tr.Register(1, h); err == nil {
		t.Error("second registration of process 1 accepted")
	}
}

func unknown(t *testing.T, f Factory) {
	tr := f(t)
	defer tr.Close()
	if err := tr.Register(0, func(proc.ID, proc.Message) {}); err != nil {
		t.Fatal(err)
	}
	err := tr.Send(0, 7, Msg{From: 0})
	if err == nil || errors.Is(err, runtime.ErrClosed) {
		t.Errorf("send to unknown process: %v, want an error other than ErrClosed", err)
	}
}

func sendAfterClose(t *testing.T, f Factory) {
	tr := f(t)
	if err := tr.Register(0, func(proc.ID, proc.Message) {}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := tr.Send(0, 0, Msg{}); !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("send after close: %v, want ErrClosed", err)
	}
}

// notInline: the sender holds a lock the handler needs; a transport that
// ran the handler inside Send (say, for a zero delay) would deadlock here.
func notInline(t *testing.T, f Factory) {
	const k = 100
	tr := f(t)
	// No deferred Close: after a failure the handlers are stuck on mu and
	// Close would wait for them forever.
	var mu sync.Mutex
	var got atomic.Int32
	done := make(chan struct{})
	if err := tr.Register(0, func(proc.ID, proc.Message) {
		mu.Lock()
		mu.Unlock()
		if got.Add(1) == k {
			close(done)
		}
	}); err != nil {
		t.Fatal(err)
	}
	sent := make(chan error, 1)
	go func() {
		mu.Lock()
		defer mu.Unlock()
		for s := int32(0); s < k; s++ {
			if err := tr.Send(0, 0, Msg{Seq: s}); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	select {
	case err := <-sent:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(Timeout):
		t.Fatal("Send blocked: the handler ran inside it")
	}
	select {
	case <-done:
	case <-time.After(Timeout):
		t.Fatalf("%d of %d messages delivered", got.Load(), k)
	}
	tr.Close()
}

// closeStops: once Close returns no handler runs, even with messages in
// flight.
func closeStops(t *testing.T, f Factory) {
	tr := f(t)
	var closed, active, late atomic.Int32
	if err := tr.Register(0, func(proc.ID, proc.Message) {
		active.Add(1)
		if closed.Load() == 1 {
			late.Add(1)
		}
		time.Sleep(50 * time.Microsecond)
		active.Add(-1)
	}); err != nil {
		t.Fatal(err)
	}
	for s := int32(0); s < 500; s++ {
		if err := tr.Send(0, 0, Msg{Seq: s}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	closed.Store(1)
	if a := active.Load(); a != 0 {
		t.Errorf("%d handlers still running after Close", a)
	}
	time.Sleep(30 * time.Millisecond)
	if l := late.Load(); l != 0 {
		t.Errorf("%d messages delivered after Close", l)
	}
}

// noLeak: a closed transport leaves no goroutine behind.
func noLeak(t *testing.T, f Factory) {
	before := goruntime.NumGoroutine()
	tr := f(t)
	for id := proc.ID(0); id < 3; id++ {
		if err := tr.Register(id, func(proc.ID, proc.Message) {}); err != nil {
			t.Fatal(err)
		}
	}
	for s := int32(0); s < 300; s++ {
		if err := tr.Send(proc.ID(s%3), proc.ID((s+1)%3), Msg{From: proc.ID(s % 3), Seq: s}); err != nil {
			t.Fatal(err)
		}
	}
	tr.Close()
	if n := Settle(before); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}

// Settle waits up to a second for the goroutine count to fall to want and
// returns the last count. Goroutines that have finished their work may take
// a moment to exit.
func Settle(want int) int {
	n := goruntime.NumGoroutine()
	for end := time.Now().Add(time.Second); n > want && time.Now().Before(end); n = goruntime.NumGoroutine() {
		time.Sleep(5 * time.Millisecond)
	}
	return n
}
