package host_test

import (
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/allot-dev/allot/host"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport"
	tgrpc "github.com/allot-dev/allot/transport/grpc"
	"github.com/allot-dev/allot/transport/mem"
)

// countingTransport counts the messages handed to it.
type countingTransport struct {
	transport.Transport
	sends atomic.Int64
}

func (c *countingTransport) Send(from, to proc.ID, m proc.Message) error {
	c.sends.Add(1)
	return c.Transport.Send(from, to, m)
}

// seq is a numbered message.
type seq struct{ N int }

func (seq) Kind() string { return "seq" }

// inOrder checks that seqs arrive numbered 0, 1, 2, ... and emits a
// permit after the last.
type inOrder struct {
	next, last int
	bad        *atomic.Int64
}

func (*inOrder) Start(proc.Env)            {}
func (*inOrder) Fire(proc.Env, proc.Timer) {}
func (o *inOrder) Deliver(env proc.Env, _ proc.ID, m proc.Message) {
	if m.(seq).N != o.next {
		o.bad.Add(1)
	}
	o.next++
	if o.next == o.last {
		env.Emit(proc.Event{Kind: proc.EvPermit})
	}
}

// TestDirect: with Config.Direct, 1000 messages between two processes of
// one host never reach the transport and arrive in order, and one to a
// process of another host still goes through it; without Direct every
// message does.
func TestDirect(t *testing.T) {
	for _, direct := range []bool{true, false} {
		tr := &countingTransport{Transport: mem.New(mem.Config{FIFO: true})}
		cfg := host.Config{Transport: tr, Direct: direct}
		a, err := host.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := host.New(cfg)
		var bad atomic.Int64
		done := make(chan proc.ID, 2)
		follow := func(env proc.Env, e proc.Event) { done <- env.Self() }
		const n = 1000
		for _, err := range []error{
			a.Add(0, &inOrder{last: 1, bad: &bad}, nil),
			a.Add(1, &inOrder{last: n, bad: &bad}, follow),
			b.Add(2, &inOrder{last: 1, bad: &bad}, follow),
			a.Call(0, func(env proc.Env) {
				for i := range n {
					env.Send(1, seq{i})
				}
				env.Send(2, seq{0})
			}),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
		for range 2 {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("direct %v: 10s and the messages have not all arrived", direct)
			}
		}
		want := int64(n + 1)
		if direct {
			want = 1 // only the one to the other host
		}
		if got := tr.sends.Load(); got != want || bad.Load() != 0 {
			t.Errorf("direct %v: %d messages through the transport (want %d), %d out of order", direct, got, want, bad.Load())
		}
		if s := a.Stats(); s.Messages != n+1 || s.Delivered != n {
			t.Errorf("direct %v: stats %+v, want %d sent, %d delivered", direct, s, n+1, n)
		}
		a.Close()
		b.Close()
		tr.Close()
	}
}

// bouncer sends every hop it gets back to its sender, with one hop less;
// at zero it emits a permit.
type bouncer struct{}

func (bouncer) Start(proc.Env)            {}
func (bouncer) Fire(proc.Env, proc.Timer) {}
func (bouncer) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if h := m.(hop); h.Left > 0 {
		env.Send(from, hop{h.Left - 1})
		return
	}
	env.Emit(proc.Event{Kind: proc.EvPermit})
}

// noCodec is a codec for a node whose messages never leave it.
type noCodec struct{}

func (noCodec) AppendMessage([]byte, proc.Message) ([]byte, error) {
	return nil, errors.New("not for the wire")
}
func (noCodec) DecodeMessage([]byte) (proc.Message, error) {
	return nil, errors.New("not for the wire")
}

// BenchmarkLocalHop bounces a message between two processes of one host:
// one op is one hop. Through the transport, the in-memory one (no
// delays) or a service node's (transport/grpc, whose local path is its
// dispatcher goroutine), and with Direct.
func BenchmarkLocalHop(b *testing.B) {
	for _, how := range []string{"mem", "node", "direct"} {
		b.Run(how, func(b *testing.B) {
			var tr transport.Transport = mem.New(mem.Config{FIFO: true})
			if how != "mem" {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					b.Fatal(err)
				}
				if tr, err = tgrpc.New(tgrpc.Config{Node: "a", Listener: ln, Codec: noCodec{},
					Place: func(string, proc.ID) (string, bool) { return "a", true }}); err != nil {
					b.Fatal(err)
				}
			}
			defer tr.Close()
			h, err := host.New(host.Config{Transport: tr, Direct: how == "direct"})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			done := make(chan struct{}, 1)
			follow := func(proc.Env, proc.Event) { done <- struct{}{} }
			if err := errors.Join(h.Add(0, bouncer{}, follow), h.Add(1, bouncer{}, follow)); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			if err := h.Call(0, func(env proc.Env) { env.Send(1, hop{b.N}) }); err != nil {
				b.Fatal(err)
			}
			<-done
		})
	}
}
