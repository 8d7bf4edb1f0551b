package ui

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
)

const header = `{"t":0,"ev":"header","p":-1,"seed":1,"algorithm":"hygienic","kind":"exclusive","processes":3,"users":3,"edges":[[0,1],[1,2],[0,2]]}` + "\n"

// A fault-free run of a ring of 3: p0 eats, p1 eats after it.
const good = header +
	`{"t":1,"ev":"request","p":0,"res":[0,2]}
{"t":1,"ev":"enter","p":0,"res":[0,2]}
{"t":2,"ev":"request","p":1,"res":[0,1]}
{"t":2,"ev":"send","p":1,"to":0,"msg":"token"}
{"t":3,"ev":"deliver","p":0,"from":1,"msg":"token"}
{"t":5,"ev":"exit","p":0}
{"t":5,"ev":"send","p":0,"to":1,"msg":"fork"}
{"t":7,"ev":"deliver","p":1,"from":0,"msg":"fork"}
{"t":7,"ev":"enter","p":1,"res":[0,1]}
{"t":9,"ev":"exit","p":1}
{"t":9,"ev":"end","p":-1,"holding":[],"open":[]}
`

func load(t *testing.T, s string, o Options) (*Run, error) {
	t.Helper()
	return Load(strings.NewReader(s), "test", o)
}

func TestLoadGood(t *testing.T) {
	r, err := load(t, good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.T) != 10 || r.Procs != 3 || r.Kind != "exclusive" || len(r.Edges) != 3 || r.End == nil || r.End.T != 9 {
		t.Fatalf("loaded %+v", r)
	}
	if r.Violation != nil || r.Failure != nil {
		t.Errorf("a correct run judged %+v %+v", r.Violation, r.Failure)
	}
	// The fork's deliver (event 7) is paired with its send (event 6),
	// the token's (4) with 3.
	if r.Send[7] != 6 || r.Send[4] != 3 || r.Send[0] != -1 {
		t.Errorf("pairs %v", r.Send)
	}
	if r.Msgs[r.M[6]] != "fork" || r.Kinds[r.K[6]] != "send" || r.A[6] != 1 {
		t.Errorf("event 6: %s %s to %d", r.Kinds[r.K[6]], r.Msgs[r.M[6]], r.A[6])
	}
}

func TestLoadBad(t *testing.T) {
	lines := strings.SplitAfter(good, "\n")
	for _, c := range []struct {
		name, in string
		want     error
	}{
		{"empty", "", ErrEmpty},
		{"not JSON", "hello\n", ErrNotJSONL},
		{"CSV", "t,ev,p\n1,request,0\n", ErrNotJSONL},
		{"JSON, not events", `{"a":1}` + "\n", ErrNotJSONL},
		{"a later version", strings.Replace(header, `"ev":"header",`, `"ev":"header","version":2,`, 1) + strings.Join(lines[1:], ""), ErrVersion},
		{"cut mid-line", good[:len(good)-30], ErrTruncated},
		{"no end line", strings.Join(lines[:8], ""), ErrTruncated},
		{"two runs one after the other", good + good, ErrMixed},
		{"two headers", header + good, ErrMixed},
		{"time going back", header + lines[3] + lines[1] + lines[len(lines)-2], ErrMixed},
		{"a process the header does not have", header + `{"t":1,"ev":"request","p":7,"res":[0]}` + "\n" + lines[len(lines)-2], ErrMixed},
	} {
		_, err := load(t, c.in, Options{})
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// Version 1, said or not, is read.
	if _, err := load(t, strings.Replace(good, `"ev":"header",`, `"ev":"header","version":1,`, 1), Options{}); err != nil {
		t.Errorf("version 1: %v", err)
	}
}

func TestLoadTooLargeAndWindow(t *testing.T) {
	if _, err := load(t, good, Options{Max: 5}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("10 events, at most 5: %v", err)
	}
	r, err := load(t, good, Options{Max: 5, From: 5, To: 7})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.T, []int64{5, 5, 7, 7}) || len(r.Notes) == 0 || r.Violation != nil {
		t.Errorf("the window 5:7: %v, notes %q", r.T, r.Notes)
	}
}

