package app

import (
	"testing"
	"unsafe"
)

// TestUserFitsACacheLine guards the layout that makes a user's step cost
// one cache miss in large simulations.
func TestUserFitsACacheLine(t *testing.T) {
	if s := unsafe.Sizeof(User{}); s > 64 {
		t.Fatalf("User is %d bytes, more than a 64-byte cache line", s)
	}
}
