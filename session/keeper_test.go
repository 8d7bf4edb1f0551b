package session

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-dev/allot/proc"
	"github.com/cockroachdb/datadriven"
)

// view is the view of epoch whose members are the keys of members, each
// of the generation it maps to.
func view(epoch uint64, members map[int]uint64) View {
	v := View{Epoch: epoch}
	for m := range members {
		v.Members = append(v.Members, proc.ID(m))
	}
	slices.Sort(v.Members)
	for _, m := range v.Members {
		v.Gens = append(v.Gens, members[int(m)])
	}
	return v
}

// recordOf is the record k keeps of session id, if any.
func recordOf(k *Keeper, id uint64) (Record, bool) {
	for _, kp := range k.of {
		if r, ok := kp.sessions[id]; ok {
			return r, true
		}
	}
	return Record{}, false
}

// TestSuccessor: a node's backup is the next member by id, round the
// ring; none when it is alone.
func TestSuccessor(t *testing.T) {
	v := view(1, map[int]uint64{0: 1, 2: 1, 5: 1})
	for p, want := range map[int]int{0: 2, 2: 5, 5: 0, 1: 2, 3: 5, 7: 0} {
		if got := Successor(p, v); got != want {
			t.Errorf("Successor(%d) in %v: %d, want %d", p, v.Members, got, want)
		}
	}
	if got := Successor(4, view(1, map[int]uint64{4: 1})); got != -1 {
		t.Errorf("the successor of the only member: %d, want none", got)
	}
}

// TestKeeperKeepsTheNewest: a session's record replaces one of a smaller
// seq only; an ended one removes it; a forget drops the primary's; a
// record of a run already adopted is refused.
func TestKeeperKeepsTheNewest(t *testing.T) {
	k := NewKeeper()
	run := Run{1, 3}
	rec := func(seq uint64, ended bool, grants ...uint64) []Record {
		r := Record{ID: 7, TTL: time.Second, Seq: seq, Ended: ended}
		for _, g := range grants {
			r.Grants = append(r.Grants, Grant{ID: g, Key: "lock"})
		}
		return []Record{r}
	}
	grants := func() []uint64 {
		r, _ := recordOf(k, 7)
		var out []uint64
		for _, g := range r.Grants {
			out = append(out, g.ID)
		}
		return out
	}
	keeping := func() bool { _, _, ok := k.Keeps(7); return ok }
	k.Keep(0, run, 5, false, rec(2, false, 10, 11))
	k.Keep(0, run, 5, false, rec(1, false, 10))
	if got := grants(); !slices.Equal(got, []uint64{10, 11}) || !keeping() {
		t.Fatalf("after a record and an older one: grants %v, want [10 11]", got)
	}
	k.Keep(0, run, 5, false, rec(3, false, 11))
	if got := grants(); !slices.Equal(got, []uint64{11}) {
		t.Fatalf("after a give-back: grants %v, want [11]", got)
	}
	k.Keep(0, run, 5, false, rec(4, true))
	if keeping() {
		t.Fatal("an ended session is still kept")
	}
	k.Keep(0, run, 5, false, rec(5, false, 12))
	k.Keep(0, run, 5, true, nil)
	if keeping() {
		t.Fatal("a forgotten session is still kept")
	}
	k.Keep(0, run, 5, false, rec(6, false, 12))
	// Node 2 adopts run 1/3's sessions in view 6.
	if got := k.TakeOver(0, 2, view(6, map[int]uint64{2: 1}), view(5, map[int]uint64{1: 3, 2: 1})); len(got.Adopt) != 1 {
		t.Fatalf("adopted %d sessions, want 1", len(got.Adopt))
	}
	k.Keep(0, run, 5, false, rec(7, false, 12))
	if keeping() {
		t.Fatal("a record of a run whose sessions were adopted was kept")
	}
}

// TestKeeper runs the scripts of testdata/keeper: the records a backup
// keeps, and what a view change does with them. Directives:
//
//	keep now=MS run=NODE/GEN epoch=E [forget]
//	ID SEQ [ttl=MS] [left=MS] [ended] [grants=G,G...]    (one a line)
//
//	keeps id=ID
//	takeover now=MS self=NODE view=E:NODE/GEN,... prev=E:NODE/GEN,...
//
// Times are in milliseconds of the driver's time.
// TestKeepsOneAnswer: a session two runs keep is answered for by the
// one recorded in the newer view, every time.
func TestKeepsOneAnswer(t *testing.T) {
	for range 20 {
		k := NewKeeper()
		k.Keep(0, Run{2, 1}, 4, false, []Record{{ID: 7, TTL: time.Second, Seq: 1, Left: time.Second}})
		k.Keep(0, Run{0, 1}, 6, false, []Record{{ID: 7, TTL: time.Second, Seq: 3, Left: 2 * time.Second}})
		k.Keep(0, Run{3, 1}, 5, false, []Record{{ID: 7, TTL: time.Second, Seq: 2}})
		if p, until, ok := k.Keeps(7); !ok || p != 0 || until != Time(2*time.Second) {
			t.Fatalf("Keeps(7) = %d, %v, %v; want node 0's, kept 2s", p, until, ok)
		}
	}
}

