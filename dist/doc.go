// Package dist holds the duration distributions of a run (think time,
// critical-section time, message delay), in integer ticks. It is a leaf:
// drivers, workloads and scenarios all import it, and it imports only the
// contract's Time.
package dist
