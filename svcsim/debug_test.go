package svcsim

import (
	"math/rand/v2"
	"testing"
)

func TestDebugRun(t *testing.T) {
	t.Logf("%+v", RandomFaults(rand.New(rand.NewPCG(13, 0x6661756c74)), 3, 20000))
}
