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
	build := exec.Command("go", "build", "-o", bin, "allot/cmd/allot")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "cluster", "--nodes", "3", "--events", dir)
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
	workload(ctx, t, addrs, 12, 4, 30)
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
	if v.Answered < 12*30+4*30 {
		t.Errorf("only %d requests answered", v.Answered)
	}
}
