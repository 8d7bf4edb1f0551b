package api

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// TestTryFieldsOnTheWire: try_lock and try_acquire kept the field numbers
// of the field named try before them (3 and 4, varint): a client built
// from the old .proto sends the same bytes and means the same.
func TestTryFieldsOnTheWire(t *testing.T) {
	for _, tc := range []struct {
		m    proto.Message
		want []byte
	}{
		{&pb.LockRequest{TryLock: true}, []byte{3 << 3, 1}},
		{&pb.AcquireRequest{TryAcquire: true}, []byte{4 << 3, 1}},
	} {
		got, err := proto.Marshal(tc.m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, tc.want) {
			t.Errorf("%T: % x on the wire, want % x (the old field try)", tc.m, got, tc.want)
		}
	}
}
