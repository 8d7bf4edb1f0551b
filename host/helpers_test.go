package host_test

import (
	"math/rand/v2"
	goruntime "runtime"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

func goroutines() int { return goruntime.NumGoroutine() }
