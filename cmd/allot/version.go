package main

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// release is the newest version CHANGELOG.md lists: a build from a
// checkout is that version or later. Cutting a release sets both (a test
// checks that they agree).
const release = "v0.1.0"

// version names this build (allot version).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "allot " + release + "+dev"
	}
	return describe(bi)
}

// pseudo matches the tail of a Go pseudo-version (v0.0.0-20261128093000-8e92fd2abc12,
// v0.1.1-0.20261128093000-8e92fd2abc12): the version of an untagged commit.
var pseudo = regexp.MustCompile(`[-.]\d{14}-[0-9a-f]{12}$`)

// describe names the build bi describes. A build of a tagged version (go
// install ...@v0.1.0, or a clean checkout at a tag) is that version; one
// go install made of an untagged commit is its pseudo-version, which
// names the commit. A build from a checkout is otherwise release+dev, the
// release it is at or after, since the pseudo-version Go gives it
// (v0.0.0-...) says nothing of where it stands; the commit and whether
// the tree was modified follow when the build recorded them.
func describe(bi *debug.BuildInfo) string {
	var rev string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	mv := bi.Main.Version
	plain, meta, _ := strings.Cut(mv, "+") // Go adds +dirty to a modified checkout's version
	v := release + "+dev"
	switch {
	case mv == "" || mv == "(devel)":
	case !pseudo.MatchString(plain) && meta == "":
		v = mv
	case rev == "" && pseudo.MatchString(plain):
		v = mv
	}
	v = "allot " + v
	if rev != "" {
		v += " commit " + rev
	}
	if modified {
		v += " (modified)"
	}
	return v + " " + bi.GoVersion
}
