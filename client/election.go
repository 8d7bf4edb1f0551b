package client

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// Election is leader election among the sessions that campaign on one
// name, in the idiom of etcd's concurrency.Election and Curator's
// LeaderLatch. It is built on a lock and on Holders, nothing else: a
// campaign is a Lock of the name "election/" + name (allot holders
// election/NAME shows the leader), which waits in the lock's order
// behind the leader and the campaigners before it; the leader is the
// lock's holder. Its fencing token is the lock's: larger for each new
// leader, so that whatever the leader acts on refuses by it the word of
// an earlier leader (one whose session is lost may not know it yet:
// leases give eventual exclusion at best).
//
// Leadership ends with Resign or with the session (Session.Done: the
// session lost, or closed); a leader's session that moves to another
// node (its node lost) keeps it. Unlike etcd's, a campaign carries no
// value: a leader that must be found publishes its address where the
// others read it, with its token. Leader asks every node the client
// was given (Holders); Observe does so every ObserveEvery.
type Election struct {
	s    *Session
	name string // the lock's

	campaign sync.Mutex // one Campaign at a time

	mu    sync.Mutex
	leads *Grant // while this campaigner leads
}

// ElectionPrefix is what an election's name is prefixed with to name
// its lock.
const ElectionPrefix = "election/"

// Election returns the election name, in which s campaigns. The lock's
// name, ElectionPrefix + name, must be a good name (Campaign and Leader
// check it: ErrBadName).
func (s *Session) Election(name string) *Election {
	return &Election{s: s, name: ElectionPrefix + name}
}

// ErrNoLeader: nobody leads the election now.
var ErrNoLeader = errors.New("allot: no leader")

// Leader is who leads an election: its session, its grant of the lock,
// the grant's fencing token, since when (the Holder's Since), and the
// node serving its session.
type Leader struct {
	Session uint64
	Grant   uint64
	Token   Token
	Since   time.Time
	Node    string
}

// Campaign waits until this session leads the election, or ctx ends
// (its error), or the session is lost (ErrSessionExpired). It returns
// at once if the session leads already.
func (e *Election) Campaign(ctx context.Context) error {
	e.campaign.Lock()
	defer e.campaign.Unlock()
	if _, ok := e.Token(); ok {
		return nil
	}
	g, err := e.s.Lock(ctx, e.name)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.leads = g
	e.mu.Unlock()
	return nil
}

// Resign gives the leadership up, if this session leads; the next
// campaigner leads then.
func (e *Election) Resign(ctx context.Context) error {
	e.mu.Lock()
	g := e.leads
	e.mu.Unlock()
	if g == nil {
		return nil
	}
	err := g.Unlock(ctx)
	if err == nil || errors.Is(err, ErrNotHeld) {
		e.mu.Lock()
		if e.leads == g {
			e.leads = nil
		}
		e.mu.Unlock()
		return nil
	}
	return err
}

// Token is this session's fencing token as the election's leader, and
// whether it leads (it may have lost the lead with its session: watch
// Session.Done).
func (e *Election) Token() (Token, bool) {
	e.mu.Lock()
	g := e.leads
	e.mu.Unlock()
	if g == nil {
		return Token{}, false
	}
	select {
	case <-g.Done():
		return Token{}, false
	default:
	}
	return g.Token(e.name), true
}

// Leader is who leads the election now (ErrNoLeader: nobody), as the
// nodes answer Holders; a node that does not answer may be the leader's
// (ErrUnavailable, when no node that answered knows a leader).
func (e *Election) Leader(ctx context.Context) (Leader, error) {
	hs, err := e.s.c.Holders(ctx, e.name)
	if len(hs) > 0 {
		// One holder, the lock's; were there two (a holder whose lease
		// ran out, not given back yet where it was), the newer leads.
		h := slices.MaxFunc(hs, func(a, b Holder) int {
			return cmp.Or(cmp.Compare(a.Token.Epoch, b.Token.Epoch), cmp.Compare(a.Token.Counter, b.Token.Counter))
		})
		return Leader{Session: h.Session, Grant: h.Grant, Token: h.Token, Since: h.Since, Node: h.Node}, nil
	}
	if err != nil {
		return Leader{}, err
	}
	return Leader{}, ErrNoLeader
}

// ObserveEvery is how often Observe asks who leads.
const ObserveEvery = 100 * time.Millisecond

// Observe sends the election's leader on the channel it returns, at
// first and each time another leads (a new grant of the lock), until ctx
// ends: then it closes the channel. It asks every ObserveEvery; a change
// and back within that time is not seen, nor are the times nobody leads.
func (e *Election) Observe(ctx context.Context) <-chan Leader {
	ch := make(chan Leader)
	go func() {
		defer close(ch)
		var last Leader
		t := time.NewTicker(ObserveEvery)
		defer t.Stop()
		for {
			if l, err := e.Leader(ctx); err == nil && l.Grant != last.Grant {
				select {
				case ch <- l:
					last = l
				case <-ctx.Done():
					return
				}
			}
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}
