package session

import (
	"flag"
	"fmt"
	"iter"
	"math/rand/v2"
	"testing"
	"time"
)

var seedFlag = flag.Uint64("seed", 0, "run the property tests (TestRandom*) with this seed only (0: fresh ones each run)")

// seeds are a property test's seeds: 300 from a fresh base, which it
// logs, or the one -seed names.
func seeds(t *testing.T) iter.Seq[uint64] {
	n, base := 300, rand.Uint64()
	if *seedFlag != 0 {
		n, base = 1, *seedFlag
	}
	t.Logf("seeds %d.. (-seed=N runs one again)", base)
	return func(yield func(uint64) bool) {
		for i := range n {
			if !yield(base + uint64(i)) {
				return
			}
		}
	}
}

// TestRandomAdoptions drives a session through random keep-alives,
// records that reach the backup late, out of order and again, and a
// chain of adoptions (each adopter's records at its own backup, which
// adopts in turn), and checks the rule's promises:
//   - the backup keeps the newest record it got (by seq), whatever the
//     order they came in;
//   - an adopter's deadline is never before what the acknowledged records
//     promised the node that made them (a client is never told the
//     session is alive past what its adopter keeps), and never later
//     than the last keep-alive plus TTL plus slack, plus the time each
//     adoption's newest record took on its way.
//
// Each run logs its seed; -seed=N runs that one again.
func TestRandomAdoptions(t *testing.T) {
	for seed := range seeds(t) {
		if msg := randomAdoptions(seed); msg != "" {
			t.Fatalf("seed %d: %s", seed, msg)
		}
	}
}

// inflight is a record on its way to the backup.
type inflight struct {
	rec  Record
	sent Time
	at   Time // when it reaches the backup
	end  Time // what it asked the backup to keep (RecordEnd)
}

func randomAdoptions(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 31))
	slack := time.Duration(100+r.IntN(400)) * time.Millisecond
	ttl := time.Duration(200+r.IntN(2000)) * time.Millisecond
	maxDelay := time.Duration(1+r.IntN(50)) * time.Millisecond
	now := Time(r.IntN(1000)) * ms
	l := Open(now, ttl)
	lastKA := now
	bound := lastKA.Add(ttl + slack) // the latest an adopter may keep it
	var seq uint64
	hops := 1 + r.IntN(4)
	for hop := range hops {
		k := NewKeeper()
		run := Run{Node: hop, Gen: 1}
		var flying []inflight
		var newestSeq, newestAcked uint64
		var newestAckedEnd Time
		var newestWay time.Duration // how long the newest record kept took on its way
		deliver := func(upTo Time) {
			keep := flying[:0]
			for _, f := range flying {
				if f.at > upTo {
					keep = append(keep, f)
					continue
				}
				k.Keep(f.at, run, 5, false, []Record{f.rec})
				if f.rec.Seq > newestSeq {
					newestSeq, newestWay = f.rec.Seq, f.at.Sub(f.sent)
				}
				// The answers come in order: the primary acks its newest.
				if f.rec.Seq > newestAcked {
					newestAcked, newestAckedEnd = f.rec.Seq, f.end
					l.Acked(f.end)
				}
				if r.IntN(4) == 0 { // sent again on a new stream, later
					f.at = f.at.Add(time.Duration(r.IntN(int(maxDelay) + 1)))
					keep = append(keep, f)
				}
			}
			flying = keep
		}
		steps := r.IntN(30)
		for range steps {
			now = now.Add(time.Duration(r.IntN(int(ttl / 2))))
			deliver(now)
			if l.Out(now) {
				return "" // expiry ends it: its end is recorded, and nobody adopts it
			}
			// Only the first node's keep-alives move the session on: an
			// adopter's client may or may not come; here it never does,
			// which is what the bound is about.
			if hop == 0 && r.IntN(3) > 0 {
				l.Renew(now)
				lastKA = now
				bound = lastKA.Add(ttl + slack)
				if l.Covered(slack) {
					continue
				}
			}
			seq++
			end := l.RecordEnd(slack)
			flying = append(flying, inflight{
				rec:  Record{ID: 1, TTL: ttl, Seq: seq, Left: Left(now, end)},
				sent: now, at: now.Add(time.Duration(r.IntN(int(maxDelay) + 1))), end: end,
			})
		}
		if len(flying) == 0 && newestSeq == 0 {
			seq++
			end := l.RecordEnd(slack)
			flying = append(flying, inflight{rec: Record{ID: 1, TTL: ttl, Seq: seq, Left: Left(now, end)}, sent: now, at: now, end: end})
		}
		// The primary is lost; what is on its way arrives (or not).
		lost := now
		now = now.Add(maxDelay + time.Duration(r.IntN(int(ttl))))
		for i := range flying {
			if r.IntN(3) == 0 {
				flying[i].at = lost // arrives before the view change, or is lost
			}
		}
		deliver(now)
		if got, ok := recordOf(k, 1); !ok || got.Seq != newestSeq {
			return "the backup does not keep the newest record it got"
		}
		out := k.TakeOver(now, hop+1, view(6, map[int]uint64{hop + 1: 1}), view(5, map[int]uint64{hop: 1, hop + 1: 1}))
		if len(out.Adopt) != 1 {
			return "the backup did not adopt the session"
		}
		adopted := out.Adopt[0].Lease
		if newestAcked > 0 && adopted.Deadline < newestAckedEnd {
			return "the adopter keeps the session for less than the acknowledged records promised"
		}
		// Each hop adds the time its newest record took on its way (sent
		// again on a new stream, it says the same time left), and Left
		// rounds up to the millisecond.
		bound = bound.Add(newestWay + time.Millisecond)
		if adopted.Deadline > bound {
			return fmt.Sprintf("hop %d: adoption made the deadline %v, later than the last keep-alive + TTL + slack (+ each record's way): %v", hop, adopted.Deadline/ms, bound/ms)
		}
		l = adopted
		if l.Out(now) {
			return "" // the adopter's expiry ends it
		}
	}
	return ""
}
