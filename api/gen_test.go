// Package api holds allot's published API (allot/v1/allot.proto) and its
// generated Go code; gen.sh regenerates the code.
package api

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedCodeUpToDate regenerates the Go code into a temporary
// directory and compares it with the checked-in files. It is skipped where
// protoc or its Go plugins are not installed (gen.sh says how).
func TestGeneratedCodeUpToDate(t *testing.T) {
	gobin := filepath.Join(os.Getenv("HOME"), "go", "bin")
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		gobin = filepath.Join(string(bytes.TrimSpace(out)), "bin")
	}
	path := gobin + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, tool := range []string{"protoc", "protoc-gen-go", "protoc-gen-go-grpc"} {
		if _, err := lookPath(tool, path); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	dir := t.TempDir()
	cmd := exec.Command("protoc", "--go_out="+dir, "--go_opt=paths=source_relative",
		"--go-grpc_out="+dir, "--go-grpc_opt=paths=source_relative", "allot/v1/allot.proto")
	cmd.Env = append(os.Environ(), "PATH="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, out)
	}
	for _, f := range []string{"allot/v1/allot.pb.go", "allot/v1/allot_grpc.pb.go"} {
		want, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what allot.proto generates: run sh api/gen.sh", f)
		}
	}
}

func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
