package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	pb "github.com/allot-dev/allot/api/allot/v1"
)

// Holder is one grant that holds a name now.
type Holder struct {
	Session uint64 // the session that holds it (Session.ID)
	Grant   uint64 // the grant
	Token   Token  // its fencing token for the name
	// Names: a lock grant's names, every one its Lock took at once,
	// sorted. Unit: a semaphore grant's unit (Grant.Unit).
	Names []string
	Unit  int
	// Since is when the node serving the session granted it, or adopted
	// the session holding it (a session that moved), by that node's
	// clock.
	Since time.Time
	Node  string // the node serving the session, as dialled
}

// Holders lists who holds the lock on name now, the oldest grant
// first. Each node knows the sessions it serves: Holders asks every node
// the client was given (give it every node's address, or the others'
// holders are missing). A node that does not answer is left out, and
// the error (ErrUnavailable) names it beside the holders of the nodes
// that answered: its sessions move to their backups, which list them
// once they have adopted them. ErrBadName: name is not a good name;
// ErrUnavailable also from nodes of an earlier version, which have no
// Holders.
func (c *Client) Holders(ctx context.Context, name string) ([]Holder, error) {
	if err := checkName("lock", name, false); err != nil {
		return nil, err
	}
	return c.holders(ctx, &pb.HoldersRequest{Name: name})
}

// SemaphoreHolders is Holders of the semaphore name: who holds its
// units, each holder's Unit set.
func (c *Client) SemaphoreHolders(ctx context.Context, name string) ([]Holder, error) {
	if err := checkName("semaphore", name, true); err != nil {
		return nil, err
	}
	return c.holders(ctx, &pb.HoldersRequest{Name: name, Semaphore: true})
}

// holders asks every node r at once and merges the answers.
func (c *Client) holders(ctx context.Context, r *pb.HoldersRequest) ([]Holder, error) {
	answers := make([]*pb.HoldersResponse, len(c.api))
	errs := make([]error, len(c.api))
	var wg sync.WaitGroup
	for k, api := range c.api {
		wg.Go(func() { answers[k], errs[k] = api.Holders(ctx, r) })
	}
	wg.Wait()
	var out []Holder
	seen := map[uint64]bool{}
	var silent []string
	for k, a := range answers {
		if err := errs[k]; err != nil {
			if w := wrap(err); errors.Is(w, ErrInvalid) || ctx.Err() != nil {
				return nil, w
			}
			silent = append(silent, fmt.Sprintf("%s (%s)", c.conns[k].Target(), strings.TrimPrefix(wrap(err).Error(), "allot: ")))
			continue
		}
		for _, h := range a.Holders {
			// A session moving may be listed by the node it left
			// and by the one it moved to, a moment apart.
			if seen[h.Grant] {
				continue
			}
			seen[h.Grant] = true
			out = append(out, Holder{Session: h.Session, Grant: h.Grant, Token: Token{h.Token.GetEpoch(), h.Token.GetCounter()},
				Names: h.Resources, Unit: int(h.Unit), Since: time.UnixMilli(h.SinceUnixMs), Node: c.conns[k].Target()})
		}
	}
	slices.SortFunc(out, func(a, b Holder) int { return cmp.Or(a.Since.Compare(b.Since), cmp.Compare(a.Grant, b.Grant)) })
	if len(silent) > 0 {
		return out, fmt.Errorf("%w: the holders of %d of %d nodes are not listed: %s", ErrUnavailable, len(silent), len(c.conns), strings.Join(silent, "; "))
	}
	return out, nil
}
