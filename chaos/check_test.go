package chaos

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/eventlog"
)

func tok(c uint64) []client.Token { return []client.Token{{Epoch: 1, Counter: c}} }

// good is a history with every kind of operation and nothing wrong: two
// clients take r0 in turn (the first loses its session while holding it,
// and the second is granted it after that), write the store, take a
// semaphore unit and quota permits.
func good() []Event {
	return []Event{
		{T: ms(1), Client: "g0/w0", Op: "session", Type: "ok"},
		{T: ms(2), Client: "g0/w0", Op: "lock", Type: "invoke", Keys: []string{"r0"}},
		{T: ms(3), Client: "g0/w0", Op: "lock", Type: "ok", Keys: []string{"r0"}, Tokens: tok(5)},
		{T: ms(4), Client: "g0/w0", Op: "read", Type: "ok", Keys: []string{"r0"}, Tokens: tok(5), Version: 0},
		{T: ms(5), Client: "g0/w0", Op: "write", Type: "ok", Keys: []string{"r0"}, Tokens: tok(5), Version: 1},
		{T: ms(6), Client: "g0/w0", Op: "done", Type: "info"},
		{T: ms(7), Client: "g1/w0", Op: "session", Type: "ok"},
		{T: ms(8), Client: "g1/w0", Op: "lock", Type: "ok", Keys: []string{"r0"}, Tokens: tok(9)},
		{T: ms(9), Client: "g1/w0", Op: "read", Type: "ok", Keys: []string{"r0"}, Tokens: tok(9), Version: 1},
		{T: ms(10), Client: "g1/w0", Op: "write", Type: "ok", Keys: []string{"r0"}, Tokens: tok(9), Version: 2},
		// The first holder, paused, writes late with its old token: refused.
		{T: ms(11), Client: "g0/w0", Op: "read", Type: "fail", Keys: []string{"r0"}, Tokens: tok(5), Err: "stale token"},
		{T: ms(12), Client: "g1/w0", Op: "unlock", Type: "invoke", Keys: []string{"r0"}},
		{T: ms(13), Client: "g1/w0", Op: "acquire", Type: "ok", Keys: []string{"s/2/0"}, Tokens: tok(11)},
		{T: ms(14), Client: "p1/w0", Op: "session", Type: "ok"},
		{T: ms(15), Client: "p1/w0", Op: "acquire", Type: "ok", Keys: []string{"s/2/1"}, Tokens: tok(12)},
		{T: ms(16), Client: "p1/w0", Op: "take", Type: "ok", Keys: []string{"q"}, N: 3},
		{T: ms(17), Client: "g1/w0", Op: "release", Type: "invoke", Keys: []string{"s/2/0"}},
		{T: ms(18), Client: "g0/w0", Op: "session", Type: "ok"},
		{T: ms(19), Client: "g0/w0", Op: "acquire", Type: "ok", Keys: []string{"s/2/0"}, Tokens: tok(13)},
		{T: ms(20), Client: "g0/w0", Op: "release", Type: "invoke", Keys: []string{"s/2/0"}},
		{T: ms(21), Client: "harness", Op: "killed", Type: "info", Keys: []string{"p1"}},
		{T: ms(22), Client: "g0/w0", Op: "take", Type: "ok", Keys: []string{"q"}, N: 2},
		{T: ms(23), Client: "g1/w0", Op: "take", Type: "ok", Keys: []string{"q"}, Err: "exhausted"},
		// The first holder wakes up and unlocks, long after its Done: the
		// overlap with the second holder is inside its lease-expiry window.
		{T: ms(9) + 1, Client: "g0/w0", Op: "unlock", Type: "invoke", Keys: []string{"r0"}},
		// A grant answered after its session's Done is not held.
		{T: ms(6) + 1, Client: "g0/w0", Op: "lock", Type: "ok", Keys: []string{"r1"}, Tokens: tok(6)},
		{T: ms(7) + 1, Client: "g1/w0", Op: "lock", Type: "ok", Keys: []string{"r1"}, Tokens: tok(7)},
		{T: ms(7) + 2, Client: "g1/w0", Op: "unlock", Type: "invoke", Keys: []string{"r1"}},
	}
}

