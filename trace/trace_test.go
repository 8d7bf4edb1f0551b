package trace

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
)

type collect []proc.Event

func (c *collect) Event(e proc.Event) { *c = append(*c, e) }

func TestRoundTrip(t *testing.T) {
	in := []proc.Event{
		{Time: 120, Kind: proc.EvRequest, P: 3, Res: []proc.ResID{5, 9}},
		{Time: 180, Kind: proc.EvEnter, P: 3, Res: []proc.ResID{5, 9}},
		{Time: 230, Kind: proc.EvExit, P: 3},
		{Time: 250, Kind: proc.EvAcquire, P: 2},
		{Time: 260, Kind: proc.EvGrant, P: 2, Unit: 1},
		{Time: 300, Kind: proc.EvRelease, P: 2, Unit: 1},
		{Time: 310, Kind: proc.EvPermit, P: 5},
		{Time: 320, Kind: proc.EvReject, P: 6},
		{Time: 321, Kind: proc.EvExhausted, P: 0},
		{Time: 400, Kind: proc.EvCrash, P: 7},
		{Time: 401, Kind: proc.EvSend, P: 2, Peer: 5, Msg: "fork"},
		{Time: 409, Kind: proc.EvDeliver, P: 5, Peer: 2, Msg: "fork"},
		{Time: 410, Kind: proc.EvName, P: 4, Unit: 17},
		{Time: 420, Kind: proc.EvDeposit, P: 2},
		{Time: 430, Kind: proc.EvWithdraw, P: 3},
		{Time: 440, Kind: proc.EvMove, P: 4, Unit: 2, Peer: 1},
		{Time: 450, Kind: proc.EvView, P: 1, Epoch: 12, Members: []proc.ID{0, 1, 2}},
		{Time: 460, Kind: proc.EvFence, P: 1, Epoch: 12},
		{Time: 470, Kind: proc.EvRestart, P: 1},
		{Time: 480, Kind: proc.EvOutput, P: 3, Unit: 2, Members: []proc.ID{9, 12}},
		{Time: 483, Kind: proc.EvInput, P: 9, Unit: 2, Peer: 3},
		{Time: 490, Kind: proc.EvAlive, P: 4, S: &proc.Session{ID: 7, Sent: 485, TTL: 3000, Lease: 900}},
		{Time: 491, Kind: proc.EvAlive, P: 4, S: &proc.Session{ID: 7, Sent: 486, TTL: 3000, Lease: 900, Backup: true, Said: true, Kept: 40}},
		{Time: 492, Kind: proc.EvEnter, P: 4, Res: []proc.ResID{1}, Epoch: 6, S: &proc.Session{ID: 7, Grant: 8, Counter: 33}},
		{Time: 493, Kind: proc.EvHeld, P: 0, S: &proc.Session{ID: 7, Grant: 8}},
		{Time: 494, Kind: proc.EvEnded, P: 0, S: &proc.Session{ID: 7}},
		{Time: 495, Kind: proc.EvPermit, P: 4, S: &proc.Session{ID: 7, Grant: 9, Quota: 1, Permits: 3}},
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, e := range in {
		w.Event(e)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `{"t":120,"ev":"request","p":3,"res":[5,9]}
{"t":180,"ev":"enter","p":3,"res":[5,9]}
{"t":230,"ev":"exit","p":3}
`
	if got := buf.String(); got[:len(want)] != want || !strings.Contains(got, `{"t":410,"ev":"name","p":4,"name":17}`) ||
		!strings.Contains(got, `{"t":480,"ev":"output","p":3,"comm":2,"partners":[9,12]}`) || !strings.Contains(got, `{"t":483,"ev":"input","p":9,"comm":2,"from":3}`) ||
		!strings.Contains(got, `{"t":492,"ev":"enter","p":4,"res":[1],"epoch":6,"s":{"id":7,"grant":8,"counter":33}}`) ||
		!strings.Contains(got, `{"t":495,"ev":"permit","p":4,"s":{"id":7,"grant":9,"quota":1,"permits":3}}`) {
		t.Fatalf("format:\n%s", got)
	}
	var out collect
	if err := Read(&buf, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual([]proc.Event(out), in) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", out, in)
	}
}

func TestReadRejectsGarbage(t *testing.T) {
	for _, s := range []string{"{nope\n", `{"t":1,"ev":"dance","p":0}` + "\n"} {
		var out collect
		if err := Read(bytes.NewBufferString(s), &out); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

func TestHeaderAndEndLines(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Header(Header{Seed: 3, Algorithm: "hygienic", Kind: "exclusive", Processes: 3, Users: 3, Edges: [][2]proc.ID{{0, 1}, {1, 2}}})
	for _, e := range []proc.Event{
		{Time: 1, Kind: proc.EvRequest, P: 0, Res: []proc.ResID{0}},
		{Time: 2, Kind: proc.EvRequest, P: 2, Res: []proc.ResID{1}},
		{Time: 3, Kind: proc.EvEnter, P: 0, Res: []proc.ResID{0}},
		{Time: 4, Kind: proc.EvRequest, P: 1, Res: []proc.ResID{0, 1}},
		{Time: 5, Kind: proc.EvEnter, P: 2, Res: []proc.ResID{1}},
		{Time: 6, Kind: proc.EvExit, P: 2},
	} {
		w.Event(e)
	}
	w.End(9)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasPrefix(lines[0], `{"t":0,"ev":"header","p":-1,"seed":3,"algorithm":"hygienic"`) || !strings.Contains(lines[0], `"edges":[[0,1],[1,2]]`) {
		t.Errorf("header %s", lines[0])
	}
	if got, want := lines[len(lines)-1], `{"t":9,"ev":"end","p":-1,"holding":[0],"open":[1]}`; got != want {
		t.Errorf("end line %s, want %s", got, want)
	}
	var n int
	if err := Read(strings.NewReader(b.String()), sinkFunc(func(proc.Event) { n++ })); err != nil || n != 6 {
		t.Errorf("Read: %v, %d events, want 6 (meta lines skipped)", err, n)
	}
}

type sinkFunc func(proc.Event)

func (f sinkFunc) Event(e proc.Event) { f(e) }
