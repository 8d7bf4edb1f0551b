package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pythonWithGRPC is a python3 that runs the Python client
// (clients/python): grpcio, and a protobuf runtime of 3.20 or later (the
// generated code's); "" if none. Debian: apt-get install python3-grpcio.
func pythonWithGRPC() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import grpc; from google.protobuf.internal import builder").Run() == nil {
			return p
		}
	}
	return ""
}

// clusterNodeLine is allot cluster's line of one node: its address and pid.
var clusterNodeLine = regexp.MustCompile(`^node \d+: (\S+), pid (\d+)`)

// TestPythonClientSessions runs the Python client's tests
// (clients/python/tests) against a real allot cluster of three processes:
// locks, semaphores, a quota and their typed errors, a session that
// expires, and a session that moves to its backup when its node is
// killed (kill -9), with its grants.
func TestPythonClientSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an allot cluster")
	}
	py := pythonWithGRPC()
	if py == "" {
		t.Skip("no python3 with grpcio and protobuf >= 3.20 (Debian: apt-get install python3-grpcio): the Python client is not tested")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// The killed node stays down for the rest of the test.
	cl := exec.Command(os.Args[0], "cluster", "--nodes", "3", "--suspect", "1s", "--restart-delay", "1m", "--quota", "pyq=20")
	cl.Env = append(os.Environ(), "ALLOT_TEST_MAIN=1")
	var stderr strings.Builder
	cl.Stderr = &stderr
	out, err := cl.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cl.Wait(); close(exited) }()
	defer func() {
		cl.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cl.Process.Kill()
			<-exited
		}
	}()
	nodes := make(chan []string, 1)
	go func() {
		var ns []string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := clusterNodeLine.FindStringSubmatch(sc.Text()); m != nil {
				ns = append(ns, m[1]+"="+m[2])
			}
			if strings.HasPrefix(sc.Text(), "try: ") {
				nodes <- ns
			}
		}
	}()
	var ns []string
	select {
	case ns = <-nodes:
	case <-exited:
		t.Fatalf("allot cluster exited before it was ready:\n%s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("allot cluster not ready within 30s:\n%s", stderr.String())
	}
	if len(ns) != 3 {
		t.Fatalf("allot cluster printed %d nodes, want 3: %q", len(ns), ns)
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "clients", "python"))
	if err != nil {
		t.Fatal(err)
	}
	run := exec.CommandContext(ctx, py, "-m", "unittest", "discover", "-v", "-s", filepath.Join(dir, "tests"))
	run.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(dir, "src"), "ALLOT_NODES="+strings.Join(ns, ","), "ALLOT_QUOTA=pyq=20")
	res, err := run.CombinedOutput()
	t.Logf("%s\n%s", strings.Join(run.Args, " "), res)
	if err != nil {
		t.Fatalf("the Python client's tests: %v\nallot cluster:\n%s", err, stderr.String())
	}
	// A skipped test would pass unnoticed: all must have run
	// (unittest says "OK (skipped=N)" otherwise).
	if strings.Contains(string(res), "skipped=") {
		t.Errorf("some of the Python client's tests were skipped")
	}
}

// TestPythonClientInstalls installs the Python client with pip from the
// checkout, as its README says, into a virtual environment that sees the
// system's grpcio and protobuf (no network: --no-build-isolation uses the
// environment's setuptools), and runs its tests that need no cluster on
// the installed package. About 15-20 s (pip): only with
// ALLOT_TEST_PIP=1.
func TestPythonClientInstalls(t *testing.T) {
	if os.Getenv("ALLOT_TEST_PIP") != "1" {
		t.Skip("set ALLOT_TEST_PIP=1 to install the Python client with pip (15-20 s)")
	}
	py := pythonWithGRPC()
	if py == "" {
		t.Skip("no python3 with grpcio and protobuf >= 3.20 (Debian: apt-get install python3-grpcio)")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "clients", "python"))
	if err != nil {
		t.Fatal(err)
	}
	venv := filepath.Join(t.TempDir(), "venv")
	// pip builds in a copy of the project: the checkout is left as it was.
	src := filepath.Join(t.TempDir(), "python")
	for _, c := range [][]string{
		{py, "-m", "venv", "--system-site-packages", venv},
		{"cp", "-r", dir, src},
		{filepath.Join(venv, "bin", "pip"), "install", "--no-build-isolation", "--no-deps", "-q", src},
		// Outside the checkout, without PYTHONPATH: the installed package.
		{filepath.Join(venv, "bin", "python"), "-c", "import allot, allot.v1.allot_pb2_grpc; assert '/site-packages/' in allot.__file__, allot.__file__"},
		{filepath.Join(venv, "bin", "python"), "-m", "unittest", "discover", "-s", filepath.Join(dir, "tests"), "-p", "test_unit.py"},
	} {
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Dir = t.TempDir()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(c, " "), err, out)
		}
	}
}
