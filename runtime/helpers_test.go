package runtime_test

import (
	"math/rand/v2"
	goruntime "runtime"
)

type randRand = rand.Rand

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

func goroutines() int { return goruntime.NumGoroutine() }
