package chaos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
)

// TestGiveBack: a worker whose Unlock or Release failed while its session
// lives on ends the session (errGiveBack), so that the grant the node may
// still hold for it goes back; the session's loss and a grant already
// gone are not that. The give-back runs on a context of its own, not the
// grant's spent one.
func TestGiveBack(t *testing.T) {
	w := &Worker{OpTimeout: time.Second}
	for _, c := range []struct {
		err  error
		want error
	}{
		{nil, nil},
		{context.DeadlineExceeded, errGiveBack},
		{client.ErrInvalid, errGiveBack},
		{client.ErrSessionExpired, client.ErrSessionExpired},
		{client.ErrUnavailable, client.ErrUnavailable},
		{client.ErrNotHeld, client.ErrNotHeld},
	} {
		got := w.giveBack(context.Background(), func(ctx context.Context) error {
			if _, ok := ctx.Deadline(); !ok || ctx.Err() != nil {
				t.Errorf("give-back context: %v, deadline set %v", ctx.Err(), ok)
			}
			return c.err
		})
		if !errors.Is(got, c.want) || (c.want == nil) != (got == nil) {
			t.Errorf("giveBack of %v = %v, want %v", c.err, got, c.want)
		}
	}
}

// lapsed is a session lost by its client's count: Done closed.
type lapsed struct{ renewed time.Time }

func (l lapsed) Done() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
func (l lapsed) Renewed() time.Time { return l.renewed }

// TestDoneBeforeTheCallsItEnded: a call that its session's Done cut short
// (ErrSessionExpired once Done closed) comes after the Done in the
// history, whichever of the call and the goroutine watching Done records
// first, and the Done is recorded once; the checker then counts the Done
// apart and does not judge the call. Recorded the other way round, the
// call is judged, and is a violation: the order matters.
func TestDoneBeforeTheCallsItEnded(t *testing.T) {
	h := &History{}
	w := &Worker{ID: "g0/w0", H: h}
	renewed := time.Now()
	ss := &session{l: lapsed{renewed}, closing: make(chan struct{})}
	w.put(Event{Op: "session", Type: "ok", TTL: 2 * time.Second})
	inv := Event{Op: "lock", Type: "invoke", Keys: []string{"r0"}}
	w.put(inv)
	err := fmt.Errorf("%w: lost while its node did not serve it", client.ErrSessionExpired)
	w.put(w.fail(ss, inv, err))
	w.lost(ss) // the watching goroutine, later: recorded already
	ev := h.Events()
	var ops []string
	for _, e := range ev {
		ops = append(ops, e.Op+"/"+e.Type)
	}
	if want := "session/ok lock/invoke done/info lock/fail"; strings.Join(ops, " ") != want {
		t.Fatalf("history %v, want %s", ops, want)
	}
	r, cerr := Check(Input{History: ev})
	if cerr != nil {
		t.Fatal(cerr)
	}
	if r.Violations != 0 || r.DoneEarly != 1 {
		t.Errorf("%d violations, %d early Dones; want 0 and 1:\n%s", r.Violations, r.DoneEarly, r.Summary())
	}
	// The other order, as the race recorded it before.
	ev[2], ev[3] = ev[3], ev[2]
	ev[2].T, ev[3].T = ev[3].T, ev[2].T
	r, cerr = Check(Input{History: ev})
	if cerr != nil {
		t.Fatal(cerr)
	}
	if r.Violations != 1 {
		t.Errorf("the call recorded before the Done: %d violations, want 1:\n%s", r.Violations, r.Summary())
	}
}
