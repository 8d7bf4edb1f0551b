package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// Points runs a reproduction's points and keeps their results by key, so
// that a sweep can be split over machines and joined again:
//
//	allot repro rhee              every point here, results in memory
//	allot repro rhee --shard i/N  the points with index ≡ i (mod N) of each
//	                              stage; results written, keyed by point
//	allot repro merge FILES...    no point runs: every result is read back
//	                              and the claims and figures are made
//
// Every result goes through its JSON encoding on every path (encoding/json
// writes floats in their shortest exact form), so the merged report is the
// unsharded one byte for byte. A nil *Points runs everything in memory.
type Points struct {
	// Shard is this run's slice of the points; the zero value is all.
	Shard Shard
	// Merged, when set, holds every point's result (from the shards' files)
	// and nothing is run.
	Merged map[string]json.RawMessage
	// Progress, when set, is told about finished runs of a stage; total
	// grows when the stopping rule asks a point for more runs.
	Progress func(stage string, done, total int)

	mu   sync.Mutex
	out  map[string]json.RawMessage
	used bool
}

// Shard is slice I of N (0 ≤ I < N); N = 0 means the whole sweep.
type Shard struct{ I, N int }

// Has reports whether point i of a stage is in the shard.
func (s Shard) Has(i int) bool { return s.N <= 1 || i%s.N == s.I }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// ErrPartial is returned by a sharded stage once its own points are done:
// the claims need the other shards (see study.Steps, which runs the stages
// that follow anyway).
var ErrPartial = errors.New("sweep: a shard's points are done; merge the shards for the report")

// Results is every result computed here, by point key ("stage/key").
func (p *Points) Results() map[string]json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out
}

// Used reports whether any stage ran on p: a reproduction that never
// does cannot be sharded.
func (p *Points) Used() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used
}

// Rule is the stopping rule of a point: run Min replicates, then Batch more
// at a time until the point's enough function holds, at most Max.
type Rule struct{ Min, Batch, Max int }

// Once is the rule of a point measured by a single run.
var Once = Rule{Min: 1, Batch: 1, Max: 1}

// Precise is the paper-style precision test of a stopping rule: the 95 %
// confidence interval of each series is within rel of its mean (rel = 0.05
// for "within 5 %").
func Precise(rel float64, series ...[]float64) bool {
	for _, xs := range series {
		if len(xs) < 2 {
			return false
		}
		m, h := CI95(xs)
		if h > rel*abs(m) {
			return false
		}
	}
	return true
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Each runs job once per key of a stage on the work queue and returns the
// results in key order. See Repeat.
func Each[T any](ctx context.Context, p *Points, stage string, keys []string, job func(i int) (T, error)) ([]T, error) {
	reps, err := Repeat(ctx, p, stage, keys, Once, func(i, _ int) (T, error) { return job(i) }, nil)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(reps))
	for i, r := range reps {
		out[i] = r[0]
	}
	return out, nil
}

