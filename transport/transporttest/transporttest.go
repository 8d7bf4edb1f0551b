// Package transporttest is the contract every transport.Transport passes:
// one suite run over every transport, so a network transport is held to
// exactly what the in-memory one promises.
//
//	mem_test:  transporttest.Run(t, func(t testing.TB) transport.Transport { return mem.New(...) })
//	a network: transporttest.Run(t, func(t testing.TB) transport.Transport { return cluster(t, 3) })
//
// The suite registers processes among 0..3 on the transport it is given,
// and sends to process 99 as one the transport cannot route to. A
// transport of one node among several is tested through a factory that
// returns a view of a whole cluster (ids 0..3 placed on different nodes),
// which is the point: the suite then crosses real connections. On an ordered transport
// (Ordered) it also checks that every link is FIFO; on a transport that can
// cut connections (transport.Cutter) it checks that a cut loses, duplicates
// and (if ordered) reorders nothing.
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

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport"
)

// Msg is the message the suite sends.
type Msg struct {
	From proc.ID // the sender, as the payload says
	Seq  int32
}

// Kind implements proc.Message.
func (Msg) Kind() string { return "test" }

// Factory returns a new, empty transport.
type Factory func(t testing.TB) transport.Transport

// Timeout bounds every wait of the suite.
var Timeout = 10 * time.Second

// Run runs the contract suite on transports made by f.
func Run(t *testing.T, f Factory) {
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, f) })
	}
}

// checks are the suite's tests, in order.
var checks = []struct {
	name string
	run  func(testing.TB, Factory)
}{
	{"DeliversEachMessageOnce", deliversOnce},
	{"FIFO", fifo},
	{"RegisterTwice", registerTwice},
	{"UnknownDestination", unknown},
	{"Unregister", unregister},
	{"SendAfterClose", sendAfterClose},
	{"SendDoesNotDeliverInline", notInline},
	{"CloseStopsDelivery", closeStops},
	{"CutAndRestore", cutRestore},
	{"NoGoroutineLeak", noLeak},
}

// recorder records what each link delivered, in delivery order, and checks
// what every delivery must satisfy: the right message type, the true
// sender, and (on an ordered transport) the link's send order.
type recorder struct {
	t       testing.TB
	ordered bool
	mu      sync.Mutex
	got     map[[2]proc.ID][]int32 // (from, to) -> sequence numbers delivered
	count   int
	want    int
	all     chan struct{}
}

func newRecorder(t testing.TB, tr transport.Transport, want int) *recorder {
	return &recorder{t: t, ordered: tr.Ordered(), got: map[[2]proc.ID][]int32{}, want: want, all: make(chan struct{})}
}

func (r *recorder) handler(to proc.ID) transport.Handler {
	return func(from proc.ID, m proc.Message) {
		tm, ok := m.(Msg)
		r.mu.Lock()
		defer r.mu.Unlock()
		if !ok || tm.From != from {
			r.t.Errorf("p%d got %#v from %d", to, m, from)
			return
		}
		k := [2]proc.ID{from, to}
		if s := r.got[k]; r.ordered && len(s) > 0 && s[len(s)-1] >= tm.Seq {
			r.t.Errorf("FIFO link %d→%d delivered %d after %d", from, to, tm.Seq, s[len(s)-1])
		}
		r.got[k] = append(r.got[k], tm.Seq)
		if r.count++; r.count == r.want {
			close(r.all)
		}
	}
}

// wait waits for want deliveries, then a moment more for duplicates, and
// checks that link (from, to) delivered exactly seqs 0..k-1 of each sender.
func (r *recorder) wait(links [][2]proc.ID, k int32) {
	r.t.Helper()
	select {
	case <-r.all:
	case <-time.After(Timeout):
		r.mu.Lock()
		defer r.mu.Unlock()
		r.t.Fatalf("%d of %d messages delivered", r.count, r.want)
	}
	time.Sleep(20 * time.Millisecond) // let duplicates show up
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range links {
		seen := make([]int, k)
		for _, s := range r.got[l] {
			if s < 0 || s >= k {
				r.t.Errorf("link %d→%d delivered unsent %d", l[0], l[1], s)
				continue
			}
			seen[s]++
		}
		for s, c := range seen {
			if c != 1 {
				r.t.Errorf("link %d→%d delivered message %d %d times", l[0], l[1], s, c)
			}
		}
	}
}

// deliversOnce: n processes each send k messages to every other one,
// concurrently; every message arrives exactly once with its true sender.
func deliversOnce(t testing.TB, f Factory) {
	const n, k = 4, 150
	tr := f(t)
	defer tr.Close()
	r := newRecorder(t, tr, n*(n-1)*k)
	var links [][2]proc.ID
	for id := proc.ID(0); id < n; id++ {
		if err := tr.Register(id, r.handler(id)); err != nil {
			t.Fatal(err)
		}
		for to := proc.ID(0); to < n; to++ {
			if to != id {
				links = append(links, [2]proc.ID{id, to})
			}
		}
	}
	var wg sync.WaitGroup
	for from := proc.ID(0); from < n; from++ {
		wg.Go(func() {
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
		})
	}
	wg.Wait()
	r.wait(links, k)
}

