// Package sweep is the engine every reproduction runs its points on: a
// work queue over all cores (no rounds: a slow run never holds the others
// back), a seed per point derived from the base seed and the point's
// coordinates, and the statistics the claims are judged with (means with
// 95 % confidence intervals).
package sweep

import (
	"context"
	"math"
	"runtime"
	"sync"
)

// Map runs job(i) for i in 0..n-1 on a work queue served by one worker per
// core and returns the results by index. progress, when set, is called
// after each job with the number done so far (never concurrently). A
// cancelled context stops handing out jobs; Map then returns ctx.Err().
func Map[T any](ctx context.Context, n int, progress func(done, total int), job func(i int) T) ([]T, error) {
	out := make([]T, n)
	var mu sync.Mutex
	done := 0
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(n, runtime.GOMAXPROCS(0)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = job(i)
				mu.Lock()
				done++
				if progress != nil {
					progress(done, n)
				}
				mu.Unlock()
			}
		}()
	}
	var err error
loop:
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break loop
		}
	}
	close(next)
	wg.Wait()
	return out, err
}

// Seed derives a run's seed from the base seed and the run's coordinates
// (each mixed on its own, so that no two coordinates collide): the same
// point gets the same seed whatever else the sweep runs, and in whatever
// order.
func Seed(base uint64, coords ...uint64) uint64 {
	h := splitmix(base)
	for _, p := range coords {
		h = splitmix(h ^ splitmix(p+0x632be59bd9b4e019))
	}
	return h
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// MeanSE is the sample mean of xs and its standard error.
func MeanSE(xs []float64) (mean, se float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1) / float64(len(xs)))
}

// CI95 is the sample mean of xs and the half-width of its 95 % confidence
// interval (normal approximation: 1.96 standard errors).
func CI95(xs []float64) (mean, half float64) {
	m, se := MeanSE(xs)
	return m, 1.96 * se
}
