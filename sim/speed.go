package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/allot-dev/allot/proc"
)

// Speeds is a speed schedule: how many ticks one local tick of a process
// takes, over time (Reif and Spirakis' step duration, normalised so that
// the fastest tame step is Min and the slowest Max). A process is tame
// while its factor stays in [Min, Max]; Untame intervals override the
// pattern with arbitrary factors.
//
//	pattern     factor of process p at tick t
//	min, max    Min, resp. Max, always
//	extremes    Min for even p, Max for odd p (fixed extremes side by side)
//	alternate   Min and Max in turn every Period ticks, neighbours opposite
//	walk        a random walk in [Min, Max], one step of ±(Max−Min)/8 every
//	            Period ticks, reflected at the ends; one walk per process
//	adversary   users (p < Users) alternate as above while every other
//	            process (a granter, a manager) is at Max: slow granters
//	            lengthen every allocation, and competing users out of phase
//	            fit the most rounds of one into a round of another
//
// A timer of d local ticks armed at t fires when the process's local time
// has advanced by d: the factor is integrated over the timer's span, so a
// speed change in the middle of a timer counts. A Speeds caches the walks:
// give each run its own.
type Speeds struct {
	Pattern  string
	Min, Max float64
	Period   proc.Time // alternate, walk, adversary; default 100
	Users    int       // adversary: ids below are users
	Seed     uint64    // walk
	Untame   []Untame

	walks map[proc.ID]*walk
}

// Untame is an interval [From, To) in which process P (or every process,
// when P is proc.None) runs at an arbitrary Factor.
type Untame struct {
	From, To proc.Time
	P        proc.ID
	Factor   float64
}

// SpeedPatterns lists the Pattern values.
const SpeedPatterns = "min max extremes alternate walk adversary"

// ParseSpeeds reads PATTERN:MIN:MAX[:PERIOD], for example walk:1:3:50.
func ParseSpeeds(spec string) (*Speeds, error) {
	parts := strings.Split(spec, ":")
	bad := func(why string) (*Speeds, error) {
		return nil, fmt.Errorf("bad speeds %q: %s (want PATTERN:MIN:MAX[:PERIOD], PATTERN one of %s)", spec, why, SpeedPatterns)
	}
	if len(parts) < 3 || len(parts) > 4 {
		return bad("wrong number of fields")
	}
	s := &Speeds{Pattern: parts[0]}
	if !strings.Contains(" "+SpeedPatterns+" ", " "+s.Pattern+" ") {
		return bad("unknown pattern")
	}
	var err error
	if s.Min, err = strconv.ParseFloat(parts[1], 64); err != nil {
		return bad("MIN is not a number")
	}
	if s.Max, err = strconv.ParseFloat(parts[2], 64); err != nil {
		return bad("MAX is not a number")
	}
	if len(parts) == 4 {
		p, err := strconv.ParseInt(parts[3], 10, 64)
		if err != nil || p < 1 {
			return bad("PERIOD is not a whole number ≥ 1")
		}
		s.Period = proc.Time(p)
	}
	if err := s.Validate(); err != nil {
		return bad(err.Error())
	}
	return s, nil
}

// Validate reports a schedule that cannot run.
func (s *Speeds) Validate() error {
	if !(s.Min > 0) || !(s.Max >= s.Min) || s.Max > 1e6 {
		return fmt.Errorf("need 0 < MIN ≤ MAX ≤ 1e6, have %v, %v", s.Min, s.Max)
	}
	if s.Period < 0 {
		return fmt.Errorf("negative period %d", s.Period)
	}
	for _, u := range s.Untame {
		if u.To <= u.From || !(u.Factor > 0) || u.Factor > 1e6 {
			return fmt.Errorf("untame interval [%d, %d) at factor %v: want From < To and 0 < factor ≤ 1e6", u.From, u.To, u.Factor)
		}
	}
	return nil
}

// Ratio is r_max/r_min of the tame pattern.
func (s *Speeds) Ratio() float64 { return s.Max / s.Min }

