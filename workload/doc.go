// Package workload generates what the application asks of an allocation
// algorithm: durations (think, critical section, message delay) drawn from
// distributions, the resource sets of requests, and scenario files that
// gather a whole run's settings.
package workload
