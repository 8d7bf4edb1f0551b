// Package sweep is the engine every reproduction runs its points on: a
// work queue over all cores (no rounds: a slow run never holds the others
// back), a seed per point derived from the base seed and the point's
// coordinates, and the statistics the claims are judged with (means with
// 95 % confidence intervals, the stopping rule). Points (points.go) keeps
// results by point so that a sweep can be sharded over machines and merged.
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
// interval: Student's t quantile times the standard error, so that the few
// replicates a stopping rule starts from are not read as more precise than
// they are (1.96 standard errors, the normal approximation, is 15 % too
// narrow at 8 samples). Fewer than two samples give no interval: half 0.
func CI95(xs []float64) (mean, half float64) {
	m, se := MeanSE(xs)
	return m, T95(len(xs)-1) * se
}

// T95 is the two-sided 95 % quantile of Student's t with df degrees of
// freedom (tabulated to 30, then 1.96 + 2.4/df, within 0.5 % of the exact
// value).
func T95(df int) float64 {
	table := []float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df < 1 {
		return 0
	}
	if df < len(table) {
		return table[df]
	}
	return 1.96 + 2.4/float64(df)
}

// Wilson99 is the 99 % Wilson score interval of a proportion: s successes
// in n trials (the interval for a rate, where CI95 is for a mean).
func Wilson99(s, n int64) (lo, hi float64) {
	const z = 2.576
	p, nf := float64(s)/float64(n), float64(n)
	den := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / den
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return c - h, c + h
}
