package client_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestAcrossProcesses runs the workload against a cluster of three allot
// serve processes started by allot cluster, and checks the nodes' event
// logs.
func TestAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the allot binary and starts processes")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	var addrs []string
	stop := allotCluster(ctx, t, dir, func(line string) bool {
		if a, ok := strings.CutPrefix(line, "cluster of 3 nodes: "); ok {
			addrs = strings.Split(a, ",")
		}
		return addrs != nil
	}, nil, "--nodes", "3", "--events", dir, "--quota", "calls=100:10")
	defer stop()
	if len(addrs) != 3 {
		t.Fatal("allot cluster printed no addresses")
	}
	// One more client in a process of its own: this test binary, running
	// TestClientProcess, beside the goroutines of this one.
	other := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestClientProcess$", "-test.count=1")
	other.Env = append(os.Environ(), "ALLOT_TEST_ADDRS="+strings.Join(addrs, ","))
	otherOut := &strings.Builder{}
	other.Stdout, other.Stderr = otherOut, otherOut
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	workload(ctx, t, addrs, 12, 4, 30)
	if err := other.Wait(); err != nil {
		t.Errorf("the client process failed: %v\n%s", err, otherOut)
	}
	stop()
	var logs [][]byte
	for i := range 3 {
		b, err := os.ReadFile(filepath.Join(dir, "node-"+string(rune('0'+i))+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, b)
	}
	v := verifyLogs(t, logs)
	t.Logf("%v", v)
	if v.Answered < 2*(12*30+4*30) {
		t.Errorf("only %d requests answered", v.Answered)
	}
}

// TestClientProcess is the client process of TestAcrossProcesses; run on
// its own it does nothing.
func TestClientProcess(t *testing.T) {
	addrs := os.Getenv("ALLOT_TEST_ADDRS")
	if addrs == "" {
		t.Skip("the client process of TestAcrossProcesses")
	}
	workload(context.Background(), t, strings.Split(addrs, ","), 12, 4, 30)
}

// built is the allot binary the tests of this package start, built once
// for all of them (a build is mostly its link, seconds each on a loaded
// machine), in a directory TestMain removes.
var built struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain removes the allot binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// allotBinary is the path of allot, built by the first test that asks.
func allotBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "allot-client-test-"); built.err != nil {
			return
		}
		build := exec.Command("go", "build", "-o", filepath.Join(built.dir, "allot"), "github.com/allot-dev/allot/cmd/allot")
		build.Stderr = os.Stderr
		built.err = build.Run()
	})
	if built.err != nil {
		t.Fatalf("go build: %v", built.err)
	}
	return filepath.Join(built.dir, "allot")
}

// allotCluster puts allot in dir (a link to the binary the tests share)
// and starts allot cluster ARGS in dir (where its nodes' data go by
// default), its stderr to stderr (nil: the test's); it reads the
// cluster's output a line at a time until got says it has what it needs
// (or the output ends), then lets the rest go. stop sends SIGTERM and
// waits; it may be called more than once.
func allotCluster(ctx context.Context, t *testing.T, dir string, got func(line string) bool, stderr io.Writer, args ...string) (stop func()) {
	t.Helper()
	bin := filepath.Join(dir, "allot")
	if err := os.Symlink(allotBinary(t), bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"cluster"}, args...)...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	if stderr != nil {
		cmd.Stderr = stderr
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		})
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() && !got(sc.Text()) {
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return stop
}
