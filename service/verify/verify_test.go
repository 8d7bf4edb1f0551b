package verify

import (
	"slices"
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/eventlog"
)

// TestLogsCatch shows the verdict catching each kind of broken log.
func TestLogsCatch(t *testing.T) {
	res := []proc.ResID{3}
	good := []eventlog.Record{
		{T: 1, Instance: "lock", Ev: "request", P: 0, Res: res},
		{T: 2, Instance: "lock", Ev: "enter", P: 0, Res: res},
		{T: 3, Instance: "lock", Ev: "fenced", P: 0, Keys: []string{"lock/3"}, Epoch: 1, Counters: []uint64{1}},
		{T: 4, Instance: "lock", Ev: "exit", P: 0},
		{T: 5, Instance: "lock", Ev: "request", P: 1, Res: res},
		{T: 6, Instance: "lock", Ev: "enter", P: 1, Res: res},
		{T: 7, Instance: "lock", Ev: "fenced", P: 1, Keys: []string{"lock/3"}, Epoch: 1, Counters: []uint64{2}},
		{T: 8, Instance: "lock", Ev: "exit", P: 1},
		{T: 9, Instance: "sem/s/1", Ev: "acquire", P: 0},
		{T: 10, Instance: "sem/s/1", Ev: "grant", P: 0, Unit: 0},
		{T: 11, Instance: "sem/s/1", Ev: "release", P: 0, Unit: 0},
	}
	v, err := Logs(good)
	if err != nil || !v.OK() || v.Answered != 3 || v.Fenced != 2 {
		t.Fatalf("good log: %v, %v", v, err)
	}
	for _, tc := range []struct {
		name, want string
		edit       func([]eventlog.Record) []eventlog.Record
	}{
		{"overlap", "enters", func(r []eventlog.Record) []eventlog.Record { r[3].T = 6 + 1; r[3], r[5] = r[5], r[3]; return r }},
		{"token back", "got token 1.1 after 1.2", func(r []eventlog.Record) []eventlog.Record {
			r[2].Counters, r[6].Counters = []uint64{2}, []uint64{1}
			return r
		}},
		{"token repeated", "got token 1.1 after 1.1", func(r []eventlog.Record) []eventlog.Record { r[6].Counters = []uint64{1}; return r }},
		{"epoch back", "got token 0.9 after 1.1", func(r []eventlog.Record) []eventlog.Record { r[6].Epoch, r[6].Counters = 0, []uint64{9}; return r }},
		{"unit twice", "unit 0 granted", func(r []eventlog.Record) []eventlog.Record {
			return append(r[:10], eventlog.Record{T: 10, Instance: "sem/s/1", Ev: "acquire", P: 1}, eventlog.Record{T: 10, Instance: "sem/s/1", Ev: "grant", P: 1})
		}},
	} {
		recs := tc.edit(append([]eventlog.Record(nil), good...))
		v, err := Logs(recs)
		if err != nil {
			t.Fatal(tc.name, err)
		}
		if v.Violations == 0 || !strings.Contains(strings.Join(v.First, "\n"), tc.want) {
			t.Errorf("%s: %v, want a violation saying %q", tc.name, v, tc.want)
		}
	}
	over := []eventlog.Record{{T: 1, Instance: "quota/q/1/0", Ev: "request", P: 0}, {T: 2, Instance: "quota/q/1/0", Ev: "permit", P: 0},
		{T: 3, Instance: "quota/q/1/0", Ev: "request", P: 1}, {T: 4, Instance: "quota/q/1/0", Ev: "permit", P: 1}}
	if v, _ := Logs(over); v.Violations == 0 {
		t.Errorf("two permits of a quota of one: %v", v)
	}
	if v, _ := Logs(over[:2]); !v.OK() {
		t.Errorf("one permit of a quota of one: %v", v)
	}
	// A reject before M − W permits: caught, unless the instance ran on
	// a node whose log is missing (its permits are not in the logs).
	early := []eventlog.Record{{T: 1, Instance: "quota/q/10/2~10@5:0.1", Ev: "request", P: 0}, {T: 2, Instance: "quota/q/10/2~10@5:0.1", Ev: "reject", P: 0},
		{T: 3, Instance: "quota/q/10/2~10@5:0.1", Ev: "exhausted", P: 0}}
	if v, _ := Logs(early); v.Violations == 0 || !strings.Contains(strings.Join(v.First, "\n"), "rejects with only 0 permits") {
		t.Errorf("a reject with no permit issued: %v", v)
	}
	if v, _ := Partial([]int{1}, early); !v.OK() {
		t.Errorf("a reject with node 1's log missing: %v", v)
	}
	if v, _ := Partial([]int{2}, early); v.Violations == 0 {
		t.Errorf("a reject with the log of node 2, not in the instance, missing: %v", v)
	}
	if v, _ := Partial([]int{1}, over); v.Violations == 0 {
		t.Errorf("two permits of a quota of one, a log missing: %v", v)
	}
	v, _ = Logs(good[:5])
	if v.Open != 1 || v.OK() {
		t.Errorf("an unanswered request: %v", v)
	}
	// A request open when its view was replaced is asked again in the
	// next view: it is not an unanswered request of the old one.
	v, _ = Logs(append(good[:5:5], eventlog.Record{T: 6, Instance: "lock", Ev: eventlog.Retired}))
	if v.Open != 0 || v.Retired != 1 || !v.OK() {
		t.Errorf("an instance retired with a request open: %v", v)
	}
	// A request open when its node shut down is reported, not judged.
	v, _ = Logs(append(good[:5:5], eventlog.Record{T: 6, Instance: "lock", Ev: eventlog.Closed}))
	if v.Open != 0 || v.Closed != 1 || !v.OK() {
		t.Errorf("an instance closed at shutdown with a request open: %v", v)
	}
	// A later epoch's token beats any counter of an earlier one.
	later := append([]eventlog.Record(nil), good...)
	later[6].Epoch, later[6].Counters = 2, []uint64{1}
	if v, _ := Logs(later); !v.OK() {
		t.Errorf("a token of a later epoch: %v", v)
	}
}

