package control

import (
	"math"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// TestLedgerChunks: with a chunk, a member away from a view holds back
// its last report plus one chunk, not the view's whole left; what the
// next view may issue, case by case.
func TestLedgerChunks(t *testing.T) {
	const chunk = 5
	for _, tc := range []struct {
		name    string
		reports map[int32]uint64 // committed reports in the first view, before node 2 is left out
		final   [2]uint64        // what 0 and 1 issued in it (their readies in the next view)
		want    QuotaLeft
	}{
		// 2 never reported: it may have issued a chunk.
		{"no report", nil, [2]uint64{10, 20}, QuotaLeft{Name: "q", Left: 100 - 30 - chunk, Reserve: chunk}},
		// 2 reported 7: it may have issued 7 and a chunk.
		{"a report", map[int32]uint64{2: 7}, [2]uint64{10, 20}, QuotaLeft{Name: "q", Left: 100 - 30 - 7 - chunk, Reserve: chunk}},
		// Reports of those who came back count for nothing: their readies are final.
		{"their reports", map[int32]uint64{0: 3, 2: 4}, [2]uint64{10, 20}, QuotaLeft{Name: "q", Left: 100 - 30 - 4 - chunk, Reserve: chunk}},
		// Never more than the view's left is held.
		{"whole left", map[int32]uint64{2: 70}, [2]uint64{10, 20}, QuotaLeft{Name: "q", Left: 0, Reserve: 0}},
		{"capped", map[int32]uint64{2: 68}, [2]uint64{10, 20}, QuotaLeft{Name: "q", Left: 0, Reserve: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &ledger{t: t, s: NewState([]Quota{{Name: "q", Budget: 100, Chunk: chunk}})}
			for k := range int32(3) {
				l.apply(RejoinEntry{Node: k, Run: 1, Seq: 1})
			}
			all := map[int32]uint64{0: 1, 1: 1, 2: 1}
			e1 := l.view(all)
			for k := range int32(3) {
				l.apply(ReadyEntry{Epoch: e1, Node: k, Gen: 1, Counts: []uint64{0}})
			}
			if lim, ok := l.s.Limit(2, e1, 0); !ok || lim != chunk {
				t.Fatalf("node 2 may reach %d (%v), want a chunk", lim, ok)
			}
			for k := range int32(3) {
				if c, ok := tc.reports[k]; ok {
					l.apply(ReportEntry{Epoch: e1, Node: k, Gen: 1, Counts: []uint64{c}})
				}
			}
			if lim, _ := l.s.Limit(2, e1, 0); lim != tc.reports[2]+chunk {
				t.Fatalf("after its report node 2 may reach %d, want %d", lim, tc.reports[2]+chunk)
			}
			e2 := l.view(map[int32]uint64{0: 1, 1: 1})
			// A report after the view that leaves 2 out comes too late:
			// 2 may be serving e1 still, on the limit it had.
			l.apply(ReportEntry{Epoch: e1, Node: 2, Gen: 1, Counts: []uint64{tc.reports[2] + chunk}})
			l.apply(ReadyEntry{Epoch: e2, Node: 0, Gen: 1, Counts: []uint64{tc.final[0]}})
			l.apply(ReadyEntry{Epoch: e2, Node: 1, Gen: 1, Counts: []uint64{tc.final[1]}})
			if got := l.left(); got != tc.want {
				t.Fatalf("node 2 away: %+v, want %+v", got, tc.want)
			}
			if _, ok := l.s.Limit(0, e1, 0); ok {
				t.Fatal("node 0 may still issue in the view it ended")
			}
		})
	}
	// Without a chunk, the whole left is held (the bound before chunks).
	s := NewState([]Quota{{Name: "q", Budget: 100}})
	l := &ledger{t: t, s: s}
	for k := range int32(3) {
		l.apply(RejoinEntry{Node: k, Run: 1, Seq: 1})
	}
	e1 := l.view(map[int32]uint64{0: 1, 1: 1, 2: 1})
	for k := range int32(3) {
		l.apply(ReadyEntry{Epoch: e1, Node: k, Gen: 1, Counts: []uint64{0}})
	}
	if lim, ok := s.Limit(2, e1, 0); !ok || lim != math.MaxUint64 {
		t.Fatalf("no chunk: limit %d", lim)
	}
	e2 := l.view(map[int32]uint64{0: 1, 1: 1})
	l.apply(ReadyEntry{Epoch: e2, Node: 0, Gen: 1, Counts: []uint64{10}})
	l.apply(ReadyEntry{Epoch: e2, Node: 1, Gen: 1, Counts: []uint64{20}})
	if got := l.left(); got != (QuotaLeft{Name: "q", Left: 0, Reserve: 70}) {
		t.Fatalf("no chunk, node 2 away: %+v", got)
	}
}

// chunkRun is a random history of a 3-node cluster's quota: views of a
// majority, members issuing and reporting, members left out that go on
// issuing everything their last committed report allows (cut off, they
// do not know of the newer view), restarts on their data. It returns the
// permits issued in all.
func chunkRun(t *testing.T, seed uint64, broken Broken) uint64 {
	const budget, chunk = 60, 4
	rng := newRand(seed)
	l := &ledger{t: t, s: NewState([]Quota{{Name: "q", Budget: budget, Chunk: chunk}})}
	l.s.broken = broken
	var counts, runs [3]uint64
	gens := map[int32]uint64{}
	var cur map[int32]uint64 // the members of the open view
	var epoch, left uint64   // and what it may still issue
	for range 100 {
		// The members issue within their limits and the view's left, and
		// report now and then.
		for range rng.IntN(8) {
			k := int32(rng.IntN(3))
			g, in := cur[k]
			if !in {
				continue
			}
			if rng.IntN(3) == 0 {
				l.apply(ReportEntry{Epoch: epoch, Node: k, Gen: g, Counts: []uint64{counts[k]}})
				continue
			}
			lim, _ := l.s.Limit(proc.ID(k), epoch, 0)
			x := min(lim-counts[k], left, uint64(rng.IntN(chunk+1)))
			counts[k] += x
			left -= x
		}
		// A new view of a majority; the members left out issue all
		// their limit allows (as if cut off), then restart on their data.
		next := map[int32]uint64{}
		for k := range int32(3) {
			if rng.IntN(3) > 0 {
				next[k] = 0
			}
		}
		if len(next) < 2 {
			continue
		}
		for k := range int32(3) {
			_, was := cur[k]
			if _, in := next[k]; !was || in {
				continue
			}
			lim, _ := l.s.Limit(proc.ID(k), epoch, 0)
			x := min(lim-counts[k], left)
			counts[k] += x
			left -= x
			gens[k] = 0 // it rejoins below, its counts final
		}
		for k := range int32(3) {
			if _, in := next[k]; !in {
				continue
			}
			if gens[k] == 0 {
				runs[k]++
				l.apply(RejoinEntry{Node: k, Run: runs[k], Seq: 1, Counts: []uint64{counts[k]}})
				gens[k], _ = l.s.Gen(proc.ID(k), [2]uint64{runs[k], 1})
			}
			next[k] = gens[k]
		}
		epoch = l.view(next)
		for k := range int32(3) {
			g, in := next[k]
			if !in {
				continue
			}
			l.apply(ReadyEntry{Epoch: epoch, Node: k, Gen: g, Counts: []uint64{counts[k]}})
		}
		cur, left = next, l.left().Left
	}
	return counts[0] + counts[1] + counts[2]
}

// TestChunksNeverOverBudget: members that keep to their chunks never take
// the cluster past the budget, whatever views, reports and cut-off members
// a seed draws; a ledger that trusts the reports alone (NoChunk) does,
// on some seed of the same histories.
func TestChunksNeverOverBudget(t *testing.T) {
	seed := freshSeed(t)
	caught := false
	for r := range uint64(200) {
		s := seed + r
		if got := chunkRun(t, s, 0); got > 60 {
			t.Fatalf("seed %d: %d permits issued of 60", s, got)
		}
		if chunkRun(t, s, NoChunk) > 60 {
			caught = true
		}
	}
	if !caught {
		t.Fatalf("seeds %d to %d: the ledger without chunks never went over the budget", seed, seed+199)
	}
}
