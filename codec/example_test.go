package codec_test

import (
	"fmt"

	"allot/algo/central"
	"allot/algo/modular"
	"allot/codec"
	"allot/proc"
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
	// 7a 93 d6 c8 2b 5e 16 89 02 04 0a
	// {{[2 5]}} <nil>
	// codec: at byte 8 in proc.Wrapped.M > central.Req.Res: length 2, but 1 bytes left
}