// Repeat runs replicates job(i, rep) of every point i of a stage, keys[i]
// naming the point, on one work queue over all cores: each point runs
// rule.Min replicates, then rule.Batch more at a time until enough(i, reps)
// holds or it has rule.Max (enough nil: never). A point's replicates are
// decided by its own results only, so the outcome does not depend on the
// order the queue runs them in, nor on which shard runs the point.
//
// With p sharded, only the shard's points run and Repeat returns
// ErrPartial; with p merged, nothing runs and the results are read back.
func Repeat[T any](ctx context.Context, p *Points, stage string, keys []string, rule Rule, job func(i, rep int) (T, error), enough func(i int, reps []T) bool) ([][]T, error) {
	if rule.Min < 1 || rule.Batch < 1 || rule.Max < rule.Min {
		return nil, fmt.Errorf("sweep: stage %s: bad rule %+v", stage, rule)
	}
	full := func(i int) string { return stage + "/" + keys[i] }
	out := make([][]T, len(keys))
	if p != nil && p.Merged != nil {
		for i := range keys {
			raw, ok := p.Merged[full(i)]
			if !ok {
				return nil, fmt.Errorf("sweep: point %s is in no shard (is a shard missing?)", full(i))
			}
			if err := json.Unmarshal(raw, &out[i]); err != nil {
				return nil, fmt.Errorf("sweep: point %s: %w", full(i), err)
			}
		}
		return out, nil
	}
	var mine []int
	for i := range keys {
		if p == nil || p.Shard.Has(i) {
			mine = append(mine, i)
		}
	}
	q := queue[T]{rule: rule, job: job, enough: enough, out: out, pending: make([]int, len(keys))}
	q.cond = sync.NewCond(&q.mu)
	if p != nil && p.Progress != nil {
		q.progress = func(d, t int) { p.Progress(stage, d, t) }
	}
	for _, i := range mine {
		q.add(i, rule.Min)
	}
	if err := q.run(ctx); err != nil {
		return nil, err
	}
	// Through the encoding on every path: the merged report reads the same
	// values back.
	enc := make(map[string]json.RawMessage, len(mine))
	for _, i := range mine {
		b, err := json.Marshal(out[i])
		if err != nil {
			return nil, fmt.Errorf("sweep: point %s: %w", full(i), err)
		}
		enc[full(i)] = b
		out[i] = nil
		if err := json.Unmarshal(b, &out[i]); err != nil {
			return nil, fmt.Errorf("sweep: point %s: %w", full(i), err)
		}
	}
	if p == nil {
		return out, nil
	}
	p.mu.Lock()
	p.used = true
	if p.out == nil {
		p.out = map[string]json.RawMessage{}
	}
	for k, v := range enc { // any order: into a map
		if _, dup := p.out[k]; dup {
			p.mu.Unlock()
			return nil, fmt.Errorf("sweep: point %s run twice (two stages with one name?)", k)
		}
		p.out[k] = v
	}
	p.mu.Unlock()
	if p.Shard.N > 1 {
		return nil, ErrPartial
	}
	return out, nil
}

// queue is Repeat's work queue: (point, replicate) jobs, with a point's
// next batch queued when its current one is done.
type queue[T any] struct {
	rule     Rule
	job      func(i, rep int) (T, error)
	enough   func(i int, reps []T) bool
	progress func(done, total int)

	mu          sync.Mutex
	cond        *sync.Cond
	todo        [][2]int // (point, replicate)
	pending     []int    // per point: replicates queued or running
	out         [][]T
	done, total int
	busy        int // jobs running
	err         error
}

// add queues n more replicates of point i (q.mu held, or before run).
func (q *queue[T]) add(i, n int) {
	have := len(q.out[i])
	q.out[i] = append(q.out[i], make([]T, n)...)
	for r := have; r < have+n; r++ {
		q.todo = append(q.todo, [2]int{i, r})
	}
	q.pending[i] += n
	q.total += n
}

func (q *queue[T]) run(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var wg sync.WaitGroup
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		if q.err == nil {
			q.err = ctx.Err()
		}
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	defer stop()
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q.work()
		}()
	}
	wg.Wait()
	if q.err == nil {
		return ctx.Err()
	}
	return q.err
}

func (q *queue[T]) work() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		for len(q.todo) == 0 && q.busy > 0 && q.err == nil {
			q.cond.Wait()
		}
		if len(q.todo) == 0 || q.err != nil {
			q.cond.Broadcast()
			return
		}
		// First in, first out; the order changes no result.
		j := q.todo[0]
		q.todo = q.todo[1:]
		q.busy++
		q.mu.Unlock()
		v, err := q.job(j[0], j[1])
		q.mu.Lock()
		q.busy--
		if err != nil {
			if q.err == nil {
				q.err = err
			}
			q.cond.Broadcast()
			return
		}
		i := j[0]
		q.out[i][j[1]] = v
		q.pending[i]--
		q.done++
		if q.pending[i] == 0 {
			n := len(q.out[i])
			if n < q.rule.Max && (q.enough == nil || !q.enough(i, q.out[i])) {
				q.add(i, min(q.rule.Batch, q.rule.Max-n))
			}
		}
		if q.progress != nil {
			q.progress(q.done, q.total)
		}
		q.cond.Broadcast()
	}
}
