package api

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// pyDir is the Python client's generated code (clients/python/gen.sh).
var pyDir = filepath.Join("..", "clients", "python", "src")

// TestPythonCodeUpToDate: the Python client's committed code describes
// allot.proto as the Go code does: the file descriptor embedded in
// allot_pb2.py is the one in allot.pb.go (which TestGeneratedCodeUpToDate
// holds to the .proto), and allot_pb2_grpc.py has a stub for every
// method. Python reads its own descriptor, so no protoc of a given
// version is needed; skipped without a python3 with protobuf.
func TestPythonCodeUpToDate(t *testing.T) {
	var out []byte
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		// allot.v1 imported as v1, without the package allot around
		// it, which would import grpc too: only protobuf is needed.
		cmd := exec.Command(py, "-c", "import base64; from v1 import allot_pb2; print(base64.b64encode(allot_pb2.DESCRIPTOR.serialized_pb).decode())")
		cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(pyDir, "allot"))
		if b, err := cmd.Output(); err == nil {
			out = b
			break
		}
	}
	if out == nil {
		t.Skip("no python3 that reads allot_pb2: it needs protobuf >= 3.20 (Debian: apt-get install python3-protobuf)")
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	var got descriptorpb.FileDescriptorProto
	if err := proto.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := protodesc.ToFileDescriptorProto(pb.File_allot_v1_allot_proto)
	// protoc hands its Go plugin the fields' JSON names, which its
	// Python generator leaves out: they are derived from the names.
	for _, m := range want.MessageType {
		clearJSONNames(m)
	}
	if !proto.Equal(&got, want) {
		t.Errorf("clients/python/src/allot/v1/allot_pb2.py does not describe allot.proto as allot.pb.go does: run sh clients/python/gen.sh")
	}
	stubs, err := os.ReadFile(filepath.Join(pyDir, "allot", "v1", "allot_pb2_grpc.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range want.Service {
		for _, m := range s.Method {
			if path := "'/allot.v1." + s.GetName() + "/" + m.GetName() + "'"; !strings.Contains(string(stubs), path) {
				t.Errorf("allot_pb2_grpc.py has no stub of %s: run sh clients/python/gen.sh", path)
			}
		}
	}
}

func clearJSONNames(m *descriptorpb.DescriptorProto) {
	for _, f := range m.Field {
		f.JsonName = nil
	}
	for _, n := range m.NestedType {
		clearJSONNames(n)
	}
}
