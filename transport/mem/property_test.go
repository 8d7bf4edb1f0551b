package mem_test

import (
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport/mem"
	"github.com/allot-dev/allot/transport/transporttest"
)

// entry is one line of what happened, in order: a delivery, or the
// restore of a link (logged just before Restore is called).
type entry struct {
	restore  bool
	link     [2]proc.ID // restore: the link (lower id first)
	cut      int        // restore: which cut of the link it ends
	from, to proc.ID    // delivery
	seq      int32
}

func link(a, b proc.ID) [2]proc.ID { return [2]proc.ID{min(a, b), max(a, b)} }

// TestCutsProperty: under any sequence of sends, cuts and restores among
// three processes, every message is delivered exactly once, in send order
// on FIFO links, and a message sent while its link is cut is delivered
// only after that cut's restore.
func TestCutsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fifo := rapid.Bool().Draw(t, "fifo")
		tr := mem.New(mem.Config{Delay: dist.Uniform(0, 5), FIFO: fifo, Tick: 50 * time.Microsecond, Seed: rapid.Uint64().Draw(t, "seed")})
		defer tr.Close()
		var mu sync.Mutex
		var log []entry
		delivered, total := 0, -1
		all := make(chan struct{})
		for id := proc.ID(0); id < 3; id++ {
			if err := tr.Register(id, func(from proc.ID, m proc.Message) {
				mu.Lock()
				defer mu.Unlock()
				log = append(log, entry{from: from, to: id, seq: m.(transporttest.Msg).Seq})
				if delivered++; delivered == total {
					close(all)
				}
			}); err != nil {
				t.Fatal(err)
			}
		}
		cuts := map[[2]proc.ID]int{} // link -> cuts so far
		cut := map[[2]proc.ID]bool{}
		inCut := map[int32]int{} // seq -> the cut of its link it was sent in (1, 2, ...)
		restore := func(l [2]proc.ID) {
			mu.Lock()
			log = append(log, entry{restore: true, link: l, cut: cuts[l]})
			mu.Unlock()
			tr.Restore(l[0], l[1])
			delete(cut, l)
		}
		sent := int32(0)
		for range rapid.IntRange(1, 150).Draw(t, "ops") {
			a := proc.ID(rapid.IntRange(0, 2).Draw(t, "a"))
			b := proc.ID(rapid.IntRange(0, 2).Draw(t, "b"))
			l := link(a, b)
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op == 0 && a != b && !cut[l]:
				tr.Cut(a, b)
				cut[l] = true
				cuts[l]++
			case op == 1 && cut[l]:
				restore(l)
			default:
				if cut[l] {
					inCut[sent] = cuts[l]
				}
				if err := tr.Send(a, b, transporttest.Msg{From: a, Seq: sent}); err != nil {
					t.Fatal(err)
				}
				sent++
			}
		}
		for l := range cut {
			restore(l)
		}
		mu.Lock()
		if total = int(sent); delivered == total {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(5 * time.Second):
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("%d of %d delivered", delivered, total)
		}
		time.Sleep(2 * time.Millisecond) // let duplicates show up
		mu.Lock()
		defer mu.Unlock()
		seen := map[int32]bool{}
		last := map[[2]proc.ID]int32{}
		restored := map[[2]proc.ID]int{} // link -> the last cut restored
		for _, e := range log {
			if e.restore {
				restored[e.link] = e.cut
				continue
			}
			if seen[e.seq] {
				t.Fatalf("message %d delivered twice", e.seq)
			}
			seen[e.seq] = true
			if c, ok := inCut[e.seq]; ok && restored[link(e.from, e.to)] < c {
				t.Fatalf("message %d crossed cut %d of link %d-%d before its restore", e.seq, c, e.from, e.to)
			}
			k := [2]proc.ID{e.from, e.to}
			if p, ok := last[k]; fifo && ok && p > e.seq {
				t.Fatalf("FIFO link %d→%d delivered %d after %d", e.from, e.to, e.seq, p)
			}
			last[k] = e.seq
		}
		if len(seen) != total {
			t.Fatalf("%d distinct messages of %d", len(seen), total)
		}
	})
}
