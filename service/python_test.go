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

// python is a python3 that runs the Python client (clients/python):
// grpcio and protobuf >= 3.20 (Debian: python3-grpcio), "" if none: the
// one on PATH, else the system's.
func python() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import grpc; from google.protobuf.internal import builder").Run() == nil {
			return p
		}
	}
	return ""
}

// TestPythonClient: the Python client (clients/python, on the code
// generated from the .proto) run by examples/python/lock.py takes a
// lock, reads its token and gives it back; the lock is free again for a
// Go client after it.
func TestPythonClient(t *testing.T) {
	py := python()
	if py == "" {
		t.Skip("no python3 with grpcio and protobuf >= 3.20 (Debian: apt-get install python3-grpcio)")
	}
	var addr string
	api, _ := apiNode(t, func(c *service.Config) { addr = c.Cluster.Nodes[0] })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run := exec.CommandContext(ctx, py, filepath.Join("..", "examples", "python", "lock.py"), addr, "py/accounts")
	run.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join("..", "clients", "python", "src"))
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
