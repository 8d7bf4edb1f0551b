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

// allotCluster builds allot into dir and starts allot cluster ARGS in dir
// (where its nodes' data go by default), its stderr to stderr (nil: the
// test's); it reads the cluster's output a line at a time until got says
// it has what it needs (or the output ends), then lets the rest go. stop
// sends SIGTERM and waits; it may be called more than once.
func allotCluster(ctx context.Context, t *testing.T, dir string, got func(line string) bool, stderr io.Writer, args ...string) (stop func()) {
	t.Helper()
	bin := filepath.Join(dir, "allot")
	build := exec.Command("go", "build", "-o", bin, "github.com/allot-dev/allot/cmd/allot")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go build: %v", err)
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
