// Package layers keeps allot's floors in order: its test asks `go list`
// for every package's dependencies and fails when a floor imports one
// above it.
//
//	cmd/allot, ui, experiments/*                 front ends, studies
//	scenario, run, ctlsim, svcsim, conformance   settings, measured runs, suites
//	sim, explore, host, transport, service       drivers and the network
//	app, check, metrics, trace, codec, workload  the application cycle, event readers, wire, generators
//	algo, algo/*                                 the problem model and the pure algorithms
//	proc, dist, graph                            the contract and its leaves
//
// The rules that matter most: no algorithm imports a driver (so the same
// code runs in the simulator, the explorer and the real-time host), and no
// driver imports a workload generator or the scenario package (a driver
// runs whatever it is handed), and the node (package service) links no
// checker: service/verify reads its event log from outside.
package layers
