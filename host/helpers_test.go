package host_test

import (
	"fmt"
	"github.com/allot-dev/allot/transport/transporttest"
	"math/rand/v2"
	goruntime "runtime"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

func fmtSscanf(s, format string, a ...any) (int, error) { return fmt.Sscanf(s, format, a...) }

func goroutines() int { return goruntime.NumGoroutine() }

func settle(want int) int { return transporttest.Settle(want) }
