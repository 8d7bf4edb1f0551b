package service

import (
	"testing"
	"time"
)

// TestRefreshDue: a refresh is asked at the threshold of idle objects
// once they are twice those in use and the view served RefreshEvery; for
// any idle object only once it served QuietRefreshes times that; never
// with the threshold off, nothing idle, or more in use.
func TestRefreshDue(t *testing.T) {
	const every = time.Second
	for _, c := range []struct {
		idle, inUse, threshold int
		age                    time.Duration
		want                   bool
	}{
		{idle: 256, threshold: 256, age: every, want: true},
		{idle: 256, threshold: 256, age: every - 1},         // too soon
		{idle: 255, threshold: 256, age: every},             // below the threshold
		{idle: 300, inUse: 151, threshold: 256, age: every}, // less than twice in use
		{idle: 300, inUse: 150, threshold: 256, age: every, want: true},
		{idle: 1, threshold: 256, age: QuietRefreshes * every, want: true}, // quiet
		{idle: 1, threshold: 256, age: QuietRefreshes*every - 1},
		{idle: 1, inUse: 1, threshold: 256, age: QuietRefreshes * every},
		{idle: 0, threshold: 256, age: QuietRefreshes * every},
		{idle: 1000, threshold: -1, age: QuietRefreshes * every}, // never
	} {
		if got := refreshDue(c.idle, c.inUse, c.threshold, c.age, every); got != c.want {
			t.Errorf("refreshDue(idle %d, in use %d, threshold %d, age %v) = %v, want %v", c.idle, c.inUse, c.threshold, c.age, got, c.want)
		}
	}
}
