package chaos

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var (
	soak     = flag.Duration("soak", 0, "run TestSoak this long (e.g. 10m)")
	seedFlag = flag.Uint64("seed", 0, "the seed of the run's fault schedule and clients (0: from the clock)")
	keep     = flag.String("dir", "", "keep the run's event logs, histories and fault schedule in this directory")
	only     = flag.String("faults", "", "inject only these kinds of fault, comma-separated ("+strings.Join(FaultNames(), ", ")+"), or all")
	every    = flag.Duration("every", 0, "the mean gap between faults (default 400ms)")
	suspect  = flag.Duration("suspect", 0, "the nodes' --suspect (default: the service's, 3s)")
	hogs     = flag.Int("hogs", 0, "the CPU hogs of a busy fault (default 4)")
	nodeKill = flag.Bool("nodekill", true, "inject kill -9 and restart of nodes (-nodekill=false: not: no node-kill, fast-restart, kill-two, kill-all)")
	maxPause = flag.Duration("maxpause", 0, "the longest SIGSTOP of a node (default 30s)")
	allotBin = flag.String("allot", "", "test this allot binary (default: build the module's)")
	procTTLF = flag.Duration("procttl", 0, "the client processes' session TTL (default: the client's, 10s; 2s on an allot serve without --data-dir)")
)

// TestMain runs a chaos client process when the harness started this
// binary as one.
func TestMain(m *testing.M) {
	if IsClientProcess() {
		if err := RunClientProcess(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// buildAllot builds the allot binary into dir.
func buildAllot(t *testing.T, dir string) string {
	bin := filepath.Join(dir, "allot")
	build := exec.Command("go", "build", "-o", bin, "github.com/allot-dev/allot/cmd/allot")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	return bin
}

// chaos runs a chaos run of d and fails the test on any violation, with
// the seed that replays its fault schedule.
func chaos(t *testing.T, d time.Duration) {
	dir := *keep
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("chaos seed %d (replay: go test ./chaos -run '%s$' -seed %d)", seed, t.Name(), seed)
	bin := *allotBin
	if bin == "" {
		bin = buildAllot(t, dir)
	}
	faults := AllFaults()
	var procTTL time.Duration // the client's default
	if !takesDataDir(bin) {
		// The view protocol before Raft: what it was built for only.
		faults, procTTL = LegacyFaults(), 2*time.Second
		t.Logf("allot serve keeps no data (no --data-dir): the faults it was built for, %v, on 2s sessions; -faults all injects the others too", faults.kinds())
	}
	if *procTTLF > 0 {
		procTTL = *procTTLF
	}
	if !*nodeKill {
		faults.NodeKill, faults.FastRestart, faults.KillTwo, faults.KillAll = false, false, false, false
	}
	if *only != "" {
		var err error
		if faults, err = ParseFaults(*only); err != nil {
			t.Fatal(err)
		}
	}
	cfg := Config{
		Bin: bin, Dir: dir, ProcTTL: procTTL, Seed: seed, Duration: d, Faults: faults, Every: *every, Suspect: *suspect, MaxPause: *maxPause, Hogs: *hogs,
		ClientProcess: func(env []string) *exec.Cmd {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), env...)
			return cmd
		},
		Logf:   t.Logf,
		Stderr: os.Stderr,
	}
	ctx, cancel := context.WithTimeout(context.Background(), d+2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	t.Logf("\n%s", rep.Summary())
	if !rep.OK() {
		t.Errorf("seed %d: %d violations; replay the fault schedule with -seed %d", seed, rep.Violations, seed)
	}
	if rep.Ops["lock"] == 0 || rep.Ops["acquire"] == 0 || rep.Ops["take"] == 0 || rep.Writes == 0 {
		t.Errorf("seed %d: too little done: %v, %d writes", seed, rep.Ops, rep.Writes)
	}
	for _, k := range faults.kinds() {
		if rep.Faults[k] == 0 && d >= 2*time.Minute {
			t.Errorf("seed %d: no %s fault injected", seed, k)
		}
	}
}

// TestChaos is two minutes of chaos: a fault schedule of 100s, room for
// a round of every kind with the default --suspect (about a minute, more
// on a loaded machine: a node killed is ready again one to four leases
// after its restart, and kills are four of the kinds), and the calm.
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the allot binary and runs two minutes")
	}
	if *soak > 0 {
		t.Skip("-soak given: TestSoak runs instead")
	}
	chaos(t, 2*time.Minute)
}

// TestSoak is chaos as long as -soak says.
func TestSoak(t *testing.T) {
	if *soak == 0 {
		t.Skip("give -soak DURATION")
	}
	if dl, ok := t.Deadline(); ok && time.Until(dl) < *soak+3*time.Minute {
		t.Fatalf("-soak %v needs a longer -timeout than go test's %v (e.g. -timeout %v)", *soak, time.Until(dl).Round(time.Minute), (*soak + 5*time.Minute).Round(time.Minute))
	}
	chaos(t, *soak)
}
