package client_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	bin := filepath.Join(dir, "allot")
	build := exec.Command("go", "build", "-o", bin, "github.com/allot-dev/allot/cmd/allot")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "cluster", "--nodes", "3", "--events", dir, "--quota", "calls=100:10")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
	}
	defer stop()
	sc := bufio.NewScanner(out)
	var addrs []string
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "cluster of 3 nodes: "); ok {
			addrs = strings.Split(a, ",")
			break
		}
	}
	if len(addrs) != 3 {
		t.Fatalf("allot cluster printed no addresses (%v)", sc.Err())
	}
	go func() {
		for sc.Scan() {
		}
	}()
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
	v := verify(t, logs)
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
