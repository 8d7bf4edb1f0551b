package ctlsim

import (
	"reflect"
	"testing"

	"github.com/allot-dev/allot/sim"
)

func TestParseFaults(t *testing.T) {
	f, err := ParseFaults([]string{"1@100"}, []string{"1@300,2@50"}, []string{"0>1@10-20", "1-2@30"}, []string{"2@40-90"})
	if err != nil {
		t.Fatal(err)
	}
	want := Faults{
		Crashes:  []sim.Crash{{P: 1, At: 100}},
		Restarts: []sim.Restart{{P: 1, At: 300}, {P: 2, At: 50}},
		Cuts:     []sim.Cut{{From: 0, To: 1, Start: 10, End: 20}, {From: 1, To: 2, Start: 30}, {From: 2, To: 1, Start: 30}},
		Pauses:   []sim.Pause{{P: 2, Start: 40, End: 90}},
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("got %+v\nwant %+v", f, want)
	}
	if err := f.Validate(3); err != nil {
		t.Errorf("valid on 3 nodes: %v", err)
	}
	if err := f.Validate(2); err == nil {
		t.Error("node 2 of 2 nodes: no error")
	}
	for _, bad := range [][4][]string{
		{{"1"}, nil, nil, nil},
		{{"x@1"}, nil, nil, nil},
		{nil, {"1@-3"}, nil, nil},
		{nil, nil, {"0>1"}, nil},
		{nil, nil, {"0>1@20-10"}, nil},
		{nil, nil, {"0~1@20"}, nil},
		{nil, nil, nil, {"1@20"}},
		{nil, nil, nil, {"1@20-20"}},
	} {
		if _, err := ParseFaults(bad[0], bad[1], bad[2], bad[3]); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if err := (Faults{Cuts: []sim.Cut{{From: 1, To: 1}}}).Validate(3); err == nil {
		t.Error("a cut of a node from itself: no error")
	}
}