func TestKeeper(t *testing.T) {
	k := NewKeeper()
	datadriven.RunTest(t, "testdata/keeper", func(t *testing.T, td *datadriven.TestData) string {
		switch td.Cmd {
		case "keep":
			var now, epoch int
			var run string
			td.ScanArgs(t, "now", &now)
			td.ScanArgs(t, "run", &run)
			td.ScanArgs(t, "epoch", &epoch)
			var recs []Record
			for line := range strings.Lines(td.Input) {
				recs = append(recs, parseRecord(t, line))
			}
			k.Keep(Time(now)*ms, parseRun(t, run), uint64(epoch), td.HasArg("forget"), recs)
			return dump(k)
		case "keeps":
			var id int
			td.ScanArgs(t, "id", &id)
			p, until, ok := k.Keeps(uint64(id))
			if !ok {
				return "not kept"
			}
			if until == 0 {
				return fmt.Sprintf("kept for %d, a fresh TTL if adopted", p)
			}
			return fmt.Sprintf("kept for %d, until %d", p, until/ms)
		case "takeover":
			var now, self int
			var v, prev string
			td.ScanArgs(t, "now", &now)
			td.ScanArgs(t, "self", &self)
			td.ScanArgs(t, "view", &v)
			td.ScanArgs(t, "prev", &prev)
			got := k.TakeOver(Time(now)*ms, self, parseView(t, v), parseView(t, prev))
			var b strings.Builder
			for _, c := range got.Dropped {
				fmt.Fprintf(&b, "dropped %d/%d: %d sessions\n", c.Run.Node, c.Run.Gen, c.Sessions)
			}
			for _, c := range got.Adopted {
				fmt.Fprintf(&b, "adopted %d/%d: %d sessions\n", c.Run.Node, c.Run.Gen, c.Sessions)
			}
			for _, a := range got.Adopt {
				fmt.Fprintf(&b, "  session %d deadline %d grants %v\n", a.Record.ID, a.Lease.Deadline/ms, grantIDs(a.Record))
			}
			b.WriteString(dump(k))
			return b.String()
		}
		td.Fatalf(t, "unknown directive %q", td.Cmd)
		return ""
	})
}

// dump is what k keeps, in order: a line per run, then one per session.
func dump(k *Keeper) string {
	var b strings.Builder
	runs := slices.SortedFunc(func(yield func(Run) bool) {
		for r := range k.of {
			if !yield(r) {
				return
			}
		}
	}, func(a, b Run) int { return a.Node*1000 + int(a.Gen) - b.Node*1000 - int(b.Gen) })
	for _, run := range runs {
		kp := k.of[run]
		fmt.Fprintf(&b, "run %d/%d epoch %d\n", run.Node, run.Gen, kp.epoch)
		ids := slices.Sorted(func(yield func(uint64) bool) {
			for id := range kp.sessions {
				if !yield(id) {
					return
				}
			}
		})
		for _, id := range ids {
			r := kp.sessions[id]
			until := "fresh"
			if u, ok := kp.until[id]; ok {
				until = strconv.FormatInt(int64(u/ms), 10)
			}
			fmt.Fprintf(&b, "  session %d seq %d until %s grants %v\n", id, r.Seq, until, grantIDs(r))
		}
	}
	if b.Len() == 0 {
		return "nothing kept\n"
	}
	return b.String()
}

func grantIDs(r Record) []uint64 {
	out := []uint64{}
	for _, g := range r.Grants {
		out = append(out, g.ID)
	}
	return out
}

func parseRun(t *testing.T, s string) Run {
	node, gen, ok := strings.Cut(s, "/")
	n, err1 := strconv.Atoi(node)
	g, err2 := strconv.ParseUint(gen, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("a run is NODE/GEN, not %q", s)
	}
	return Run{n, g}
}

// parseView parses E:NODE/GEN,... (E: alone, a view of no member).
func parseView(t *testing.T, s string) View {
	e, members, _ := strings.Cut(s, ":")
	epoch, err := strconv.ParseUint(e, 10, 64)
	if err != nil {
		t.Fatalf("a view is E:NODE/GEN,..., not %q", s)
	}
	m := map[int]uint64{}
	for f := range strings.SplitSeq(members, ",") {
		if f != "" {
			r := parseRun(t, f)
			m[r.Node] = r.Gen
		}
	}
	return view(epoch, m)
}

