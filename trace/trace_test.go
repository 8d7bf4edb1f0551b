package trace

import (
	"bytes"
	"reflect"
	"testing"

	"allot/proc"
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
	if got := buf.String(); got[:len(want)] != want {
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
