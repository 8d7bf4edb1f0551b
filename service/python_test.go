package service_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/service"
)

// python is a python3 that has grpc_tools (Debian: python3-grpcio
// python3-grpc-tools), "" if none: the one on PATH, else the system's.
func python() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import grpc, grpc_tools").Run() == nil {
			return p
		}
	}
	return ""
}

// TestPythonClient: stubs generated from the .proto by grpc_tools let a
// Python program (examples/python/lock.py) take a lock, read its token
// and give it back; the lock is free again for a Go client after it.
func TestPythonClient(t *testing.T) {
	py := python()
	if py == "" {
		t.Skip("no python3 with grpc_tools (Debian: apt-get install python3-grpcio python3-grpc-tools)")
	}
	var addr string
	api, _ := apiNode(t, func(c *service.Config) { addr = c.Cluster.Nodes[0] })
	dir := t.TempDir()
	gen := exec.Command(py, "-m", "grpc_tools.protoc", "-I", "../api/allot/v1", "--python_out="+dir, "--grpc_python_out="+dir, "../api/allot/v1/allot.proto")
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("generating the Python stubs: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run := exec.CommandContext(ctx, py, filepath.Join("..", "examples", "python", "lock.py"), addr, "py/accounts")
	// An older grpc_tools writes stubs only the pure-Python protobuf
	// runtime still reads.
	run.Env = append(os.Environ(), "PYTHONPATH="+dir, "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python")
	out, err := run.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("lock.py: %v\n%s%s", err, out, stderr)
	}
	var got struct {
		Resource       string
		Epoch, Counter uint64
		UnlockAgain    string `json:"unlock_again"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(out))), &got); err != nil {
		t.Fatalf("lock.py printed %q: %v", out, err)
	}
	t.Logf("lock.py: %+v", got)
	if got.Resource != "py/accounts" || got.Epoch == 0 || got.Counter == 0 || got.UnlockAgain != "NOT_FOUND" {
		t.Errorf("lock.py: %+v, want a token of py/accounts and NOT_FOUND for the second unlock", got)
	}
	// Given back: a Go client's try takes it at once.
	sid := openSession(t, api)
	r, err := api.Lock(ctx, &pb.LockRequest{Session: sid, Resources: []string{"py/accounts"}, TryLock: true})
	if err != nil {
		t.Fatalf("TryLock after lock.py: %v", err)
	}
	if tok := r.Tokens[0]; tok.Epoch == got.Epoch && tok.Counter <= got.Counter {
		t.Errorf("token %d.%d after Python's %d.%d", tok.Epoch, tok.Counter, got.Epoch, got.Counter)
	}
}