// fifo: many messages on two links into one process; an ordered transport
// delivers each link in send order (the recorder checks every delivery).
func fifo(t testing.TB, f Factory) {
	tr := f(t)
	defer tr.Close()
	if !tr.Ordered() {
		t.Skip("unordered transport")
	}
	const k = 500
	r := newRecorder(t, tr, 2*k)
	for id := proc.ID(0); id < 3; id++ {
		if err := tr.Register(id, r.handler(id)); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, from := range []proc.ID{0, 1} {
		wg.Go(func() {
			for s := int32(0); s < k; s++ {
				if err := tr.Send(from, 2, Msg{From: from, Seq: s}); err != nil {
					t.Errorf("send: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	r.wait([][2]proc.ID{{0, 2}, {1, 2}}, k)
}

func registerTwice(t testing.TB, f Factory) {
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

func unknown(t testing.TB, f Factory) {
	tr := f(t)
	defer tr.Close()
	if err := tr.Register(0, func(proc.ID, proc.Message) {}); err != nil {
		t.Fatal(err)
	}
	err := tr.Send(0, 99, Msg{From: 0})
	if err == nil || errors.Is(err, transport.ErrClosed) {
		t.Errorf("send to unknown process: %v, want an error other than ErrClosed", err)
	}
	if err := tr.Unregister(99); err == nil {
		t.Error("unregistering an unknown process: no error")
	}
}

// unregister: once Unregister returns the handler is not called (a send
// to the id may fail, or be accepted and dropped: a node cannot know at
// once that a process elsewhere is gone), and the id can be registered
// again.
func unregister(t testing.TB, f Factory) {
	tr := f(t)
	defer tr.Close()
	var after, running atomic.Int32
	var gone atomic.Bool
	if err := tr.Register(0, func(proc.ID, proc.Message) {}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Register(1, func(proc.ID, proc.Message) {
		running.Add(1)
		if gone.Load() {
			after.Add(1)
		}
		time.Sleep(20 * time.Microsecond)
		running.Add(-1)
	}); err != nil {
		t.Fatal(err)
	}
	for s := int32(0); s < 300; s++ {
		if err := tr.Send(0, 1, Msg{From: 0, Seq: s}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Unregister(1); err != nil {
		t.Fatal(err)
	}
	gone.Store(true)
	if n := running.Load(); n != 0 {
		t.Errorf("%d handlers running after Unregister returned", n)
	}
	if err := tr.Send(0, 1, Msg{From: 0, Seq: -2}); errors.Is(err, transport.ErrClosed) {
		t.Errorf("send to an unregistered process: %v", err)
	}
	again := make(chan Msg, 1)
	if err := tr.Register(1, func(_ proc.ID, m proc.Message) {
		if tm := m.(Msg); tm.Seq == -1 {
			again <- tm
		}
	}); err != nil {
		t.Fatalf("registering again: %v", err)
	}
	if err := tr.Send(0, 1, Msg{From: 0, Seq: -1}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-again:
	case <-time.After(Timeout):
		t.Fatal("no delivery to a process registered again")
	}
	if n := after.Load(); n != 0 {
		t.Errorf("%d messages delivered to the old registration after Unregister", n)
	}
}

func sendAfterClose(t testing.TB, f Factory) {
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
	if err := tr.Send(0, 0, Msg{}); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("send after close: %v, want ErrClosed", err)
	}
	if err := tr.Register(1, func(proc.ID, proc.Message) {}); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("register after close: %v, want ErrClosed", err)
	}
}

// notInline: the sender holds a lock the handler needs; a transport that
// ran the handler inside Send (say, for a zero delay) would deadlock here.
func notInline(t testing.TB, f Factory) {
	const k = 100
	tr := f(t)
	// No deferred Close: after a failure the handlers are stuck on mu and
	// Close would wait for them forever.
	var mu sync.Mutex
	var got atomic.Int32
	done := make(chan struct{})
	if err := tr.Register(0, func(proc.ID, proc.Message) {
		// The empty critical section is a barrier: a handler gets past
		// it only once the sender has let go of mu.
		mu.Lock()
		//lint:ignore SA2001 the barrier is the point
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
func closeStops(t testing.TB, f Factory) {
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

// cutRestore: processes 0 and 1 exchange messages while the link between
// them is cut and restored three times. Nothing sent while a cut is in
// force crosses before the restore; in the end every message has crossed
// exactly once (in order on an ordered transport).
func cutRestore(t testing.TB, f Factory) {
	tr := f(t)
	defer tr.Close()
	c, ok := tr.(transport.Cutter)
	if !ok {
		t.Skip("the transport cannot cut connections")
	}
	const rounds, per = 3, 40
	r := newRecorder(t, tr, 2*2*rounds*per)
	for id := proc.ID(0); id < 2; id++ {
		if err := tr.Register(id, r.handler(id)); err != nil {
			t.Fatal(err)
		}
	}
	send := func(s int32) {
		for _, from := range []proc.ID{0, 1} {
			if err := tr.Send(from, 1-from, Msg{From: from, Seq: s}); err != nil {
				t.Fatalf("send %d→%d: %v", from, 1-from, err)
			}
		}
	}
	seq := int32(0)
	for range rounds {
		for range per { // the link is up
			send(seq)
			seq++
		}
		c.Cut(0, 1)
		r.mu.Lock()
		before := r.count
		r.mu.Unlock()
		cutFrom := seq
		for range per { // a send on a cut link is not an error: it waits
			send(seq)
			seq++
		}
		time.Sleep(30 * time.Millisecond)
		r.mu.Lock()
		for _, l := range [][2]proc.ID{{0, 1}, {1, 0}} {
			for _, s := range r.got[l] {
				if s >= cutFrom {
					t.Errorf("message %d crossed %d→%d while the link was cut", s, l[0], l[1])
				}
			}
		}
		t.Logf("%d deliveries before the cut took effect", r.count-before)
		r.mu.Unlock()
		c.Restore(0, 1)
	}
	r.wait([][2]proc.ID{{0, 1}, {1, 0}}, seq)
}

// noLeak: a closed transport leaves no goroutine behind.
func noLeak(t testing.TB, f Factory) {
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
