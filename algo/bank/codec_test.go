package bank_test

import (
	"reflect"
	"testing"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/algo/bank"
	"github.com/allot-dev/allot/algo/controller"
	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/proc"
)

// TestMessagesRoundTrip: the bank and name assignment are not in the
// catalogue, whose codec test checks every declared message; this checks
// theirs, alone and together with the catalogue's quota controllers.
func TestMessagesRoundTrip(t *testing.T) {
	for _, a := range []algo.Algorithm{bank.Algorithm, controller.Names} {
		c, err := codec.New(a, controller.Algorithm)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		for _, m := range append(a.Messages, bank.Deposits{Level: -1}, controller.NameRange{Lo: 1 << 40}) {
			if !contains(a.Messages, m) {
				continue
			}
			b, err := c.AppendMessage(nil, m)
			if err != nil {
				t.Fatalf("%s: %#v: %v", a.Name, m, err)
			}
			back, err := c.DecodeMessage(b)
			if err != nil || !reflect.DeepEqual(back, m) {
				t.Fatalf("%s: %#v came back as %#v (%v)", a.Name, m, back, err)
			}
		}
	}
}

func contains(ms []proc.Message, m proc.Message) bool {
	for _, x := range ms {
		if reflect.TypeOf(x) == reflect.TypeOf(m) {
			return true
		}
	}
	return false
}