func TestLoadSkipsUnknownKinds(t *testing.T) {
	in := strings.Replace(good, `{"t":9,"ev":"exit","p":1}`, `{"t":9,"ev":"exit","p":1}`+"\n"+`{"t":9,"ev":"teleport","p":1}`, 1)
	r, err := load(t, in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Skipped != 1 || len(r.T) != 10 || len(r.Notes) != 1 {
		t.Errorf("skipped %d, %d events, notes %q", r.Skipped, len(r.T), r.Notes)
	}
}

// The checker marks the first event that breaks exclusion, and only it.
func TestLoadMarksTheViolation(t *testing.T) {
	bad := strings.Replace(good, `{"t":5,"ev":"exit","p":0}`+"\n", "", 1)
	bad = strings.Replace(bad, `"holding":[]`, `"holding":[0]`, 1)
	r, err := load(t, bad, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Violation == nil || r.Violation.Index != 7 || r.Violation.T != 7 || !strings.Contains(r.Violation.What, "p1 enters") {
		t.Errorf("violation %+v, want event 7: p1 enters while p0 holds", r.Violation)
	}
	pool := `{"t":0,"ev":"header","p":-1,"seed":1,"algorithm":"pool","kind":"pool","processes":2,"users":2,"scenario":{"units":1}}
{"t":1,"ev":"acquire","p":0}
{"t":1,"ev":"acquire","p":1}
{"t":2,"ev":"grant","p":0,"unit":0}
{"t":3,"ev":"grant","p":1,"unit":0}
{"t":4,"ev":"end","p":-1,"holding":[0,1],"open":[]}
`
	r, err = load(t, pool, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Violation == nil || r.Violation.Index != 3 {
		t.Errorf("pool: violation %+v, want event 3 (unit 0 granted twice)", r.Violation)
	}
}

// A crash on a line of 5: p1 crashes holding its forks; p0 and p2 starve
// (1 hop), p3 and p4 do not.
func TestLoadFailureSet(t *testing.T) {
	in := `{"t":0,"ev":"header","p":-1,"seed":1,"algorithm":"x","kind":"exclusive","processes":5,"users":5,"edges":[[0,1],[1,2],[2,3],[3,4]]}
{"t":1,"ev":"request","p":1,"res":[0,1]}
{"t":1,"ev":"enter","p":1,"res":[0,1]}
{"t":2,"ev":"crash","p":1}
{"t":3,"ev":"request","p":0,"res":[0]}
{"t":3,"ev":"request","p":2,"res":[1,2]}
{"t":4,"ev":"request","p":4,"res":[3]}
{"t":5,"ev":"enter","p":4,"res":[3]}
{"t":6,"ev":"exit","p":4}
{"t":100,"ev":"end","p":-1,"holding":[1],"open":[0,2]}
`
	r, err := load(t, in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := &Failure{Crashed: []proc.ID{1}, Set: []proc.ID{0, 1, 2}, Locality: 1}
	if r.Failure == nil || !slices.Equal(r.Failure.Set, want.Set) || r.Failure.Locality != 1 || !slices.Equal(r.Failure.Crashed, want.Crashed) {
		t.Errorf("failure %+v, want %+v", r.Failure, want)
	}
}

// The hand-written columns read back as encoding/json would write them.
func TestRunJSON(t *testing.T) {
	r, err := load(t, good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Run
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	back.units = r.units
	if !reflect.DeepEqual(&back, r) {
		t.Errorf("read back %+v\nwant %+v", back, *r)
	}
	empty, err := json.Marshal(&Run{Kinds: []string{}, Msgs: []string{}})
	if err != nil || !strings.Contains(string(empty), `"t":[],`) || !strings.Contains(string(empty), `"res":[]}`) || !json.Valid(empty) {
		t.Errorf("an empty run: %s %v", empty, err)
	}
}

// A run that ends with requests open, nobody holding and no crash is
// marked stuck at its last event; not one that ends with a holder or after
// a crash.
func TestLoadStuck(t *testing.T) {
	stuck := strings.Replace(good, `{"t":7,"ev":"enter","p":1,"res":[0,1]}
{"t":9,"ev":"exit","p":1}
{"t":9,"ev":"end","p":-1,"holding":[],"open":[]}`, `{"t":9,"ev":"end","p":-1,"holding":[],"open":[1]}`, 1)
	r, err := load(t, stuck, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Violation; v == nil || v.Kind != "stuck" || v.Index != len(r.T)-1 || !strings.Contains(v.What, "p1 waiting") {
		t.Errorf("stuck run: %+v", v)
	}
	holding := strings.Replace(stuck, `"holding":[]`, `"holding":[2]`, 1)
	if r, err := load(t, holding, Options{}); err != nil || r.Violation != nil {
		t.Errorf("a run ending with a holder: %+v %v", r.Violation, err)
	}
	crashed := strings.Replace(stuck, `{"t":9,"ev":"end"`, `{"t":8,"ev":"crash","p":0}`+"\n"+`{"t":9,"ev":"end"`, 1)
	if r, err := load(t, crashed, Options{}); err != nil || r.Violation != nil {
		t.Errorf("a run ending after a crash: %+v %v", r.Violation, err)
	}
}
