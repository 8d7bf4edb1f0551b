package pool

// The pass rules of the claims, as functions of the measured series alone,
// so that a test can feed them a deliberately wrong series.

// safe: some grants, no violation, no request left open.
func safe(grants, violations, open int) bool {
	return grants > 0 && violations == 0 && open == 0
}

// trafficBounded: messages per grant c (by load) grow at most 1.5 times
// from the lowest load to the highest, and end below the broadcast pool's
// bc there.
func trafficBounded(c, bc []float64) bool {
	last := len(c) - 1
	return c[last] <= 1.5*c[0] && c[last] < bc[last]
}

// waitAbove lists the loads at which the p99 wait exceeds the bound.
func waitAbove(p99 []float64, bound float64) []int {
	var out []int
	for l, x := range p99 {
		if x > bound {
			out = append(out, l)
		}
	}
	return out
}

// notBelow lists the loads at which R-RESOURCES' excess moves per grant is
// not below the broadcast pool's.
func notBelow(pool, bc []float64) []int {
	var out []int
	for l := range pool {
		if pool[l] >= bc[l] {
			out = append(out, l)
		}
	}
	return out
}

// unbounded: messages per grant c (by load) grow more than 1.5 times from
// the lowest load to the highest, the converse of trafficBounded's first
// clause: what §4 says of [A&&82], judged on hash-pool.
func unbounded(c []float64) bool {
	last := len(c) - 1
	return c[last] > 1.5*c[0]
}

// notBelowFrom lists the loads, from index from on, at which pool's value
// is not below other's: where R-RESOURCES fails to beat [A&&82]'s scheme.
func notBelowFrom(pool, other []float64, from int) []int {
	var out []int
	for l := from; l < len(pool); l++ {
		if pool[l] >= other[l] {
			out = append(out, l)
		}
	}
	return out
}
