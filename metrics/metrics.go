// Package metrics measures a run from its event stream: response time,
// throughput, concurrency and fairness. Message counts come from the driver,
// which sees every send.
package metrics

import (
	"github.com/allot-dev/allot/internal/dense"

	"math"
	"slices"

	"github.com/allot-dev/allot/proc"
)

// Recorder is a proc.Sink that measures.
type Recorder struct {
	procs    []procStat
	resp     []proc.Time // every response time, in answer order
	in       int         // processes inside now
	area     float64     // ∫ in dt
	last     proc.Time   // time of the previous event
	start    proc.Time
	started  bool
	Requests int // requests made
}

type procStat struct {
	asked  proc.Time // request time + 1 (0: none open)
	served int64     // requests answered
	inside bool      // in its critical section / holding a unit
}

// Event implements proc.Sink.
func (r *Recorder) Event(e proc.Event) {
	if !r.started {
		r.started, r.start, r.last = true, e.Time, e.Time
	}
	r.area += float64(r.in) * float64(e.Time-r.last)
	r.last = e.Time
	p := int(e.P)
	switch e.Kind {
	case proc.EvRequest, proc.EvAcquire:
		r.procs = dense.Grow(r.procs, p)
		r.procs[p].asked = e.Time + 1
		r.Requests++
	case proc.EvEnter, proc.EvGrant, proc.EvPermit, proc.EvReject:
		r.procs = dense.Grow(r.procs, p)
		st := &r.procs[p]
		if st.asked > 0 {
			r.resp = append(r.resp, e.Time-(st.asked-1))
			st.asked = 0
		}
		st.served++
		if (e.Kind == proc.EvEnter || e.Kind == proc.EvGrant) && !st.inside {
			st.inside = true
			r.in++
		}
	case proc.EvExit, proc.EvRelease:
		if p < len(r.procs) && r.procs[p].inside {
			r.procs[p].inside = false
			r.in--
		}
	}
}

// Stats summarizes a sample.
type Stats struct {
	Mean float64   `json:"mean"`
	P50  proc.Time `json:"p50"`
	P99  proc.Time `json:"p99"`
	Max  proc.Time `json:"max"`
}

// Summary is what a run measured.
type Summary struct {
	Served      int     // requests answered
	Response    Stats   // request -> answer, ticks
	Throughput  float64 // answers per 1000 ticks
	Concurrency float64 // time-average number of processes inside
	Fairness    float64 // Jain's index over per-process answers (1: equal)
	Duration    proc.Time
}

// Summary computes the measurements up to tick end.
func (r *Recorder) Summary(end proc.Time) Summary {
	s := Summary{Served: len(r.resp), Response: Describe(r.resp)}
	area := r.area + float64(r.in)*float64(max(0, end-r.last))
	s.Duration = end - r.start
	if s.Duration > 0 {
		s.Concurrency = area / float64(s.Duration)
		s.Throughput = 1000 * float64(s.Served) / float64(s.Duration)
	}
	served := make([]int64, len(r.procs))
	for i := range r.procs {
		served[i] = r.procs[i].served
	}
	s.Fairness = Jain(served)
	return s
}

// Describe computes mean, median, 99th percentile and maximum (nearest
// rank). It sorts a copy.
func Describe(xs []proc.Time) Stats {
	if len(xs) == 0 {
		return Stats{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += float64(x)
	}
	rank := func(q float64) proc.Time {
		i := int(math.Ceil(q*float64(len(s)))) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return Stats{Mean: sum / float64(len(s)), P50: rank(0.5), P99: rank(0.99), Max: s[len(s)-1]}
}

// Jain is Jain's fairness index (Σx)²/(n·Σx²) over the processes that were
// served at least once or are counted with zero; 1 is perfectly even.
func Jain(xs []int64) float64 {
	var sum, sq float64
	n := 0
	for _, x := range xs {
		sum += float64(x)
		sq += float64(x) * float64(x)
		n++
	}
	if sq == 0 {
		return 1
	}
	return sum * sum / (float64(n) * sq)
}
