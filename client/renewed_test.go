package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
)

// TestRenewed: Session.Renewed is when the last keep-alive its node
// answered was sent: the session's opening at first, later with each
// renewal, and not moved by a backup's SESSION_MOVING answers while the
// node answers nothing.
func TestRenewed(t *testing.T) {
	node := &fakeNode{lease: 300 * time.Millisecond}
	backup := &fakeNode{lease: 300 * time.Millisecond, backup: true}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, serveFake(t, node), serveFake(t, backup))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before := time.Now()
	s, err := c.Session(ctx, client.WithTTL(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Orphan()
	opened := s.Renewed()
	if opened.Before(before) || opened.After(time.Now()) {
		t.Fatalf("Renewed %v right after the session opened, between %v and now", opened, before)
	}
	// Renewed every lease/3 (100ms).
	for s.Renewed().Equal(opened) {
		if ctx.Err() != nil {
			t.Fatal("no keep-alive answered in 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	node.frozen.Store(true)
	frozen := time.Now()
	time.Sleep(500 * time.Millisecond) // the backup answers SESSION_MOVING meanwhile
	if r := s.Renewed(); r.After(frozen) {
		t.Errorf("Renewed %v after the node stopped answering at %v", r, frozen)
	}
}
