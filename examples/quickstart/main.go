// Command quickstart takes a multi-resource lock, a semaphore unit and a
// quota permit from an allot cluster: the client example of the README.
//
//	go run ./cmd/allot cluster --nodes 3 --quota api-calls=1000:100
//	go run ./examples/quickstart ADDR,ADDR,ADDR    # the addresses it prints
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/allot-dev/allot/client"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: quickstart ADDR[,ADDR...]   (the addresses allot cluster prints)")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := run(ctx, strings.Split(os.Args[1], ","), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, addrs []string, out io.Writer) error {
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		return err
	}
	defer c.Close()
	s, err := c.Session(ctx, client.WithTTL(5*time.Second))
	if err != nil {
		return err
	}
	defer s.Close(ctx)

	// Both accounts at once: no lock order to get wrong, no deadlock.
	g, err := s.Lock(ctx, "accounts/alice", "accounts/bob")
	if err != nil {
		return err
	}
	// A store that accepts a write only with a token at least the largest
	// it has seen is safe even if this lease expires unnoticed.
	fmt.Fprintf(out, "locked accounts/alice and accounts/bob, tokens %v and %v\n", g.Token("accounts/alice"), g.Token("accounts/bob"))
	if err := g.Unlock(ctx); err != nil {
		return err
	}

	// One of 4 units, wherever in the cluster a free one is.
	sem := s.Semaphore("workers", 4)
	if err := sem.Acquire(ctx); err != nil {
		return err
	}
	fmt.Fprintln(out, "semaphore workers: 1 of 4 units held")
	if err := sem.Release(ctx); err != nil {
		return err
	}

	switch err := s.Quota("api-calls").Take(ctx, 1); {
	case errors.Is(err, client.ErrExhausted):
		fmt.Fprintln(out, "quota api-calls: exhausted")
	case err != nil:
		return err
	default:
		fmt.Fprintln(out, "quota api-calls: 1 permit taken")
	}
	return nil
}
