package main

import (
	"errors"
	"fmt"
	"sync"

	"github.com/allot-dev/allot/client"
)

// ErrStale is a fenced store's refusal: the token is below the largest it
// has seen for the account, so its holder's lock may have been lost.
var ErrStale = errors.New("stale fencing token")

// Ledger is the protected resource: a balance per account, each read and
// each commit taken with the fencing token of the account's lock. A token
// below the largest the ledger has seen for an account is refused, a read
// raising the mark too, so a holder whose lease ran out cannot write over a
// newer holder's work. A commit writes several accounts at once or none,
// as a transaction of any real store would.
type Ledger struct {
	mu       sync.Mutex
	accounts map[string]*account
}

type account struct {
	balance int
	mark    client.Token // the largest token seen
}

// NewLedger opens every account of balances.
func NewLedger(balances map[string]int) *Ledger {
	l := &Ledger{accounts: map[string]*account{}}
	for name, b := range balances {
		l.accounts[name] = &account{balance: b}
	}
	return l
}

// fence raises the account's mark to tok, or refuses a token below it.
func (l *Ledger) fence(name string, tok client.Token) (*account, error) {
	a := l.accounts[name]
	if a == nil {
		return nil, fmt.Errorf("no account %q", name)
	}
	if tok.Less(a.mark) {
		return nil, fmt.Errorf("%s: %w (%v < %v)", name, ErrStale, tok, a.mark)
	}
	a.mark = tok
	return a, nil
}

// Read returns an account's balance to the holder of tok.
func (l *Ledger) Read(name string, tok client.Token) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a, err := l.fence(name, tok)
	if err != nil {
		return 0, err
	}
	return a.balance, nil
}

// Write is one account's new balance and the token it is written with.
type Write struct {
	Account string
	Token   client.Token
	Balance int
}

// Commit applies every write, or none if a token is stale.
func (l *Ledger) Commit(ws ...Write) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range ws {
		a := l.accounts[w.Account]
		if a == nil {
			return fmt.Errorf("no account %q", w.Account)
		}
		if w.Token.Less(a.mark) {
			return fmt.Errorf("%s: %w (%v < %v)", w.Account, ErrStale, w.Token, a.mark)
		}
	}
	for _, w := range ws {
		a := l.accounts[w.Account]
		a.balance, a.mark = w.Balance, w.Token
	}
	return nil
}

// Total is the sum of every balance.
func (l *Ledger) Total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := 0
	for _, a := range l.accounts {
		t += a.balance
	}
	return t
}