// Tame reports whether p is tame during [from, to]: no untame interval of p
// (or of every process) meets it.
func (s *Speeds) Tame(p proc.ID, from, to proc.Time) bool {
	for _, u := range s.Untame {
		if (u.P == proc.None || u.P == p) && u.From <= to && from < u.To {
			return false
		}
	}
	return true
}

func (s *Speeds) period() proc.Time {
	if s.Period > 0 {
		return s.Period
	}
	return 100
}

// factor is p's factor at t and the tick up to which it stays so.
func (s *Speeds) factor(p proc.ID, t proc.Time) (float64, proc.Time) {
	until := proc.Time(math.MaxInt64)
	for _, u := range s.Untame {
		if u.P != proc.None && u.P != p {
			continue
		}
		if u.From <= t && t < u.To {
			return u.Factor, u.To
		}
		if u.From > t {
			until = min(until, u.From)
		}
	}
	per := s.period()
	epoch := t / per
	next := min(until, (epoch+1)*per)
	switch s.Pattern {
	case "max":
		return s.Max, until
	case "extremes":
		if p%2 == 0 {
			return s.Min, until
		}
		return s.Max, until
	case "alternate":
		return s.alternate(p, epoch), next
	case "adversary":
		if int(p) >= s.Users {
			return s.Max, until
		}
		return s.alternate(p, epoch), next
	case "walk":
		return s.walk(p, epoch), next
	}
	return s.Min, until
}

func (s *Speeds) alternate(p proc.ID, epoch proc.Time) float64 {
	if (int64(p)+int64(epoch))%2 == 0 {
		return s.Min
	}
	return s.Max
}

// Duration implements Speed: the ticks until p's local clock has advanced
// by d local ticks from now.
func (s *Speeds) Duration(p proc.ID, now, d proc.Time) proc.Time {
	if d <= 0 {
		return d
	}
	rem := float64(d) // local ticks still to go
	t := now
	for {
		f, until := s.factor(p, t)
		span := until - t
		if until == math.MaxInt64 || float64(span) >= rem*f {
			return t + proc.Time(math.Ceil(rem*f-1e-9)) - now
		}
		rem -= float64(span) / f
		t = until
	}
}

// walk is one process's random walk, computed forward and checkpointed
// every walkBlock epochs so that any epoch can be recomputed.
type walk struct {
	checks []float64 // value at epoch i*walkBlock
	epoch  proc.Time // last computed
	value  float64
}

const walkBlock = 64

func (s *Speeds) walk(p proc.ID, epoch proc.Time) float64 {
	if s.walks == nil {
		s.walks = map[proc.ID]*walk{}
	}
	w := s.walks[p]
	if w == nil {
		start := s.Min + (s.Max-s.Min)*unit(s.Seed, uint64(p), math.MaxUint64)
		w = &walk{checks: []float64{start}, value: start}
		s.walks[p] = w
	}
	if epoch < w.epoch {
		// Go back to the checkpoint at or before epoch.
		b := epoch / walkBlock
		w.epoch, w.value = b*walkBlock, w.checks[b]
	}
	step := (s.Max - s.Min) / 8
	for w.epoch < epoch {
		w.epoch++
		if unit(s.Seed, uint64(p), uint64(w.epoch)) < 0.5 {
			w.value -= step
		} else {
			w.value += step
		}
		// Reflect at the ends.
		if w.value < s.Min {
			w.value = 2*s.Min - w.value
		}
		if w.value > s.Max {
			w.value = 2*s.Max - w.value
		}
		if w.epoch%walkBlock == 0 && int(w.epoch/walkBlock) == len(w.checks) {
			w.checks = append(w.checks, w.value)
		}
	}
	return w.value
}

// unit is a deterministic uniform number in [0, 1) from three words
// (splitmix64 finalisers).
func unit(a, b, c uint64) float64 {
	x := a*0x9e3779b97f4a7c15 ^ b*0xbf58476d1ce4e5b9 ^ c*0x94d049bb133111eb
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}
