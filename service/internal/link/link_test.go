package link

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/proc"
)

// pipe is one direction-pair of an in-memory stream; breaking it loses
// whatever is still in its buffers, as a cut connection does. It loses
// every bare acknowledgement too, so that a cut leaves delivered frames
// unacknowledged and the sender resends them: the receiver must drop them.
type pipe struct {
	in, out chan *pb.Frame
	broken  chan struct{}
}

var errBroken = errors.New("broken")

func (p pipe) Send(f *pb.Frame) error {
	if f.Seq == 0 {
		return nil // bare acks are lost: only acks riding on data arrive
	}
	select {
	case p.out <- f:
		return nil
	case <-p.broken:
		return errBroken
	}
}

func (p pipe) Recv() (*pb.Frame, error) {
	select {
	case f := <-p.in:
		return f, nil
	case <-p.broken:
		return nil, errBroken
	}
}

func newPipes() (a, b pipe, cut func()) {
	ab, ba := make(chan *pb.Frame, 64), make(chan *pb.Frame, 64)
	broken := make(chan struct{})
	var once sync.Once
	return pipe{ba, ab, broken}, pipe{ab, ba, broken}, func() { once.Do(func() { close(broken) }) }
}

// TestExactlyOnceInOrderAcrossCuts sends messages both ways while the
// stream is cut and replaced every few milliseconds: each message arrives
// once, in the order sent.
func TestExactlyOnceInOrderAcrossCuts(t *testing.T) {
	const k = 3000
	var mu sync.Mutex
	got := [2][]int32{}
	done := make(chan struct{})
	total := 0
	deliver := func(side int) func(*pb.Frame) {
		return func(f *pb.Frame) {
			mu.Lock()
			defer mu.Unlock()
			got[side] = append(got[side], f.From)
			if total++; total == 2*k {
				close(done)
			}
		}
	}
	a, b := New(0, 1, deliver(0), nil), New(1, 0, deliver(1), nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	cuts := 0
	wg.Go(func() {
		for ctx.Err() == nil {
			pa, pb, cut := newPipes()
			var inner sync.WaitGroup
			inner.Go(func() { a.Attach(ctx, pa) })
			inner.Go(func() { b.Attach(ctx, pb) })
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Millisecond):
			}
			cut()
			inner.Wait()
			cuts++
		}
	})
	for i := range int32(k) {
		a.Send("x", proc.ID(i), 1, nil)
		b.Send("x", proc.ID(i), 0, nil)
		if i%100 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%d of %d messages delivered", total, 2*k)
	}
	time.Sleep(10 * time.Millisecond) // a duplicate would arrive now
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for side, seq := range got {
		if len(seq) != k {
			t.Errorf("side %d got %d messages, want %d", side, len(seq), k)
		}
		for i, from := range seq {
			if from != int32(i) {
				t.Fatalf("side %d: message %d is %d (lost, repeated or reordered)", side, i, from)
			}
		}
	}
	if cuts < 5 {
		t.Errorf("only %d cuts", cuts)
	}
	t.Logf("%d messages each way over %d streams", k, cuts)
}
