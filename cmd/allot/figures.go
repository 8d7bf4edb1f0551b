//go:build figures

package main

// The figures of `allot repro --out DIR`: a build with -tags figures
// compiles the plotting stack in. Without the tag, allot builds without
// it (a cold first build in a fraction of the time) and --out says how to
// get a build that draws.
import _ "github.com/allot-dev/allot/report/svg"
