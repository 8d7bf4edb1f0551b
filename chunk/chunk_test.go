package chunk

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// op is one step of a test: set the limits of a view (grew: its answer),
// reserve in a view (ok: its answer), overdraw, or settle.
type op struct {
	kind   string // "set", "reserve", "overdraw", "settle"
	epoch  uint64
	q      int
	limits []int64 // set: per quota, -1 for none
	k      int     // settle
	count  uint64  // settle
	want   bool    // set: grew; reserve: reserved
}

func set(epoch uint64, want bool, limits ...int64) op {
	return op{kind: "set", epoch: epoch, limits: limits, want: want}
}
func reserve(epoch uint64, q int, want bool) op {
	return op{kind: "reserve", epoch: epoch, q: q, want: want}
}
func settle(q, k int, count uint64) op { return op{kind: "settle", q: q, k: k, count: count} }

func limitOf(l []int64) func(int) (uint64, bool) {
	return func(i int) (uint64, bool) {
		if l[i] < 0 {
			return 0, false
		}
		return uint64(l[i]), true
	}
}

func TestQuotas(t *testing.T) {
	for _, c := range []struct {
		name   string
		counts []uint64
		ops    []op
		want   []uint64 // the counts at the end
	}{
		{"nothing before a view", []uint64{0}, []op{reserve(0, 0, false), reserve(1, 0, false)}, []uint64{0}},
		{"within the limit, then at it", []uint64{3}, []op{
			set(5, true, 5), reserve(5, 0, true), reserve(5, 0, true), reserve(5, 0, false),
		}, []uint64{3}},
		{"reserved counts against the limit until settled", []uint64{3}, []op{
			set(5, true, 5), reserve(5, 0, true), reserve(5, 0, true),
			settle(0, 1, 4), reserve(5, 0, false), // issued: counted now
			settle(0, 1, 0), reserve(5, 0, true), // not issued: its room is back
		}, []uint64{4}},
		{"another view's limits: no", []uint64{0}, []op{
			set(5, true, 9), reserve(4, 0, false), reserve(6, 0, false), reserve(5, 0, true),
		}, []uint64{0}},
		{"no limit in the view: nothing", []uint64{0, 0}, []op{
			set(5, true, -1, 2), reserve(5, 0, false), reserve(5, 1, true),
		}, []uint64{0, 0}},
		{"a limit of 0: nothing", []uint64{0}, []op{set(5, true, 0), reserve(5, 0, false)}, []uint64{0}},
		{"a limit below the count: nothing", []uint64{7}, []op{set(5, true, 6), reserve(5, 0, false)}, []uint64{7}},
		{"the report commits: grew, and one more", []uint64{0}, []op{
			set(5, true, 1), reserve(5, 0, true), settle(0, 1, 1), reserve(5, 0, false),
			set(5, false, 1), // the same: nothing grew
			set(5, true, 2), reserve(5, 0, true),
		}, []uint64{1}},
		{"a new view grew, whatever its limits", []uint64{0}, []op{
			set(5, true, 3), set(6, true, 3), set(6, false, 3), set(7, true, 1), set(7, false, -1),
		}, []uint64{0}},
		{"one quota's limit grew", []uint64{0, 0}, []op{set(5, true, 2, 2), set(5, false, 2, 1), set(5, true, 2, 2)}, []uint64{0, 0}},
		{"no chunk: any count goes", []uint64{1 << 40}, []op{set(5, true, math.MaxInt64), reserve(5, 0, true)}, []uint64{1 << 40}},
		{"settled out of order: the count never goes back", []uint64{0}, []op{
			set(5, true, 9), reserve(5, 0, true), reserve(5, 0, true),
			settle(0, 1, 2), settle(0, 1, 1),
		}, []uint64{2}},
		{"overdrawn: past the limit, held against it", []uint64{2}, []op{
			set(5, true, 3), {kind: "overdraw"}, {kind: "overdraw"}, reserve(5, 0, false),
			settle(0, 2, 4), set(5, true, 4), reserve(5, 0, false), set(5, true, 5), reserve(5, 0, true),
		}, []uint64{4}},
		{"quotas apart", []uint64{0, 5}, []op{
			set(5, true, 1, 6), reserve(5, 0, true), reserve(5, 0, false), reserve(5, 1, true), reserve(5, 1, false),
		}, []uint64{0, 5}},
	} {
		q := New(c.counts)
		for j, o := range c.ops {
			switch o.kind {
			case "set":
				if got := q.Set(o.epoch, limitOf(o.limits)); got != o.want {
					t.Errorf("%s: step %d: Set(%d, %v) grew %v, want %v", c.name, j, o.epoch, o.limits, got, o.want)
				}
			case "reserve":
				if got := q.Reserve(o.epoch, o.q); got != o.want {
					t.Errorf("%s: step %d: Reserve(%d, %d) = %v, want %v", c.name, j, o.epoch, o.q, got, o.want)
				}
			case "overdraw":
				q.Overdraw(o.q)
			case "settle":
				q.Settle(o.q, o.k, o.count)
			}
		}
		if got := q.Counts(); !slices.Equal(got, c.want) {
			t.Errorf("%s: counts %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCountsCopied: New and Counts copy, the driver's slices are its own.
func TestCountsCopied(t *testing.T) {
	in := []uint64{1, 2}
	q := New(in)
	in[0] = 9
	out := q.Counts()
	out[1] = 9
	if got := q.Counts(); !slices.Equal(got, []uint64{1, 2}) || q.Len() != 2 || q.Count(1) != 2 {
		t.Errorf("counts %v, len %d", got, q.Len())
	}
}

// TestBound: whatever a node's Takes do — reserve, issue and settle with
// the count on disk, give up, in any order, while the limits grow and
// views change — a reservation never leaves the count plus the
// reservations past the limit of the view it is made in; one is refused
// only there; and the counts are what went on disk.
func TestBound(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		const k = 2
		q := New([]uint64{uint64(r.IntN(5)), 0})
		epoch := uint64(1)
		limits := []int64{int64(q.Count(0)) + 2, 3}
		q.Set(epoch, limitOf(limits))
		var held [k]int // reservations not settled
		disk := q.Counts()
		for step := range 300 {
			i := r.IntN(k)
			switch r.IntN(6) {
			case 0, 1, 2:
				before := q.Count(i) + uint64(held[i])
				if q.Reserve(epoch, i) {
					held[i]++
					if got := q.Count(i) + uint64(held[i]); got > uint64(limits[i]) {
						t.Fatalf("seed %d step %d: quota %d: %d counted and reserved, past the limit %d", seed, step, i, got, limits[i])
					}
				} else if limits[i] >= 0 && before < uint64(limits[i]) {
					t.Fatalf("seed %d step %d: quota %d refused at %d below the limit %d", seed, step, i, before, limits[i])
				}
			case 3:
				if held[i] == 0 {
					continue
				}
				n := 1 + r.IntN(held[i])
				issued := r.IntN(n + 1) // the rest given up
				disk[i] += uint64(issued)
				c := disk[i]
				if issued == 0 && r.IntN(2) == 0 {
					c = 0
				}
				q.Settle(i, n, c)
				held[i] -= n
			case 4: // a report commits: the limit grows by what was counted
				limits[i] = max(limits[i], 0) + int64(r.IntN(3))
				q.Set(epoch, limitOf(limits))
			case 5: // a new view: the limit from the count now
				if r.IntN(4) == 0 {
					epoch++
					for j := range limits {
						limits[j] = int64(q.Count(j)) + int64(r.IntN(3)) - 1
					}
					q.Set(epoch, limitOf(limits))
				}
			}
			if got := q.Counts(); !slices.Equal(got, disk) {
				t.Fatalf("seed %d step %d: counts %v, disk %v", seed, step, got, disk)
			}
		}
	}
}