func ms(n int64) int64 { return n * int64(time.Millisecond) }

func killAll(start, end int64) Fault {
	return Fault{Kind: "kill-all", Target: "nodes [0 1 2], down 1ms", Start: start, End: end, Touched: []string{"*"}}
}

func goodInput() Input {
	return Input{History: good(), Budget: 5, Calm: int64(20 * time.Millisecond), Bound: 5 * time.Millisecond,
		Faults: []Fault{{Kind: "link-cut", Start: int64(15 * time.Millisecond), End: int64(16 * time.Millisecond), Touched: []string{"*"}}}}
}

// TestCheckCatches shows each check of the checker catching a broken
// history, and passing the good one.
func TestCheckCatches(t *testing.T) {
	r, err := Check(goodInput())
	if err != nil || !r.OK() {
		t.Fatalf("good history: %v\n%s", err, r.Summary())
	}
	if r.Ops["lock"] != 4 || r.Ops["acquire"] != 3 || r.Permits != 5 || r.Writes != 2 || r.Refused != 1 {
		t.Errorf("good history counted %v, %d permits, %d writes, %d refused", r.Ops, r.Permits, r.Writes, r.Refused)
	}
	// The link cut ended at 16ms; g0/w0 completed an operation at 19ms,
	// g1/w0 at 23ms, and p1/w0 was killed first: a stall of 7ms.
	if s := r.Stalls["link-cut"]; len(s) != 1 || s[0] != 7*time.Millisecond {
		t.Errorf("stall after the link cut: %v, want 7ms", s)
	}
	// Within the link cut, 15ms to 16ms, p1/w0's take completed at 16ms:
	// nobody completed anything for 1ms.
	if d := r.During["link-cut"]; len(d) != 1 || d[0] != time.Millisecond {
		t.Errorf("longest time without a completion within the link cut: %v, want 1ms", d)
	}
	for _, tc := range []struct {
		name, want string
		edit       func(in *Input)
	}{
		{"two holders", "two holders", func(in *Input) {
			// The first holder's session is not lost before the second is granted.
			in.History[5].T = in.History[8].T + 1
		}},
		{"held past its done", "two holders", func(in *Input) {
			// Without the done, the late unlock makes the first holder's
			// interval overlap the second's.
			in.History[5].Op, in.History[5].Client = "session", "g3/w0"
		}},
		{"token not increasing", "token", func(in *Input) { in.History[7].Tokens = tok(5) }},
		{"token decreasing", "token", func(in *Input) { in.History[7].Tokens = tok(4) }},
		{"lost write", "a write lost", func(in *Input) {
			// An unfenced store accepted the stale holder's write.
			in.History[10] = Event{T: in.History[10].T, Client: "g0/w0", Op: "write", Type: "ok", Keys: []string{"r0"}, Tokens: tok(5), Version: 2}
		}},
		{"semaphore over R", "semaphore s/2: 3 holders", func(in *Input) {
			in.History[16].T = in.History[18].T + 1 // g1/w0 still holds unit 0 of 2 …
			in.History[18].Keys = []string{"s/2/2"} // … when g0/w0 gets a third unit
		}},
		{"unit held twice", "two holders", func(in *Input) { in.History[14].Keys = []string{"s/2/0"} }},
		{"quota over M", "quota: 6 permits", func(in *Input) { in.History[21].N = 3 }},
		{"not served after calm", "not served within", func(in *Input) { in.Bound = time.Millisecond }},
		// Locks go on but the quota is refused for good after the calm.
		{"a kind never served after calm", "no take served within", func(in *Input) {
			in.History[21].Type, in.History[21].Err = "fail", "unavailable"
			in.History[22].Type, in.History[22].Err = "fail", "unavailable"
		}},
		// Permits count over the whole run: a full restart that forgot
		// what was issued before it (the quota starting over) is caught.
		{"quota over M across a full restart", "quota: 6 permits", func(in *Input) {
			in.Faults = append(in.Faults, killAll(ms(16)+1, ms(17)))
			in.History = append(in.History, Event{T: ms(24), Client: "p2/w0", Op: "take", Type: "ok", Keys: []string{"q"}, N: 1})
		}},
		// Tokens keep growing across a full restart: one whose counter
		// started over is caught.
		{"token back after a full restart", "r0: token 1.2 after 1.9", func(in *Input) {
			in.Faults = append(in.Faults, killAll(ms(20), ms(21)))
			in.History = append(in.History,
				Event{T: ms(24), Client: "g1/w0", Op: "lock", Type: "ok", Keys: []string{"r0"}, Tokens: tok(2)},
				Event{T: ms(25), Client: "g1/w0", Op: "unlock", Type: "invoke", Keys: []string{"r0"}})
		}},
		{"a node not back after its restart", "not ready", func(in *Input) {
			f := killAll(ms(20), ms(21))
			f.Err = "node 1 not ready within 20s"
			in.Faults = append(in.Faults, f)
		}},
	} {
		in := goodInput()
		in.History = good()
		tc.edit(&in)
		r, err := Check(in)
		if err != nil {
			t.Fatal(tc.name, err)
		}
		if r.OK() || !strings.Contains(strings.Join(r.First, "\n"), tc.want) {
			t.Errorf("%s: want a violation saying %q, got\n%s", tc.name, tc.want, r.Summary())
		}
	}
	// The node logs are checked too (verify.Logs: shown catching each
	// broken log in its own test); an unanswered request fails the run.
	in := goodInput()
	in.Nodes = [][]eventlog.Record{{{T: 1, Instance: "lock", Ev: "request", P: 0, Res: []proc.ResID{1}}}}
	if r, _ := Check(in); r.OK() {
		t.Errorf("an unanswered request in a node log passed:\n%s", r.Summary())
	}
}

