package codec_test

import (
	"testing"

	"github.com/allot-dev/allot/algo/central"
	"github.com/allot-dev/allot/proc"
)

func BenchmarkWrappedReq(b *testing.B) {
	c := catalogue(b)
	m := proc.Wrapped{M: central.Req{Res: []proc.ResID{3, 17, 40}}}
	var buf []byte
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			buf, _ = c.AppendMessage(buf[:0], m)
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.DecodeMessage(buf); err != nil {
				b.Fatal(err)
			}
		}
	})
}
