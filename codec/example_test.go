package codec_test

import (
	"fmt"

	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/algo/modular"
	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/proc"
)

// Example encodes a message of modular-central: central's request to its
// coordinator, wrapped in the modular algorithm's traffic.
func Example() {
	c, err := codec.New(modular.For(central.Algorithm))
	if err != nil {
		panic(err)
	}
	m := proc.Wrapped{M: central.Req{Res: []proc.ResID{2, 5}}}
	b, err := c.AppendMessage(nil, m)
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", b) // Wrapped's tag, Req's tag, 2 resources, zigzag 2 and 5
	back, err := c.DecodeMessage(b)
	fmt.Printf("%v %v\n", back, err)
	_, err = c.DecodeMessage(b[:len(b)-1])
	fmt.Println(err)
	// Output:
	// 84 26 19 8c 68 77 cd 9d 02 04 0a
	// {{[2 5]}} <nil>
	// codec: at byte 8 in proc.Wrapped.M > central.Req.Res: length 2, but 1 bytes left
}