// TestLogsAcrossViews: a grant asked again in a later view is one
// holder; a view's holder that is not asked again ends when the view is
// retired; a holder that overlaps either is caught.
func TestLogsAcrossViews(t *testing.T) {
	res := []proc.ResID{3}
	v1, v2 := "lock@1:0.1.2", "lock@2:0.1"
	logs := []eventlog.Record{
		{T: 1, Instance: v1, Ev: "request", P: 0, Res: res},
		{T: 1, Instance: v1, Ev: eventlog.Owner, P: 0, Res: res, Grant: 10},
		{T: 2, Instance: v1, Ev: "enter", P: 0, Res: res},
		{T: 5, Instance: v1, Ev: eventlog.Retired},
		// Grant 10 held across the change: asked again in v2.
		{T: 6, Instance: v2, Ev: "request", P: 4, Res: res},
		{T: 6, Instance: v2, Ev: eventlog.Owner, P: 4, Res: res, Grant: 10},
		{T: 7, Instance: v2, Ev: "enter", P: 4, Res: res},
		{T: 9, Instance: v2, Ev: "exit", P: 4},
		// The next holder, after it.
		{T: 8, Instance: v2, Ev: "request", P: 5, Res: res},
		{T: 8, Instance: v2, Ev: eventlog.Owner, P: 5, Res: res, Grant: 11},
		{T: 10, Instance: v2, Ev: "enter", P: 5, Res: res},
		{T: 11, Instance: v2, Ev: "exit", P: 5},
	}
	if v, err := Logs(answered(logs)); err != nil || !v.OK() {
		t.Fatalf("a grant held across a view change: %v, %v", v, err)
	}
	// Grant 11 enters and leaves between the change and grant 10's
	// second enter: each view alone is fine, together they overlap.
	broken := append([]eventlog.Record(nil), logs[:6]...)
	broken = append(broken,
		eventlog.Record{T: 6, Instance: v2, Ev: "request", P: 5, Res: res},
		eventlog.Record{T: 6, Instance: v2, Ev: eventlog.Owner, P: 5, Res: res, Grant: 11},
		eventlog.Record{T: 6, Instance: v2, Ev: "enter", P: 5, Res: res},
		eventlog.Record{T: 6, Instance: v2, Ev: "exit", P: 5},
		eventlog.Record{T: 7, Instance: v2, Ev: "enter", P: 4, Res: res},
		eventlog.Record{T: 9, Instance: v2, Ev: "exit", P: 4},
	)
	v, err := Logs(answered(broken))
	if err != nil || v.Violations == 0 || !strings.Contains(strings.Join(v.First, "\n"), "across views") {
		t.Errorf("a holder in the gap of a view change: %v, %v", v, err)
	}
}

