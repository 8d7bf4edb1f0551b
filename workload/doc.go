// Package workload generates what the application asks of an allocation
// algorithm: the resource sets of requests (dynamic workloads, the
// Reif–Spirakis matrix networks) and the failure models some algorithms
// read. Durations are package dist's; scenario files are package scenario's.
package workload
