// Package maporder keeps a map's iteration order out of every run: Go
// starts each range over a map at a random place, so a loop that sends,
// answers, records or counts in that order makes one seed give other
// bytes on another run (a sweep over 1000 seeds once came out two
// sessions short, one run in two).
//
// Its test type-checks the packages whose runs must repeat (the
// contract, the simulator and the explorer, the algorithms, the
// checkers, the sessions' and the control plane's machines and their
// simulators) and fails on any range over a map that neither goes
// through its keys sorted (slices.Sorted(maps.Keys(m))) nor says, in a
// comment on its line or the line above, "any order" and why (a loop
// that only deletes, or only sums).
package maporder