// TestLogsAcrossViewsByName: a lock's owner records name its keys, and a
// name has another id in each view. Grant 10 holds "a" (id 3 in v1, id 7
// in v2) while grant 11 holds "b" (id 3 in v2): not one resource, no
// violation (by ids, 3 would be held twice across views). Grant 12
// holding "a" (id 7 in v2) over grant 10 is caught.
func TestLogsAcrossViewsByName(t *testing.T) {
	v1, v2 := "lock@1:0.1.2", "lock@2:0.1"
	a, b := []string{"lock/a"}, []string{"lock/b"}
	r3, r7 := []proc.ResID{3}, []proc.ResID{7}
	logs := []eventlog.Record{
		{T: 1, Instance: v1, Ev: "request", P: 0, Res: r3},
		{T: 1, Instance: v1, Ev: eventlog.Owner, P: 0, Res: r3, Keys: a, Grant: 10},
		{T: 2, Instance: v1, Ev: "enter", P: 0, Res: r3},
		{T: 5, Instance: v1, Ev: eventlog.Retired},
		{T: 6, Instance: v2, Ev: "request", P: 4, Res: r7},
		{T: 6, Instance: v2, Ev: eventlog.Owner, P: 4, Res: r7, Keys: a, Grant: 10},
		{T: 6, Instance: v2, Ev: "request", P: 5, Res: r3},
		{T: 6, Instance: v2, Ev: eventlog.Owner, P: 5, Res: r3, Keys: b, Grant: 11},
		{T: 7, Instance: v2, Ev: "enter", P: 4, Res: r7},
		{T: 7, Instance: v2, Ev: "enter", P: 5, Res: r3},
		{T: 9, Instance: v2, Ev: "exit", P: 4},
		{T: 9, Instance: v2, Ev: "exit", P: 5},
	}
	if v, err := Logs(answered(logs)); err != nil || !v.OK() {
		t.Fatalf("two names with one id in two views: %v, %v", v, err)
	}
	broken := append([]eventlog.Record(nil), logs[:6]...)
	broken = append(broken,
		eventlog.Record{T: 6, Instance: v2, Ev: "request", P: 5, Res: r7},
		eventlog.Record{T: 6, Instance: v2, Ev: eventlog.Owner, P: 5, Res: r7, Keys: a, Grant: 12},
		eventlog.Record{T: 6, Instance: v2, Ev: "enter", P: 5, Res: r7},
		eventlog.Record{T: 6, Instance: v2, Ev: "exit", P: 5},
		eventlog.Record{T: 7, Instance: v2, Ev: "enter", P: 4, Res: r7},
		eventlog.Record{T: 9, Instance: v2, Ev: "exit", P: 4},
	)
	v, err := Logs(answered(broken))
	if err != nil || v.Violations == 0 || !strings.Contains(strings.Join(v.First, "\n"), "lock/a held by grants") {
		t.Errorf("name a held by two grants across views: %v, %v", v, err)
	}
}