// TestStoreFences plays the fencing story on the store: a holder pauses
// between its read and its write, its lease expires, a second holder with
// a larger token does its read-modify-write, then the first one writes.
// The store refuses the stale write; an unfenced one accepts it, and the
// checker finds the acknowledged write it overwrote.
func TestStoreFences(t *testing.T) {
	for _, unfenced := range []bool{false, true} {
		s := &MemStore{Unfenced: unfenced}
		h := NewHistory(nil)
		w := func(id string) *Worker { return &Worker{ID: id, Store: s, H: h} }
		a, b := w("g0/w0"), w("g1/w0")
		key, ta, tb := "r0", client.Token{Epoch: 1, Counter: 5}, client.Token{Epoch: 1, Counter: 6}
		va, _, _ := s.Read(key, ta) // a reads, then pauses
		b.rmw([]string{key}, []client.Token{tb})
		ok, _ := s.Write(key, ta, va+1)
		e := Event{Op: "write", Type: "ok", Keys: []string{key}, Tokens: []client.Token{ta}, Version: va + 1}
		if !ok {
			e.Type = "fail"
		}
		a.put(e)
		r, err := Check(Input{History: h.Events()})
		if err != nil {
			t.Fatal(err)
		}
		if ok == !unfenced || r.OK() == unfenced {
			t.Errorf("unfenced %v: stale write accepted %v, checker:\n%s", unfenced, ok, r.Summary())
		}
	}
}

func TestLongestGap(t *testing.T) {
	ts := []int64{2, 5, 6, 12}
	for _, tc := range []struct {
		from, to int64
		want     time.Duration
	}{
		{0, 20, 8},  // 12 to 20
		{3, 11, 5},  // 6 to 11
		{5, 6, 1},   // 5 to 6
		{13, 14, 1}, // nothing inside
		{2, 12, 6},  // 6 to 12
	} {
		if got := longestGap(ts, tc.from, tc.to); got != tc.want {
			t.Errorf("longestGap(%v, %d, %d) = %v, want %v", ts, tc.from, tc.to, got, tc.want)
		}
	}
}

