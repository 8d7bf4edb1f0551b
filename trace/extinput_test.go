package trace

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/allot-dev/allot/proc"
)

// TestExtInputRoundTrip: Social-CSP's extended input events are written
// as the README's trace contract shows, and read back unchanged.
func TestExtInputRoundTrip(t *testing.T) {
	in := []proc.Event{
		{Time: 430, Kind: proc.EvExtInput, P: 4, Unit: 1, Members: []proc.ID{9, 12}},
		{Time: 433, Kind: proc.EvReceive, P: 4, Unit: 1, Peer: 9},
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, e := range in {
		w.Event(e)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.Contains(got, `{"t":430,"ev":"ext-input","p":4,"comm":1,"partners":[9,12]}`) ||
		!strings.Contains(got, `{"t":433,"ev":"receive","p":4,"comm":1,"from":9}`) {
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