// TestLogsGivenBackDuringViewChange: grant 10 is given back while its
// node changes views: its exit is in v1, and its regrant in v2, asked
// before the give-back reached it, is granted and released at once.
// Between the two, grant 11 holds the same name in v1 (granted there
// after 10's exit, before v1 was retired at that node): no two holders
// at once. A grant 12 that holds the name in v2 over 10's regrant is
// caught.
func TestLogsGivenBackDuringViewChange(t *testing.T) {
	v1, v2 := "lock@1:0.2", "lock@2:0.1.2"
	a := []string{"lock/r0"}
	r0, r1 := []proc.ResID{0}, []proc.ResID{1}
	logs := []eventlog.Record{
		{T: 1, Instance: v1, Ev: "request", P: 8, Res: r0},
		{T: 1, Instance: v1, Ev: eventlog.Owner, P: 8, Res: r0, Keys: a, Grant: 10},
		{T: 2, Instance: v1, Ev: "request", P: 6, Res: r0},
		{T: 2, Instance: v1, Ev: eventlog.Owner, P: 6, Res: r0, Keys: a, Grant: 11},
		{T: 3, Instance: v1, Ev: "enter", P: 8, Res: r0},
		{T: 4, Instance: v1, Ev: "exit", P: 8},
		{T: 5, Instance: v1, Ev: "enter", P: 6, Res: r0},
		{T: 6, Instance: v1, Ev: "exit", P: 6},
		{T: 7, Instance: v1, Ev: eventlog.Retired},
		{T: 8, Instance: v2, Ev: "request", P: 3, Res: r1},
		{T: 8, Instance: v2, Ev: eventlog.Owner, P: 3, Res: r1, Keys: a, Grant: 10},
		{T: 9, Instance: v2, Ev: "enter", P: 3, Res: r1},
		{T: 10, Instance: v2, Ev: "exit", P: 3},
	}
	if v, err := Logs(answered(logs)); err != nil || !v.OK() {
		t.Fatalf("a grant given back during a view change: %v, %v", v, err)
	}
	broken := append(append([]eventlog.Record(nil), logs[:11]...),
		eventlog.Record{T: 8, Instance: v2, Ev: "request", P: 4, Res: r1},
		eventlog.Record{T: 8, Instance: v2, Ev: eventlog.Owner, P: 4, Res: r1, Keys: a, Grant: 12},
		eventlog.Record{T: 9, Instance: v2, Ev: "enter", P: 3, Res: r1},
		eventlog.Record{T: 9, Instance: v2, Ev: "enter", P: 4, Res: r1},
		eventlog.Record{T: 10, Instance: v2, Ev: "exit", P: 3},
		eventlog.Record{T: 10, Instance: v2, Ev: "exit", P: 4},
	)
	v, err := Logs(answered(broken))
	if err != nil || v.Violations == 0 {
		t.Errorf("two holders of r0 in v2: %v, %v", v, err)
	}
}

// answered is recs with each enter answered at once, as a node does under
// its lease: the slot's fenced record right after it (without keys: the
// tokens are judged in TestLogs).
func answered(recs []eventlog.Record) []eventlog.Record {
	var out []eventlog.Record
	for _, r := range recs {
		out = append(out, r)
		if r.Ev == "enter" {
			out = append(out, eventlog.Record{T: r.T, Instance: r.Instance, Ev: eventlog.Fenced, P: r.P})
		}
	}
	return out
}

// TestLogsEnteredNeverAnswered: a node whose lease ran out, before it
// notices, enters a request in the view the cluster left (its own
// processes can grant it) while grant 10 holds the name in the next view;
// it answers nothing past its lease, and its fence retires the view: no
// fenced record, no holder, no violation. Answered, the same enter is one.
func TestLogsEnteredNeverAnswered(t *testing.T) {
	v1, v2 := "lock@1:0.1.2", "lock@2:0.2"
	a := []string{"lock/a"}
	r3, r5 := []proc.ResID{3}, []proc.ResID{5}
	logs := []eventlog.Record{
		{T: 1, Instance: v2, Ev: "request", P: 0, Res: r5},
		{T: 1, Instance: v2, Ev: eventlog.Owner, P: 0, Res: r5, Keys: a, Grant: 10},
		{T: 2, Instance: v2, Ev: "enter", P: 0, Res: r5},
		{T: 2, Instance: v2, Ev: eventlog.Fenced, P: 0, Keys: a, Epoch: 2, Counters: []uint64{7}},
		// Node 1, cut off past its lease, still in v1.
		{T: 3, Instance: v1, Ev: "request", P: 4, Res: r3},
		{T: 3, Instance: v1, Ev: eventlog.Owner, P: 4, Res: r3, Keys: a, Grant: 11},
		{T: 3, Instance: v1, Ev: "enter", P: 4, Res: r3},
		{T: 6, Instance: v1, Ev: eventlog.Retired},
		{T: 8, Instance: v2, Ev: "exit", P: 0},
	}
	if v, err := Logs(logs); err != nil || !v.OK() {
		t.Fatalf("an enter never answered: %v, %v", v, err)
	}
	told := slices.Insert(slices.Clone(logs), 7, eventlog.Record{T: 3, Instance: v1, Ev: eventlog.Fenced, P: 4, Keys: a, Epoch: 1, Counters: []uint64{9}})
	v, err := Logs(told)
	if err != nil || !strings.Contains(strings.Join(v.First, "\n"), "lock/a held by grants 10 and 11") {
		t.Errorf("the same enter answered: %v, %v", v, err)
	}
}
