package dist

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-dev/allot/proc"
)

// Dist is a distribution of durations in ticks. The zero value is const:0.
//
//	const:X        always X
//	uniform:A:B    uniform on the integers A..B inclusive
//	exp:MEAN       exponential with the given mean, rounded to the nearest
//	               tick and never below 1 (a message cannot arrive at the
//	               tick it is sent)
//	seq:X,Y,...    X for the first draw, Y for the second, ..., the last
//	               value for every draw after: a script, not a random
//	               distribution (the explorer's counterexamples replay in
//	               the simulator this way). A seq keeps its place across
//	               copies: a driver takes a Fresh copy for each run.
type Dist struct {
	kind distKind
	a, b int64
	mean float64
	seq  *script
}

// script is a seq distribution's values and how many were drawn.
type script struct {
	vals []int64
	next int
}

type distKind uint8

const (
	distConst distKind = iota
	distUniform
	distExp
	distSeq
)

// Const is the distribution that always draws x.
func Const(x proc.Time) Dist { return Dist{kind: distConst, a: int64(x)} }

// Uniform draws uniformly from a..b inclusive.
func Uniform(a, b proc.Time) Dist { return Dist{kind: distUniform, a: int64(a), b: int64(b)} }

// Exp draws from an exponential distribution with the given mean (≥ 1).
func Exp(mean float64) Dist { return Dist{kind: distExp, mean: mean} }

// MaxTicks is the longest duration a distribution may draw: 2^40 ticks
// (35 years of milliseconds), far enough from the int64 limit that sums of
// durations along a run cannot overflow.
const MaxTicks = 1 << 40

// Seq is the scripted distribution seq:vals... (at least one value).
func Seq(vals ...proc.Time) Dist {
	sc := &script{}
	for _, v := range vals {
		sc.vals = append(sc.vals, int64(v))
	}
	return Dist{kind: distSeq, seq: sc}
}

// Fresh is d with a script of its own, back at its first value (d itself
// for every distribution but seq), so that runs sharing a configuration
// each replay the whole script.
func (d Dist) Fresh() Dist {
	if d.kind == distSeq {
		d.seq = &script{vals: d.seq.vals}
	}
	return d
}

// Parse parses the DIST syntax above.
func Parse(s string) (Dist, error) {
	name, rest, _ := strings.Cut(s, ":")
	args := strings.Split(rest, ":")
	bad := func(why string) (Dist, error) {
		return Dist{}, fmt.Errorf("bad distribution %q: %s (want const:X, uniform:A:B, exp:MEAN or seq:X,Y,...)", s, why)
	}
	ints := func(n int) ([]int64, error) {
		if rest == "" || len(args) != n {
			return nil, fmt.Errorf("%s takes %d number(s)", name, n)
		}
		out := make([]int64, n)
		for i, a := range args {
			v, err := strconv.ParseInt(a, 10, 64)
			switch {
			case errors.Is(err, strconv.ErrRange) || err == nil && v > MaxTicks:
				return nil, fmt.Errorf("%s ticks is too long (at most %d)", a, MaxTicks)
			case err != nil:
				return nil, fmt.Errorf("%q is not a whole number of ticks", a)
			case v < 0:
				return nil, fmt.Errorf("%d ticks is negative", v)
			}
			out[i] = v
		}
		return out, nil
	}
	switch name {
	case "const":
		v, err := ints(1)
		if err != nil {
			return bad(err.Error())
		}
		return Const(proc.Time(v[0])), nil
	case "uniform":
		v, err := ints(2)
		if err != nil {
			return bad(err.Error())
		}
		if v[0] > v[1] {
			return bad("A > B")
		}
		return Uniform(proc.Time(v[0]), proc.Time(v[1])), nil
	case "seq":
		vals := strings.Split(rest, ",")
		args = vals
		v, err := ints(len(vals))
		if err != nil {
			return bad(err.Error())
		}
		ts := make([]proc.Time, len(v))
		for i := range v {
			ts[i] = proc.Time(v[i])
		}
		return Seq(ts...), nil
	case "exp":
		if rest == "" || len(args) != 1 {
			return bad("exp takes one mean")
		}
		m, err := strconv.ParseFloat(args[0], 64)
		if err != nil || !(m >= 1) || m > MaxTicks {
			return bad(fmt.Sprintf("mean %q is not a number ≥ 1", args[0]))
		}
		return Exp(m), nil
	}
	return bad("unknown distribution " + strconv.Quote(name))
}

// Draw draws one duration.
func (d *Dist) Draw(r *rand.Rand) proc.Time {
	switch d.kind {
	case distUniform:
		if d.a == d.b {
			return proc.Time(d.a)
		}
		return proc.Time(d.a + r.Int64N(d.b-d.a+1))
	case distExp:
		return proc.Time(max(1, math.Round(r.ExpFloat64()*d.mean)))
	case distSeq:
		sc := d.seq
		v := sc.vals[min(sc.next, len(sc.vals)-1)]
		sc.next++
		return proc.Time(v)
	}
	return proc.Time(d.a)
}

// Mean is the distribution's mean in ticks (before rounding for exp).
func (d Dist) Mean() float64 {
	switch d.kind {
	case distUniform:
		return float64(d.a+d.b) / 2
	case distExp:
		return d.mean
	case distSeq:
		var sum int64
		for _, v := range d.seq.vals {
			sum += v
		}
		return float64(sum) / float64(len(d.seq.vals))
	}
	return float64(d.a)
}

// Min is the smallest value Draw can return.
func (d Dist) Min() proc.Time {
	switch d.kind {
	case distExp:
		return 1
	case distSeq:
		return proc.Time(slices.Min(d.seq.vals))
	}
	return proc.Time(d.a)
}

// Max is the largest value Draw can return; ok is false when there is
// none (exp).
func (d Dist) Max() (m proc.Time, ok bool) {
	switch d.kind {
	case distExp:
		return 0, false
	case distUniform:
		return proc.Time(d.b), true
	case distSeq:
		return proc.Time(slices.Max(d.seq.vals)), true
	}
	return proc.Time(d.a), true
}

// String is the DIST syntax of d.
func (d Dist) String() string {
	switch d.kind {
	case distUniform:
		return fmt.Sprintf("uniform:%d:%d", d.a, d.b)
	case distExp:
		return "exp:" + strconv.FormatFloat(d.mean, 'g', -1, 64)
	case distSeq:
		v := make([]string, len(d.seq.vals))
		for i, x := range d.seq.vals {
			v[i] = strconv.FormatInt(x, 10)
		}
		return "seq:" + strings.Join(v, ",")
	}
	return fmt.Sprintf("const:%d", d.a)
}