func TestParseFaults(t *testing.T) {
	for _, tc := range []struct {
		list string
		want []string
		err  bool
	}{
		{"drop,pause", []string{"drop", "pause"}, false},
		{"kill-all,drop-oneway,bridge", []string{"drop-oneway", "bridge", "kill-all"}, false},
		{"all", AllFaults().kinds(), false},
		{"drop,nope", nil, true},
		{"", nil, true},
	} {
		f, err := ParseFaults(tc.list)
		if (err != nil) != tc.err || err == nil && strings.Join(f.kinds(), ",") != strings.Join(tc.want, ",") {
			t.Errorf("ParseFaults(%q) = %v, %v; want %v (error %v)", tc.list, f.kinds(), err, tc.want, tc.err)
		}
	}
	if got := AllFaults().kinds(); len(got) != len(FaultNames())-1 || slices.Contains(got, "long-partition") {
		t.Errorf("AllFaults: %v", got)
	}
}

// TestSchedule: over seeds, a seed draws the same faults every time;
// every round holds each kind once, a pause last; durations keep to their
// kinds' ranges.
func TestSchedule(t *testing.T) {
	kinds := AllFaults().kinds()
	cfg := Config{Nodes: 3}
	cfg.Defaults()
	ranges := map[string][2]time.Duration{
		"pause":        {time.Second, cfg.MaxPause},
		"drop":         {500 * time.Millisecond, 4 * time.Second},
		"drop-oneway":  {500 * time.Millisecond, 4 * time.Second},
		"bridge":       {500 * time.Millisecond, 4 * time.Second},
		"fast-restart": {10 * time.Millisecond, 60 * time.Millisecond},
		"kill-two":     {200 * time.Millisecond, 2 * time.Second},
		"kill-all":     {200 * time.Millisecond, 2 * time.Second},
		"busy":         {time.Second, 5 * time.Second},
		"stutter":      {time.Second, 5 * time.Second},
	}
	for seed := range uint64(50) {
		cfg.Seed = seed
		a, b := newSchedule(cfg, kinds), newSchedule(cfg, kinds)
		for range 3 {
			seen := map[string]bool{}
			for j := range kinds {
				x, y := a.next(), b.next()
				if x != y {
					t.Fatalf("seed %d: %+v then %+v", seed, x, y)
				}
				if seen[x.kind] {
					t.Fatalf("seed %d: %s twice in a round", seed, x.kind)
				}
				seen[x.kind] = true
				if (x.kind == "pause") != (j == len(kinds)-1) {
					t.Fatalf("seed %d: pause at %d of a round of %d", seed, j, len(kinds))
				}
				if x.i == x.k || x.i < 0 || x.k < 0 || x.i >= 3 || x.k >= 3 || x.gap < 0 || x.gap >= 2*cfg.Every {
					t.Fatalf("seed %d: %+v", seed, x)
				}
				r := ranges[x.kind]
				lo, hi := r[0], r[1]
				if x.d < lo || hi > 0 && x.d > hi {
					t.Fatalf("seed %d: %s for %v, want %v–%v", seed, x.kind, x.d, lo, hi)
				}
			}
		}
	}
}

