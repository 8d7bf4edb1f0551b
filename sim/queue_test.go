package sim

import (
	"testing"

	"github.com/allot-dev/allot/proc"

	"pgregory.net/rapid"
)

// TestQueueOrder checks the calendar queue against the definition: items
// come out by (time, insertion order), across the near buckets, the far
// heap and the window moving over both.
func TestQueueOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q queue
		type ref struct {
			at  proc.Time
			seq int
		}
		var pending []ref
		seq := 0
		ops := rapid.IntRange(1, 400).Draw(t, "ops")
		for i := 0; i < ops; i++ {
			if len(pending) > 0 && rapid.Bool().Draw(t, "pop") {
				it, ok := q.pop()
				if !ok {
					t.Fatalf("pop on %d pending items found nothing", len(pending))
				}
				// The reference minimum by (at, seq).
				m := 0
				for j, r := range pending {
					if r.at < pending[m].at || r.at == pending[m].at && r.seq < pending[m].seq {
						m = j
					}
				}
				if got := (ref{it.at, int(it.from)}); got != pending[m] {
					t.Fatalf("popped %+v, want %+v", got, pending[m])
				}
				pending = append(pending[:m], pending[m+1:]...)
				continue
			}
			// Near, boundary and far delays.
			d := rapid.OneOf(rapid.Int64Range(0, 10), rapid.Int64Range(window-3, window+3), rapid.Int64Range(0, 5*window)).Draw(t, "delay")
			at := q.now + proc.Time(d)
			q.push(item{at: at, from: proc.ID(seq)})
			pending = append(pending, ref{at, seq})
			seq++
		}
		for range pending {
			if _, ok := q.pop(); !ok {
				t.Fatal("queue lost items")
			}
		}
		if _, ok := q.pop(); ok || q.len() != 0 {
			t.Fatal("queue has items left")
		}
	})
}
