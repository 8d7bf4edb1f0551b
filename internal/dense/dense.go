// Package dense holds the one helper the event-stream consumers share:
// tables indexed by process or resource id that grow as ids appear.
package dense

// Grow makes index i of s valid, keeping len(s) exactly i+1 when it grows
// (callers count entries by len) and capacity ahead for later growth.
func Grow[T any](s []T, i int) []T {
	if i < len(s) {
		return s
	}
	if i < cap(s) {
		return s[:i+1]
	}
	ns := make([]T, i+1, 2*(i+1))
	copy(ns, s)
	return ns
}