func parseRecord(t *testing.T, line string) Record {
	f := strings.Fields(line)
	if len(f) < 2 {
		t.Fatalf("a record is ID SEQ [ttl=MS] [left=MS] [ended] [grants=G,...], not %q", line)
	}
	id, err1 := strconv.ParseUint(f[0], 10, 64)
	seq, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("a record's ID and SEQ: %q", line)
	}
	r := Record{ID: id, Seq: seq, TTL: time.Second}
	for _, a := range f[2:] {
		key, val, _ := strings.Cut(a, "=")
		switch key {
		case "ended":
			r.Ended = true
		case "ttl", "left":
			n, err := strconv.Atoi(val)
			if err != nil {
				t.Fatalf("%s: %v", a, err)
			}
			if key == "ttl" {
				r.TTL = time.Duration(n) * time.Millisecond
			} else {
				r.Left = time.Duration(n) * time.Millisecond
			}
		case "grants":
			for g := range strings.SplitSeq(val, ",") {
				n, err := strconv.ParseUint(g, 10, 64)
				if err != nil {
					t.Fatalf("%s: %v", a, err)
				}
				r.Grants = append(r.Grants, Grant{ID: n, Key: "lock"})
			}
		default:
			t.Fatalf("unknown %q in %q", a, line)
		}
	}
	return r
}

// TestKeeperRefuses: Keep says when it refused records (a run taken over,
// or one whose backup moved away in a newer view), so that a primary does
// not count a refused end as recorded; and Refused makes such an end a
// hand-over.
func TestKeeperRefuses(t *testing.T) {
	k := NewKeeper()
	rec := Record{ID: 7, TTL: time.Second, Seq: 1}
	if !k.Keep(0, Run{0, 1}, 5, true, []Record{rec}) {
		t.Fatal("the first records of a run refused")
	}
	// Node 0's run left out: node 1, its backup in view 5, takes it over.
	k.TakeOver(0, 1, view(6, map[int]uint64{1: 1, 2: 1}), view(5, map[int]uint64{0: 1, 1: 1, 2: 1}))
	rec.Seq, rec.Ended = 2, true
	if k.Keep(0, Run{0, 1}, 5, false, []Record{rec}) {
		t.Error("the end of a run taken over is not reported refused")
	}
	// Node 2's run moves its backup away from node 1 in view 7.
	k.Keep(0, Run{2, 1}, 6, true, []Record{{ID: 8, TTL: time.Second, Seq: 1}})
	k.TakeOver(0, 1, view(7, map[int]uint64{1: 1, 2: 1, 3: 1}), view(6, map[int]uint64{1: 1, 2: 1}))
	if k.Keep(0, Run{2, 1}, 6, false, []Record{{ID: 8, TTL: time.Second, Seq: 2}}) {
		t.Error("a record of a view older than the one that moved the backup away is not reported refused")
	}

	s := Opened(7, 0, time.Second)
	if _, ok := s.Refused(); ok {
		t.Error("Refused of a session not ended")
	}
	s.End(true)
	if handed, ok := s.Refused(); !ok || handed != s.Lease.Handed() || s.Gone() != NotHere {
		t.Errorf("Refused of a recorded end: %v %v, gone %v; want handed until %v, NotHere", handed, ok, s.Gone(), s.Lease.Handed())
	}
	if _, ok := s.Refused(); ok {
		t.Error("Refused twice")
	}
}

// TestKeeperAdmit: records are kept for the generation the node serves as,
// held for a later one, dropped for an earlier one and after a Stop
// (which forgets what was kept) until the node serves again; a primary
// that names no generation is kept as before.
func TestKeeperAdmit(t *testing.T) {
	k := NewKeeper()
	run := Run{Node: 1, Gen: 1}
	steps := []struct {
		do   func()
		want map[uint64]Admit // by the generation the records are made for
	}{
		{func() {}, map[uint64]Admit{0: AdmitKeep, 1: AdmitLater}},
		{func() { k.Serve(2) }, map[uint64]Admit{0: AdmitKeep, 1: AdmitDrop, 2: AdmitKeep, 3: AdmitLater}},
		{func() { k.Serve(1) }, map[uint64]Admit{1: AdmitDrop, 2: AdmitKeep}}, // never back
		{func() { k.Stop() }, map[uint64]Admit{0: AdmitKeep, 1: AdmitDrop, 2: AdmitDrop, 3: AdmitLater}},
		{func() { k.Serve(3) }, map[uint64]Admit{2: AdmitDrop, 3: AdmitKeep, 4: AdmitLater}},
	}
	for i, st := range steps {
		st.do()
		for to, want := range st.want {
			if got := k.Admit(to); got != want {
				t.Errorf("step %d: Admit(%d) = %d, want %d", i, to, got, want)
			}
		}
		if i == 1 {
			k.Keep(0, run, 1, false, []Record{{ID: 7, TTL: time.Second, Seq: 1}})
		}
		if _, _, ok := k.Keeps(7); ok != (i >= 1 && i < 3) {
			t.Errorf("step %d: keeps session 7: %v", i, ok)
		}
	}
}
