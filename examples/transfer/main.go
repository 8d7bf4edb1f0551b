// Command transfer moves money between bank accounts from many clients at
// once against an allot cluster. Each transfer is one Lock of both
// accounts, a read of both balances and one commit of both new ones to a
// ledger that fences every access with the lock's tokens. The sum of the
// balances is the same at the end: no transfer's update is lost.
//
//	go run ./cmd/allot cluster --nodes 3
//	go run ./examples/transfer ADDR,ADDR,ADDR    # the addresses it prints
//
// What the multi-resource lock gives here: a client names both accounts
// and gets both, atomically and without deadlock. With one lock per
// account the client must take them in a global order itself (alice before
// bob, whoever pays whom), or two opposite transfers each hold one account
// and wait for the other forever.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/allot-dev/allot/client"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: transfer ADDR[,ADDR...]   (the addresses allot cluster prints)")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := Config{Addrs: strings.Split(os.Args[1], ","), Clients: 8, Transfers: 50, Accounts: 10, Seed: rand.Uint64()}
	if _, err := Run(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "transfer:", err)
		os.Exit(1)
	}
}

// Config is one run: Clients clients, each with its own connection and
// session, make Transfers transfers each between random pairs of Accounts
// accounts, which open with 1000 each. Seed draws the pairs and amounts.
type Config struct {
	Addrs     []string
	Clients   int
	Transfers int
	Accounts  int
	Seed      uint64
}

// Result is what a run did.
type Result struct {
	Before, After int // the sum of the balances
	Done          int // transfers committed
	Refused       int // transfers the ledger refused (a stale token: the lease was lost)
	Overdrawn     int // transfers skipped: the payer had too little
}

// Run makes the transfers, prints a summary to out and returns what
// happened; it fails if the sum of the balances changed.
func Run(ctx context.Context, cfg Config, out io.Writer) (Result, error) {
	opening := map[string]int{}
	for i := range cfg.Accounts {
		opening[accountName(i)] = 1000
	}
	ledger := NewLedger(opening)
	res := Result{Before: ledger.Total()}
	var mu sync.Mutex
	errs := make(chan error, cfg.Clients)
	var wg sync.WaitGroup
	for c := range cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(cfg.Seed, uint64(c)))
			r, err := runClient(ctx, cfg, ledger, rnd)
			mu.Lock()
			res.Done += r.Done
			res.Refused += r.Refused
			res.Overdrawn += r.Overdrawn
			mu.Unlock()
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	var err error
	for e := range errs {
		err = errors.Join(err, e)
	}
	res.After = ledger.Total()
	fmt.Fprintf(out, "%d clients, %d transfers over %d accounts (seed %d): %d committed, %d overdrawn, %d refused as stale; total %d before, %d after\n",
		cfg.Clients, cfg.Clients*cfg.Transfers, cfg.Accounts, cfg.Seed, res.Done, res.Overdrawn, res.Refused, res.Before, res.After)
	if err == nil && res.After != res.Before {
		err = fmt.Errorf("the total changed: %d before, %d after", res.Before, res.After)
	}
	return res, err
}

func accountName(i int) string { return fmt.Sprintf("accounts/%03d", i) }

// runClient is one client: its own connection and session, one transfer
// after the other.
func runClient(ctx context.Context, cfg Config, ledger *Ledger, rnd *rand.Rand) (Result, error) {
	var res Result
	c, err := client.Dial(ctx, cfg.Addrs...)
	if err != nil {
		return res, err
	}
	defer c.Close()
	s, err := c.Session(ctx, client.WithTTL(10*time.Second))
	if err != nil {
		return res, err
	}
	defer s.Close(context.WithoutCancel(ctx))
	for range cfg.Transfers {
		from := rnd.IntN(cfg.Accounts)
		to := (from + 1 + rnd.IntN(cfg.Accounts-1)) % cfg.Accounts
		err := transfer(ctx, s, ledger, accountName(from), accountName(to), 1+rnd.IntN(200))
		switch {
		case err == nil:
			res.Done++
		case errors.Is(err, ErrStale):
			res.Refused++
		case errors.Is(err, errOverdrawn):
			res.Overdrawn++
		default:
			return res, err
		}
	}
	return res, nil
}

var errOverdrawn = errors.New("overdrawn")

// transfer moves amount from one account to another under one Lock of
// both: read both balances, commit both new ones.
func transfer(ctx context.Context, s *client.Session, ledger *Ledger, from, to string, amount int) error {
	g, err := s.Lock(ctx, from, to)
	if err != nil {
		return err
	}
	defer g.Unlock(context.WithoutCancel(ctx))
	tf, tt := g.Token(from), g.Token(to)
	a, err := ledger.Read(from, tf)
	if err != nil {
		return err
	}
	b, err := ledger.Read(to, tt)
	if err != nil {
		return err
	}
	if a < amount {
		return errOverdrawn
	}
	return ledger.Commit(Write{from, tf, a - amount}, Write{to, tt, b + amount})
}
