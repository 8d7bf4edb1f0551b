package host_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/host"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport/mem"
)

// hop is a token passed round a ring of relays.
type hop struct{ Left int }

func (hop) Kind() string { return "hop" }

// relay passes the token on to next until it has no hops left, then
// emits a permit.
type relay struct{ next proc.ID }

func (relay) Start(proc.Env)            {}
func (relay) Fire(proc.Env, proc.Timer) {}
func (r relay) Deliver(env proc.Env, _ proc.ID, m proc.Message) {
	if h := m.(hop); h.Left > 0 {
		env.Send(r.next, hop{h.Left - 1})
		return
	}
	env.Emit(proc.Event{Kind: proc.EvPermit})
}

// lockedSink is one stream written by several hosts.
type lockedSink struct {
	mu     sync.Mutex
	events []proc.Event
}

func (s *lockedSink) Event(e proc.Event) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
}

func (s *lockedSink) kinds(p proc.ID) []proc.EventKind {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ks []proc.EventKind
	for _, e := range s.events {
		if e.P == p {
			ks = append(ks, e.Kind)
		}
	}
	return ks
}

// TestHostsShareAWorld: two hosts, as two nodes would, host processes
// {0, 1} and {2} of one ring on one transport; a shared Pending count sees
// the token's 30 hops through and then the world quiet.
func TestHostsShareAWorld(t *testing.T) {
	tr := mem.New(mem.Config{Delay: dist.Uniform(0, 3), FIFO: true, Tick: 100 * time.Microsecond})
	defer tr.Close()
	pending := host.NewPending()
	sink := &lockedSink{}
	epoch := time.Now()
	cfg := host.Config{Transport: tr, Tick: 100 * time.Microsecond, Epoch: epoch, Sink: sink, Pending: pending, TraceMessages: true}
	a, err := host.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := host.New(cfg)
	permits := make(chan proc.ID, 1)
	follow := func(env proc.Env, e proc.Event) { permits <- env.Self() }
	pending.Add(1) // hold while setting up
	for _, err := range []error{
		a.Add(0, relay{next: 1}, follow), a.Add(1, relay{next: 2}, follow), b.Add(2, relay{next: 0}, follow),
		a.Call(0, func(env proc.Env) { env.Send(1, hop{29}) }),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	pending.Done()
	select {
	case <-pending.Quiet():
	case <-time.After(10 * time.Second):
		t.Fatal("the world never went quiet")
	}
	if p := <-permits; p != 0 { // 30 hops from 0: 1, 2, 0, ... ends at 0
		t.Errorf("the token ended at p%d, want p0", p)
	}
	a.Close()
	b.Close()
	sa, sb := a.Stats(), b.Stats()
	if d := sa.Delivered + sb.Delivered; d != 30 || sa.Messages+sb.Messages != 30 {
		t.Errorf("%d delivered, %d sent, want 30", d, sa.Messages+sb.Messages)
	}
	if sb.Delivered != 10 {
		t.Errorf("host b delivered %d hops to p2, want 10", sb.Delivered)
	}
	for _, err := range []error{a.Err(), b.Err()} {
		if err != nil {
			t.Error(err)
		}
	}
}

func newHost(t *testing.T, onError func(error)) (*host.Host, *lockedSink) {
	t.Helper()
	tr := mem.New(mem.Config{Delay: dist.Const(1), Tick: 100 * time.Microsecond})
	t.Cleanup(func() { tr.Close() })
	sink := &lockedSink{}
	h, err := host.New(host.Config{Transport: tr, Tick: 100 * time.Microsecond, Sink: sink, OnError: onError})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, sink
}

// await runs f on p's goroutine and waits for it.
func await(t *testing.T, h *host.Host, p proc.ID, f func(env proc.Env)) {
	t.Helper()
	done := make(chan struct{})
	if err := h.Call(p, func(env proc.Env) { f(env); close(done) }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("call never ran")
	}
}

// TestCrash: a crashed process is on the stream once, handles nothing
// more, and refuses calls.
func TestCrash(t *testing.T) {
	h, sink := newHost(t, nil)
	permits := make(chan proc.ID, 10)
	follow := func(env proc.Env, e proc.Event) { permits <- env.Self() }
	for id := proc.ID(0); id < 2; id++ {
		if err := h.Add(id, relay{next: 1 - id}, follow); err != nil {
			t.Fatal(err)
		}
	}
	await(t, h, 0, func(env proc.Env) { env.Send(1, hop{0}) })
	if p := <-permits; p != 1 {
		t.Fatalf("permit at p%d, want p1", p)
	}
	if err := h.Crash(1); err != nil {
		t.Fatal(err)
	}
	if err := h.Crash(1); err != nil {
		t.Errorf("second crash: %v", err)
	}
	if !h.Crashed(1) || h.Crashed(0) {
		t.Errorf("crashed: p0 %v, p1 %v", h.Crashed(0), h.Crashed(1))
	}
	if err := h.Call(1, func(proc.Env) {}); !errors.Is(err, host.ErrCrashed) {
		t.Errorf("call to a crashed process: %v", err)
	}
	if err := h.Crash(7); !errors.Is(err, host.ErrUnknown) {
		t.Errorf("crash of an unknown process: %v", err)
	}
	await(t, h, 0, func(env proc.Env) { env.Send(1, hop{0}) })
	time.Sleep(20 * time.Millisecond)
	select {
	case p := <-permits:
		t.Errorf("crashed p%d answered", p)
	default:
	}
	if got := sink.kinds(1); len(got) != 2 || got[0] != proc.EvPermit || got[1] != proc.EvCrash {
		t.Errorf("p1's events: %v, want permit, crash", got)
	}
}

// TestRemove: a removed process is unregistered (a send to it is an
// error reported to OnError, not a panic) and the id can be hosted again.
func TestRemove(t *testing.T) {
	errs := make(chan error, 10)
	h, _ := newHost(t, func(err error) { errs <- err })
	permits := make(chan proc.ID, 10)
	follow := func(env proc.Env, e proc.Event) { permits <- env.Self() }
	for id := proc.ID(0); id < 2; id++ {
		if err := h.Add(id, relay{next: 1 - id}, follow); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Add(1, relay{}, nil); err == nil {
		t.Error("p1 added twice")
	}
	if err := h.Remove(1); err != nil {
		t.Fatal(err)
	}
	if err := h.Remove(1); !errors.Is(err, host.ErrUnknown) {
		t.Errorf("second remove: %v", err)
	}
	await(t, h, 0, func(env proc.Env) { env.Send(1, hop{0}) })
	select {
	case err := <-errs:
		if !strings.Contains(err.Error(), "process 0") || !strings.Contains(err.Error(), "unknown process 1") {
			t.Errorf("send error: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a send to a removed process was not reported")
	}
	if err := h.Add(1, relay{next: 0}, follow); err != nil {
		t.Fatal(err)
	}
	await(t, h, 0, func(env proc.Env) { env.Send(1, hop{1}) })
	select {
	case p := <-permits:
		if p != 0 {
			t.Errorf("permit at p%d, want p0", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the process added again never answered")
	}
	if h.Err() == nil {
		t.Error("Err forgot the send error")
	}
}

func TestClose(t *testing.T) {
	before := goroutines()
	tr := mem.New(mem.Config{})
	h, err := host.New(host.Config{Transport: tr})
	if err != nil {
		t.Fatal(err)
	}
	for id := proc.ID(0); id < 5; id++ {
		if err := h.Add(id, relay{next: (id + 1) % 5}, nil); err != nil {
			t.Fatal(err)
		}
	}
	h.CallAfter(0, 1000, func(proc.Env) { t.Error("a call ran after Close") })
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := h.Add(9, relay{}, nil); !errors.Is(err, host.ErrClosed) {
		t.Errorf("add after Close: %v", err)
	}
	if err := tr.Register(0, func(proc.ID, proc.Message) {}); err != nil {
		t.Errorf("Close left p0 registered: %v", err)
	}
	tr.Close()
	if _, err := host.New(host.Config{}); err == nil {
		t.Error("a host without a transport")
	}
	if n := settle(before); n > before {
		t.Errorf("goroutine leak: %d after Close, %d before", n, before)
	}
}

// echo answers every ping with a pong.
type echo struct{}

type ping struct{}
type pong struct{}

func (ping) Kind() string { return "ping" }
func (pong) Kind() string { return "pong" }

func (echo) Start(proc.Env)            {}
func (echo) Fire(proc.Env, proc.Timer) {}
func (echo) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	switch m.(type) {
	case ping:
		env.Send(from, pong{})
	case pong:
		env.Emit(proc.Event{Kind: proc.EvPermit})
	}
}

// A host of two processes on an in-memory transport: the application
// makes p0 ping p1 and follows p0's events.
func ExampleHost() {
	tr := mem.New(mem.Config{Delay: dist.Const(2)})
	defer tr.Close()
	h, _ := host.New(host.Config{Transport: tr})
	defer h.Close()
	answered := make(chan proc.Event)
	h.Add(0, echo{}, func(_ proc.Env, e proc.Event) { answered <- e })
	h.Add(1, echo{}, nil)
	h.Call(0, func(env proc.Env) { env.Send(1, ping{}) })
	e := <-answered
	fmt.Printf("p%d: %v; a round trip took at least 4 ticks: %v\n", e.P, e.Kind, e.Time >= 4)
	// Output: p0: permit; a round trip took at least 4 ticks: true
}
