package threshold

import "math/bits"

// indexFrom is the number of neighbours from which a process keeps an
// index: below it, step's look at every neighbour costs less than the
// index's upkeep and memory (a ring's processes stay as small as they
// were).
const indexFrom = 64

// index is the sets of neighbours step acts on, kept as the flags change,
// so that step costs the neighbours it acts on, not all of them: on
// complete:3000 every message made three looks at 2999 flags, and a
// request takes tens of thousands of messages there (threshold answered a
// few requests a minute). It is a function of the flags alone: the
// actions, and the order they are taken in (by neighbour), are the ones
// the plain looks take (TestIndexedStepsAsThePlain).
type index struct {
	give  bitset // P's guard: the fork, its token, and the neighbour has priority
	yield bitset // R's: the fork and its token
	askUp bitset // H's before the threshold point: no fork, the token, the neighbour has priority
	ask   bitset // H's at it: no fork, the token
	short int    // neighbours with priority whose fork p lacks: p.tp iff none
	lack  int    // forks p lacks: E is enabled for a hungry p iff none
}

func newIndex(flags []uint8) *index {
	n := (len(flags) + 63) / 64
	x := &index{give: make(bitset, n), yield: make(bitset, n), askUp: make(bitset, n), ask: make(bitset, n)}
	for i, f := range flags {
		x.move(i, fFork, f) // from a flag in no count: p holds that fork, of a neighbour without priority
	}
	return x
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// move is flag i going from old to f.
func (x *index) move(i int, old, f uint8) {
	x.give.put(i, f&(fFork|fTok|fHigher) == fFork|fTok|fHigher)
	x.yield.put(i, f&(fFork|fTok) == fFork|fTok)
	x.askUp.put(i, f&(fFork|fTok|fHigher) == fTok|fHigher)
	x.ask.put(i, f&(fFork|fTok) == fTok)
	x.short += b2i(f&(fHigher|fFork) == fHigher) - b2i(old&(fHigher|fFork) == fHigher)
	x.lack += b2i(f&fFork == 0) - b2i(old&fFork == 0)
}

// bitset is a set of neighbour indexes.
type bitset []uint64

func (s bitset) put(i int, in bool) {
	if in {
		s[i/64] |= 1 << (i % 64)
	} else {
		s[i/64] &^= 1 << (i % 64)
	}
}

// next is the least member at or after i, or -1.
func (s bitset) next(i int) int {
	w := i / 64
	if w >= len(s) {
		return -1
	}
	if m := s[w] >> (i % 64); m != 0 {
		return i + bits.TrailingZeros64(m)
	}
	for w++; w < len(s); w++ {
		if s[w] != 0 {
			return w*64 + bits.TrailingZeros64(s[w])
		}
	}
	return -1
}
