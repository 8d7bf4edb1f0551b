// Command quickstart takes a multi-resource lock, a semaphore unit and a
// quota permit from an allot cluster: the client example of the README.
//
//	go run ./cmd/allot cluster --nodes 3 --quota api-calls=1000:100
//	go run ./examples/quickstart ADDR,ADDR,ADDR    # the addresses it prints
//
// Against a secure cluster (allot cluster --tls prints the line), it takes
// the flags of allot's client commands:
//
//	go run ./examples/quickstart --tls-ca CA --tls-cert CERT --tls-key KEY --token-file FILE ADDR,...
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/allot-dev/allot/client"
)

const usage = "usage: quickstart [--tls-ca F --tls-cert F --tls-key F [--token-file F]] ADDR[,ADDR...]   (the addresses allot cluster prints)"

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

// realMain runs the example with args; bad input is one line and exit 2,
// a failed call one line and exit 1.
func realMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	ca := fs.String("tls-ca", "", "mTLS: the CA certificate (PEM); with --tls-cert and --tls-key")
	cert := fs.String("tls-cert", "", "mTLS: the client certificate (PEM)")
	key := fs.String("tls-key", "", "mTLS: the client certificate's private key (PEM)")
	tokenFile := fs.String("token-file", "", "the client token, on the first line of FILE (needs mTLS)")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	var opts []client.Option
	switch {
	case *ca != "" && *cert != "" && *key != "":
		opts = append(opts, client.WithTLSFiles(*ca, *cert, *key))
	case *ca != "" || *cert != "" || *key != "":
		fmt.Fprintln(stderr, "quickstart: give all of --tls-ca, --tls-cert and --tls-key, or none")
		return 2
	}
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			fmt.Fprintln(stderr, "quickstart:", err)
			return 2
		}
		tok, _, _ := strings.Cut(string(b), "\n")
		opts = append(opts, client.WithToken(strings.TrimSpace(tok)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := run(ctx, strings.Split(fs.Arg(0), ","), opts, stdout); err != nil {
		fmt.Fprintln(stderr, "quickstart:", err)
		return 1
	}
	return 0
}

func run(ctx context.Context, addrs []string, opts []client.Option, out io.Writer) error {
	c, err := client.DialWith(ctx, addrs, opts...)
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
