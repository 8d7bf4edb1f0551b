//go:build figures

package main

// The figures of `allot repro --out DIR`: a build with -tags figures
// compiles the plotting stack in. Without the tag, allot builds without
// it (8 modules fewer to download and compile on a cold machine) and
// --out says how to get a build that draws.
import _ "github.com/allot-dev/allot/report/svg"
