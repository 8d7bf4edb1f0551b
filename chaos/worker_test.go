package chaos

import (
	"context"
	"errors"
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
