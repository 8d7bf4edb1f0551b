package layers

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/allot-dev/allot/"

// drivers run algorithms; nothing an algorithm imports may be one.
var drivers = []string{"sim", "explore", "host", "transport", "service", "runtime"}

// rules: packages matching the key (a path, or a path prefix ending in
// "/...") must not depend on any package matching a forbidden entry.
var rules = []struct {
	pkgs      string
	forbidden []string
	why       string
}{
	{"algo/...", append([]string{"app", "workload", "scenario", "run", "check", "metrics", "trace", "experiments", "conformance", "cmd", "codec"}, drivers...),
		"algorithms are pure: the same code runs under every driver"},
	{"proc/...", []string{"algo", "app", "workload", "scenario", "run", "check", "metrics"}, "the contract is the bottom floor"},
	{"dist", []string{"algo", "app", "workload", "scenario", "run"}, "distributions are a leaf"},
	{"app", append([]string{"workload", "scenario", "run", "check", "metrics"}, drivers...), "the application cycle serves every driver"},
	{"sim", []string{"workload", "scenario", "run", "experiments", "conformance"}, "a driver runs what it is handed"},
	{"explore", []string{"workload", "scenario", "run", "experiments", "conformance"}, "a driver runs what it is handed"},
	{"host/...", []string{"workload", "scenario", "run", "experiments", "conformance"}, "a driver runs what it is handed"},
	{"transport/...", []string{"workload", "scenario", "run", "experiments", "conformance", "algo"}, "a transport carries any message"},
	{"check", append([]string{"algo/..."}, drivers...), "checkers read events, never an algorithm"},
	{"metrics", append([]string{"algo/..."}, drivers...), "metrics read events, never an algorithm"},
	{"scenario", []string{"run", "experiments", "cmd"}, "settings sit below what runs them"},
	{"session", append([]string{"control", "client", "workload", "scenario", "run", "experiments", "cmd"}, drivers...), "the sessions' machine is pure: every driver runs it, and the client takes its lease rule without the control plane"},
	{"users", append([]string{"control", "session", "lockname", "dataplane", "client", "algo/...", "workload", "scenario", "run", "experiments", "cmd"}, drivers...), "a node's accounting of its users of a lazy instance is pure: the service and the data plane's model both run it"},
	{"chunk", append([]string{"control", "session", "lockname", "users", "dataplane", "client", "algo/...", "workload", "scenario", "run", "experiments", "cmd"}, drivers...), "a node's rule that keeps its permits within its chunk is pure: the service and the data plane's model both run it"},
	{"ctlsim", []string{"workload", "scenario", "run", "experiments", "conformance", "cmd"}, "the control plane's runs take their faults as values, not settings"},
	{"dataplane", append([]string{"check", "client", "workload", "scenario", "run", "experiments", "cmd"}, drivers...), "the data plane's machine is pure: the simulator and the explorer drive it, and the service is to"},
	{"svcsim", []string{"workload", "scenario", "run", "experiments", "conformance", "cmd"}, "the data path's runs take their faults as values, not settings"},
	{"mtls", append([]string{"algo", "client", "cmd"}, drivers...), "the client loads its certificates too: mtls must not bring the node along"},
	{"ui", append([]string{"algo/...", "client", "cmd", "run", "scenario"}, drivers...), "the browser view reads traces and the nodes' status over HTTP: it runs nothing"},
	{"service/eventlog", []string{"check", "service/verify"}, "the node writes its log with it: the checkers read the log, the writer never runs them"},
	{"service/internal/...", []string{"check", "service/verify"}, "the node's own parts do not link the checkers"},
}

// daemon: the node package itself, not the packages below it (its checker,
// service/verify, sits below it by path and above it by floor).
var daemon = struct {
	pkg       string
	forbidden []string
	why       string
}{"service", []string{"check", "service/verify"}, "the daemon does not link the checkers: service/verify reads its event log"}

// match reports whether pkg (module-relative) matches pattern: a path, or
// a prefix ending in "/..." that also matches the prefix itself.
func match(pkg, pattern string) bool {
	if p, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == p || strings.HasPrefix(pkg, p+"/")
	}
	return pkg == pattern || strings.HasPrefix(pkg, pattern+"/")
}

func TestFloors(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, ok := strings.CutPrefix(f[0], module)
		if !ok {
			continue
		}
		deps := func(forbidden []string, why string) {
			checked++
			for _, d := range f[1:] {
				dep, ok := strings.CutPrefix(d, module)
				if !ok || strings.HasPrefix(dep, "internal/") {
					continue
				}
				for _, bad := range forbidden {
					if match(dep, bad) && !match(pkg, bad) {
						t.Errorf("%s depends on %s: %s", pkg, dep, why)
					}
				}
			}
		}
		for _, r := range rules {
			if match(pkg, r.pkgs) {
				deps(r.forbidden, r.why)
			}
		}
		if pkg == daemon.pkg {
			deps(daemon.forbidden, daemon.why)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages checked: the rules no longer match the tree", checked)
	}
}

// TestFloorsCatchAViolation shows the rule matching catches what it must.
func TestFloorsCatchAViolation(t *testing.T) {
	for _, c := range []struct {
		pkg, pattern string
		want         bool
	}{
		{"algo/hygienic", "algo/...", true},
		{"algo", "algo/...", true},
		{"algorithm", "algo/...", false},
		{"sim", "sim", true},
		{"simulator", "sim", false},
		{"host/mem", "host", true},
	} {
		if got := match(c.pkg, c.pattern); got != c.want {
			t.Errorf("match(%q, %q) = %v", c.pkg, c.pattern, got)
		}
	}
}
