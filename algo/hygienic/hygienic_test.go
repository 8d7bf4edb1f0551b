package hygienic

import (
	"testing"
	"unsafe"

	"github.com/allot-dev/allot/conformance"
)

func TestGolden(t *testing.T) { conformance.Golden(t, Algorithm, "testdata/golden") }

// TestNodeFitsACacheLine guards the layout that makes a message cost one
// cache miss in large simulations.
func TestNodeFitsACacheLine(t *testing.T) {
	if s := unsafe.Sizeof(Node{}); s > 64 {
		t.Fatalf("Node is %d bytes, more than a 64-byte cache line", s)
	}
}
