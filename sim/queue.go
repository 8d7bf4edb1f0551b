package sim

import (
	"container/heap"
	"math/bits"

	"github.com/allot-dev/allot/proc"
)

// itemKind is what a queued item does when its time comes.
type itemKind uint8

const (
	itemDeliver itemKind = iota // deliver payload (a proc.Message) from `from`
	itemFire                    // fire payload (a proc.Timer)
	itemWake                    // the application's next step at `to`
	itemCrash                   // `to` fails
	itemRestart                 // `to` comes back from what it persisted
	itemPause                   // `to` stops until payload (a proc.Time)
	itemResume                  // the pause of `to` that ends now (payload) is over
)

// item is one scheduled input. payload is the message or the timer.
type item struct {
	at proc.Time
	to proc.ID
	// from is the sender of a delivery (≥ 0); an item of another kind
	// stores −kind here, which keeps an item at 32 bytes.
	from    proc.ID
	payload any
}

// local makes an item of a kind other than delivery.
func local(at proc.Time, to proc.ID, k itemKind, payload any) item {
	return item{at: at, to: to, from: -proc.ID(k), payload: payload}
}

func (it *item) kind() itemKind {
	if it.from >= 0 {
		return itemDeliver
	}
	return itemKind(-it.from)
}

// queue orders items by (time, insertion sequence): a calendar of window
// buckets, one per tick, for the near future, and a heap for the far future.
//
//	now                 now+window
//	 |  bucket per tick    |   far heap, ordered by (time, seq)
//	 [][][][][][][][][][][]|  ......................
//
// Every item in bucket t%window has time exactly t (an item further away
// than the window goes to the heap), so a bucket is a FIFO and its order is
// insertion order. Far items move into their bucket as soon as the window
// reaches them, before anything else can be inserted at their time, so the
// (time, seq) order holds across both parts. Push and pop are O(1) for the
// near future, which is where message delays and timers live.
//
// A bucket is a list of fixed-size chunks drawn from a shared free list, so
// memory follows the items in flight (not the peak of every bucket), while
// a bucket is still read front to back through contiguous arrays.
type queue struct {
	now     proc.Time
	buckets [window]bucket
	nonzero [window / 64]uint64 // bit b set: bucket b is not empty
	near    int                 // items in buckets
	far     farHeap
	seq     uint64
	spare   []*chunk // free chunks
}

const window = 1 << 12

type bucket struct {
	head, tail *chunk
	read       int32 // next item to pop in head
}

const chunkSize = 64

type chunk struct {
	items [chunkSize]item
	n     int32 // items written
	next  *chunk
}

func (q *queue) len() int { return q.near + len(q.far) }

func (q *queue) push(it item) {
	if it.at < q.now {
		panic("sim: item scheduled in the past")
	}
	if it.at-q.now >= window {
		q.seq++
		heap.Push(&q.far, farItem{it, q.seq})
		return
	}
	q.append(it)
}

// append adds it at the end of its bucket.
func (q *queue) append(it item) {
	b := int(it.at & (window - 1))
	bk := &q.buckets[b]
	if bk.tail == nil || bk.tail.n == chunkSize {
		c := q.newChunk()
		if bk.tail == nil {
			bk.head = c
		} else {
			bk.tail.next = c
		}
		bk.tail = c
	}
	bk.tail.items[bk.tail.n] = it
	bk.tail.n++
	q.nonzero[b>>6] |= 1 << (b & 63)
	q.near++
}

// pop removes the first item. ok is false when the queue is empty.
func (q *queue) pop() (it item, ok bool) {
	for {
		if q.near > 0 {
			b := q.nextBucket()
			// Moving to bucket b's time: first pull in far items the window
			// now reaches.
			t := q.now + proc.Time((b-int(q.now&(window-1))+window)&(window-1))
			q.advance(t)
			bk := &q.buckets[b]
			c := bk.head
			it = c.items[bk.read]
			c.items[bk.read] = item{} // let the payload be collected
			bk.read++
			if bk.read == c.n {
				bk.head, bk.read = c.next, 0
				if bk.head == nil {
					bk.tail = nil
					q.nonzero[b>>6] &^= 1 << (b & 63)
				}
				c.n, c.next = 0, nil
				q.spare = append(q.spare, c)
			}
			q.near--
			return it, true
		}
		if len(q.far) == 0 {
			return item{}, false
		}
		q.advance(q.far[0].at)
	}
}

// ahead returns up to n items that follow the one just popped in its
// bucket, without removing them: a cheap look ahead.
func (q *queue) ahead(n int32) []item {
	bk := &q.buckets[q.now&(window-1)]
	c := bk.head
	if c == nil {
		return nil
	}
	return c.items[bk.read:min(c.n, bk.read+n)]
}

func (q *queue) newChunk() *chunk {
	if n := len(q.spare); n > 0 {
		c := q.spare[n-1]
		q.spare = q.spare[:n-1]
		return c
	}
	return new(chunk)
}

// advance moves the clock to t and pulls far items inside the new window
// into their buckets, in (time, seq) order.
func (q *queue) advance(t proc.Time) {
	q.now = t
	for len(q.far) > 0 && q.far[0].at-t < window {
		q.append(heap.Pop(&q.far).(farItem).item)
	}
}

// nextBucket finds the first non-empty bucket at or after now (cyclically).
func (q *queue) nextBucket() int {
	start := int(q.now & (window - 1))
	w := start >> 6
	if m := q.nonzero[w] >> (start & 63); m != 0 {
		return start + bits.TrailingZeros64(m)
	}
	for i := 1; i <= len(q.nonzero); i++ {
		wi := (w + i) % len(q.nonzero)
		if q.nonzero[wi] != 0 {
			return wi<<6 + bits.TrailingZeros64(q.nonzero[wi])
		}
	}
	panic("sim: near count out of step with the buckets")
}

type farItem struct {
	item
	seq uint64
}

type farHeap []farItem

func (h farHeap) Len() int { return len(h) }
func (h farHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h farHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *farHeap) Push(x any)   { *h = append(*h, x.(farItem)) }
func (h *farHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
