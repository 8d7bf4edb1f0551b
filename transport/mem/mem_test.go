package mem_test

import (
	"testing"
	"time"

	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport"
	"github.com/allot-dev/allot/transport/mem"
	"github.com/allot-dev/allot/transport/transporttest"
)

func TestContractUnordered(t *testing.T) {
	transporttest.Run(t, func(t testing.TB) transport.Transport {
		return mem.New(mem.Config{Delay: dist.Uniform(0, 20), Tick: 100 * time.Microsecond, Seed: 1})
	})
}

func TestContractFIFO(t *testing.T) {
	transporttest.Run(t, func(t testing.TB) transport.Transport {
		return mem.New(mem.Config{Delay: dist.Uniform(0, 20), FIFO: true, Tick: 100 * time.Microsecond, Seed: 1})
	})
}

// order sends k messages on one link and counts how many arrive before one
// sent earlier.
func order(t *testing.T, fifo bool) (inversions int) {
	t.Helper()
	tr := mem.New(mem.Config{Delay: dist.Uniform(0, 20), FIFO: fifo, Tick: 100 * time.Microsecond, Seed: 3})
	defer tr.Close()
	const k = 200
	got := make(chan int32, k)
	if err := tr.Register(1, func(_ proc.ID, m proc.Message) { got <- m.(transporttest.Msg).Seq }); err != nil {
		t.Fatal(err)
	}
	for s := int32(0); s < k; s++ {
		if err := tr.Send(0, 1, transporttest.Msg{Seq: s}); err != nil {
			t.Fatal(err)
		}
	}
	last := int32(-1)
	for range k {
		s := <-got
		if s < last {
			inversions++
		}
		last = s
	}
	return inversions
}

// TestUnorderedOvertakes: each message draws its own delay, so on an
// unordered link messages overtake each other; on a FIFO link the same
// delays overtake nothing (the suite's FIFO test shows it, this one shows
// the unordered network is really unordered).
func TestUnorderedOvertakes(t *testing.T) {
	if n := order(t, false); n == 0 {
		t.Error("200 messages with delays 0..20 ticks arrived in send order on an unordered link")
	}
	if n := order(t, true); n != 0 {
		t.Errorf("%d inversions on a FIFO link", n)
	}
}
