package svcsim

import (
	"testing"

	"github.com/allot-dev/allot/dist"
)

func TestQuickSweep(t *testing.T) {
	d, _ := dist.Parse("uniform:1:10")
	seeds := make([]uint64, 300)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	sum, err := Sweep(Config{Nodes: 3, Clients: 4, Horizon: 20000, Delay: d, Random: true}, seeds, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", sum)
	if sum.FirstFailed != nil {
		t.Logf("%+v", *sum.FirstFailed)
	}
}
