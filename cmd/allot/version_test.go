package main

import (
	"os"
	"regexp"
	"runtime/debug"
	"testing"
)

// TestChangelogMatchesRelease: the newest version of CHANGELOG.md is the
// release constant, so that a checkout build names the release it is at
// or after.
func TestChangelogMatchesRelease(t *testing.T) {
	b, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := newestVersion(b); got != release {
		t.Errorf("CHANGELOG.md's newest version is %q, cmd/allot's release %q: cut a release by setting both", got, release)
	}
	if got := newestVersion([]byte("## [Unreleased]\n\n## [0.2.0] - 2027-01-01\n## [0.1.0] - 2026-11-28\n")); got != "v0.2.0" {
		t.Errorf("newestVersion of a changelog with 0.2.0 on top: %q", got)
	}
	if got := newestVersion([]byte("## [Unreleased]\n- 0.3.0 soon\n")); got != "" {
		t.Errorf("newestVersion of a changelog without a version: %q", got)
	}
}

// newestVersion is the first version heading of a Keep a Changelog file
// ("## [X.Y.Z] - DATE"), as a tag (vX.Y.Z), or "" when it has none.
func newestVersion(changelog []byte) string {
	m := regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+[^\]]*)\]`).FindSubmatch(changelog)
	if m == nil {
		return ""
	}
	return "v" + string(m[1])
}

func TestDescribeBuild(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "8e92fd2abc12aaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	for _, c := range []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"go install @v0.2.0", "v0.2.0", nil, "allot v0.2.0 go1.26.0"},
		{"go install of a pre-release", "v0.2.0-rc.1", nil, "allot v0.2.0-rc.1 go1.26.0"},
		{"go install of an untagged commit", "v0.1.1-0.20261128093000-8e92fd2abc12", nil, "allot v0.1.1-0.20261128093000-8e92fd2abc12 go1.26.0"},
		{"clean checkout at a tag", "v0.2.0", vcs(rev, "false"), "allot v0.2.0 commit 8e92fd2abc12 go1.26.0"},
		{"checkout after a tag", "v0.2.1-0.20261128093000-8e92fd2abc12", vcs(rev, "false"), "allot " + release + "+dev commit 8e92fd2abc12 go1.26.0"},
		{"checkout without tags", "v0.0.0-20261128093000-8e92fd2abc12+dirty", vcs(rev, "true"), "allot " + release + "+dev commit 8e92fd2abc12 (modified) go1.26.0"},
		{"modified checkout at a tag", "v0.2.0+dirty", vcs(rev, "true"), "allot " + release + "+dev commit 8e92fd2abc12 (modified) go1.26.0"},
		{"go run, go test", "(devel)", nil, "allot " + release + "+dev go1.26.0"},
		{"no version", "", nil, "allot " + release + "+dev go1.26.0"},
	} {
		bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/allot-dev/allot", Version: c.version}, Settings: c.settings}
		if got := describe(bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