// TestCheckExpiredAlive shows the rule "a client that keeps its session
// alive is never told it expired" rejecting an expired answer within the
// TTL of the last keep-alive answered, and letting pass one after the
// TTL, one while two nodes were down, a Done (counted apart), and a
// history written before keep-alives were recorded.
func TestCheckExpiredAlive(t *testing.T) {
	ttl := 2 * time.Second
	expired := func(at, renewed int64) []Event {
		return []Event{
			{T: ms(1), Client: "g0/w0", Op: "session", Type: "ok", TTL: ttl},
			{T: at - 1, Client: "g0/w0", Op: "unlock", Type: "invoke", Keys: []string{"r0"}},
			{T: at, Client: "g0/w0", Op: "unlock", Type: "fail", Keys: []string{"r0"}, Err: "allot: session expired: no such session", Renewed: renewed},
		}
	}
	node := func(kind string, start, end int64, nodes ...int) Fault {
		return Fault{Kind: kind, Start: start, End: end, Touched: []string{"*"}, Nodes: nodes}
	}
	for _, tc := range []struct {
		name                string
		in                  Input
		alive, excused, don int
	}{
		// Told expired 1.5s after a keep-alive answered, on a 2s TTL,
		// with one node killed meanwhile (its backup adopts).
		{"expired within the TTL", Input{History: expired(ms(1600), ms(100)), Faults: []Fault{node("node-kill", ms(200), ms(900), 1)}}, 1, 0, 0},
		// The same with the nodes' CPU starved: still a violation.
		{"expired within the TTL, busy", Input{History: expired(ms(1600), ms(100)), Faults: []Fault{node("busy", ms(200), ms(900))}}, 1, 0, 0},
		{"expired after the TTL", Input{History: expired(ms(2200), ms(100))}, 0, 0, 0},
		{"expired with two nodes down", Input{History: expired(ms(1600), ms(100)), Faults: []Fault{node("kill-two", ms(200), ms(900), 0, 2)}}, 0, 1, 0},
		// Two faults of one node each, on different nodes, both in the
		// window: a session's node and its backup may be among them.
		{"expired with two nodes down in turn", Input{History: expired(ms(1600), ms(100)), Faults: []Fault{node("pause", ms(50), ms(150), 0), node("stutter", ms(1500), ms(1700), 2)}}, 0, 1, 0},
		// A fault on another node before the keep-alive does not count.
		{"a fault before the keep-alive", Input{History: expired(ms(1600), ms(300)), Faults: []Fault{node("pause", ms(50), ms(150), 0), node("stutter", ms(1500), ms(1700), 2)}}, 1, 0, 0},
		{"done within the TTL", Input{History: []Event{
			{T: ms(1), Client: "g0/w0", Op: "session", Type: "ok", TTL: ttl},
			{T: ms(1600), Client: "g0/w0", Op: "done", Type: "info", Renewed: ms(100)},
			// Answers after the Done are not judged: the client saw it lost.
			{T: ms(1700), Client: "g0/w0", Op: "take", Type: "fail", Keys: []string{"q"}, Err: "allot: session expired", Renewed: ms(100)},
		}}, 0, 0, 1},
		{"an old history", Input{History: func() []Event { h := expired(ms(1600), ms(100)); h[0].TTL = 0; return h }()}, 0, 0, 0},
	} {
		r, err := Check(tc.in)
		if err != nil {
			t.Fatal(tc.name, err)
		}
		if r.ExpiredAlive != tc.alive || r.ExpiredExcused != tc.excused || r.DoneEarly != tc.don || r.Violations != tc.alive {
			t.Errorf("%s: %d expired while alive, %d excused, %d early dones, %d violations; want %d, %d, %d, %d\n%s",
				tc.name, r.ExpiredAlive, r.ExpiredExcused, r.DoneEarly, r.Violations, tc.alive, tc.excused, tc.don, tc.alive, r.Summary())
		}
		if tc.alive > 0 && !strings.Contains(strings.Join(r.First, "\n"), "expired while kept alive") {
			t.Errorf("%s: the violation does not say so:\n%s", tc.name, r.Summary())
		}
	}
}

// TestHistoryReadsOld: a history line written before sessions recorded
// their TTL and keep-alives reads as before, with neither.
func TestHistoryReadsOld(t *testing.T) {
	old := `{"t":5,"c":"g0/w0","op":"session","type":"ok"}
{"t":6,"c":"g0/w0","op":"lock","type":"fail","keys":["r0"],"err":"allot: session expired"}
`
	h, err := ReadHistory(strings.NewReader(old))
	if err != nil || len(h) != 2 || h[0].TTL != 0 || h[1].Renewed != 0 || h[1].Err != "allot: session expired" {
		t.Fatalf("old history: %+v, %v", h, err)
	}
}
