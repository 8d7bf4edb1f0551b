// Package timers is a set of pending time.AfterFunc callbacks that can be
// shut down cleanly: once Close returns, no callback is running and none
// will run. The real-time host's timers and the in-memory transport's
// delayed deliveries both use it, so a closed host or transport leaves no
// goroutine behind.
package timers

import (
	"sync"
	"time"
)

// Set is a set of pending callbacks. The zero value is not usable; call New.
type Set struct {
	mu      sync.Mutex
	closed  bool
	next    uint64
	pending map[uint64]*time.Timer
	running sync.WaitGroup // armed and not yet stopped or finished
}

// New returns an empty set.
func New() *Set { return &Set{pending: map[uint64]*time.Timer{}} }

// After runs f after d on a goroutine of its own and reports whether it was
// armed (false once the set is closed).
func (s *Set) After(d time.Duration, f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	id := s.next
	s.next++
	s.running.Add(1)
	// The callback takes s.mu, so it cannot look at pending before the
	// timer is recorded below, even with d == 0.
	s.pending[id] = time.AfterFunc(d, func() {
		defer s.running.Done()
		s.mu.Lock()
		delete(s.pending, id)
		closed := s.closed
		s.mu.Unlock()
		if !closed {
			f()
		}
	})
	return true
}

// Close stops every pending timer and waits for the callbacks already
// running. It is idempotent.
func (s *Set) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		for id, t := range s.pending {
			// A timer that Stop prevents never runs its callback, so its
			// Done is ours; one that Stop misses is blocked on s.mu or
			// past it and calls Done itself.
			if t.Stop() {
				s.running.Done()
			}
			delete(s.pending, id)
		}
	}
	s.mu.Unlock()
	s.running.Wait()
}
