package main

import (
	"flag"
	"fmt"
	"net/http"
	"net/http/pprof"
	"runtime"
	"runtime/debug"
	"strconv"
)

// profileOpts are the sampling rates of the blocking profiles a node serves
// beside its metrics. They are off by default: sampling every blocking
// event costs the service time on the very path being measured, so a
// profile of where goroutines wait is something one asks for.
type profileOpts struct {
	blockRate     int // runtime.SetBlockProfileRate: sample one blocking event per this many ns blocked
	mutexFraction int // runtime.SetMutexProfileFraction: sample one contention event in this many
}

func (p *profileOpts) flags(fs *flag.FlagSet) {
	fs.IntVar(&p.blockRate, "block-profile-rate", 0, "with --metrics: sample goroutines blocking on channels and locks, one event per this many nanoseconds blocked, into /debug/pprof/block (0: off)")
	fs.IntVar(&p.mutexFraction, "mutex-profile-fraction", 0, "with --metrics: sample one in this many contended mutex hand-offs into /debug/pprof/mutex (0: off)")
}

// check rejects negative rates and rates without --metrics (there would
// be nowhere to read the profile from).
func (p profileOpts) check(metrics bool) error {
	if p.blockRate < 0 || p.mutexFraction < 0 {
		return badf("--block-profile-rate and --mutex-profile-fraction must not be negative")
	}
	if !metrics && (p.blockRate > 0 || p.mutexFraction > 0) {
		return badf("--block-profile-rate and --mutex-profile-fraction need --metrics (the profiles are served there)")
	}
	return nil
}

// args gives the flags back, for the nodes allot cluster starts.
func (p profileOpts) args() []string {
	var out []string
	if p.blockRate > 0 {
		out = append(out, "--block-profile-rate", strconv.Itoa(p.blockRate))
	}
	if p.mutexFraction > 0 {
		out = append(out, "--mutex-profile-fraction", strconv.Itoa(p.mutexFraction))
	}
	return out
}

// start turns the sampling on for this process; the rates are the
// runtime's own, one per process, and a node is one process.
func (p profileOpts) start() {
	if p.blockRate > 0 {
		runtime.SetBlockProfileRate(p.blockRate)
	}
	if p.mutexFraction > 0 {
		runtime.SetMutexProfileFraction(p.mutexFraction)
	}
}

// profileHandlers serves the Go profiles under /debug/pprof/: the index
// and the named profiles (heap, goroutine, block, mutex, ...), a CPU
// profile (/debug/pprof/profile?seconds=N), an execution trace
// (/debug/pprof/trace?seconds=N) and symbol lookup for go tool pprof; and
// POST /debug/free-os-memory, which collects the heap and gives every
// freed page back to the kernel at once (debug.FreeOSMemory): the
// runtime's scavenger would keep up to about the next GC's heap goal for
// a while, so a resident set read after it says what the node holds, not
// what the runtime kept for its next allocations.
func profileHandlers(mux *http.ServeMux) {
	mux.HandleFunc("POST /debug/free-os-memory", func(w http.ResponseWriter, _ *http.Request) {
		debug.FreeOSMemory()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Fprintf(w, "heap in use %d KiB, returned to the kernel %d KiB\n", m.HeapInuse>>10, m.HeapReleased>>10)
	})
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}
