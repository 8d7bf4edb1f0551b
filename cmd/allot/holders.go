package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/allot-dev/allot/client"
)

const holdersUsage = `usage: allot holders --addr A,B,C [--semaphore] [--format text|json] NAME

Says who holds NAME now: a lock's name, or with --semaphore a semaphore's.
Each holder is a grant of a session: the session, the grant, its fencing
token (EPOCH.COUNTER), since when (by the clock of the node serving the
session: when it granted it, or adopted the session from a lost node), the
node, and a lock grant's names (a Lock takes several at once) or a
semaphore grant's unit; the oldest first. Every node is asked (each knows
the sessions it serves): give every node's address. The exit status is 1
when a node did not answer (the others' holders are printed; the lost
node's sessions are listed once their backup has adopted them).`

// holdersCmd prints who holds a name.
func holdersCmd(args []string, stdout, stderr io.Writer) error {
	var (
		dial      clientOpts
		semaphore bool
		format    string
		timeout   time.Duration
	)
	fs := flag.NewFlagSet("allot holders", flag.ContinueOnError)
	dial.flags(fs)
	fs.BoolVar(&semaphore, "semaphore", false, "NAME is a semaphore's (else a lock's)")
	fs.StringVar(&format, "format", "text", "text or json")
	fs.DurationVar(&timeout, "timeout", 5*time.Second, "give up waiting for the nodes' answers after this long")
	// The name comes before the flags, after them or between them.
	var names []string
	rest := args
	for {
		if err := parseFlagsOnly(fs, rest, stdout, holdersUsage); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	what := "lock"
	if semaphore {
		what = "semaphore"
	}
	switch {
	case len(names) != 1:
		return badf("holders: want one NAME, got %d: allot holders --addr A,B,C NAME", len(names))
	case format != "text" && format != "json":
		return badf("holders: --format %q: want text or json", format)
	case timeout <= 0:
		return badf("holders: --timeout %v: must be positive", timeout)
	}
	name := names[0]
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, err := dial.dial(ctx, "holders")
	if err != nil {
		return err
	}
	defer c.Close()
	list := c.Holders
	if semaphore {
		list = c.SemaphoreHolders
	}
	hs, err := list(ctx, name)
	switch {
	case errors.Is(err, client.ErrBadName) || errors.Is(err, client.ErrInvalid):
		return badf("holders: %s", bare(err))
	case err != nil && hs == nil:
		return fmt.Errorf("holders: %s", bare(err))
	}
	if perr := printHolders(stdout, format, what, name, hs); perr != nil {
		return perr
	}
	if err != nil {
		return fmt.Errorf("holders: %s", bare(err))
	}
	return nil
}

// holderJSON is a holder as allot holders --format json prints it.
type holderJSON struct {
	Session uint64   `json:"session"`
	Grant   uint64   `json:"grant"`
	Token   string   `json:"token"`
	Epoch   uint64   `json:"epoch"`
	Counter uint64   `json:"counter"`
	Since   string   `json:"since"`
	Node    string   `json:"node"`
	Names   []string `json:"names,omitempty"`
	Unit    *int     `json:"unit,omitempty"`
}

// printHolders prints the holders hs of name (a what: lock or semaphore)
// as text or JSON.
func printHolders(w io.Writer, format, what, name string, hs []client.Holder) error {
	if format == "json" {
		out := struct {
			Name    string       `json:"name"`
			Kind    string       `json:"kind"`
			Holders []holderJSON `json:"holders"`
		}{Name: name, Kind: what, Holders: []holderJSON{}}
		for _, h := range hs {
			j := holderJSON{Session: h.Session, Grant: h.Grant, Token: h.Token.String(), Epoch: h.Token.Epoch, Counter: h.Token.Counter,
				Since: h.Since.UTC().Format(time.RFC3339Nano), Node: h.Node, Names: h.Names}
			if what == "semaphore" {
				j.Unit = &h.Unit
			}
			out.Holders = append(out.Holders, j)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(hs) == 0 {
		_, err := fmt.Fprintf(w, "nobody holds %s %s\n", what, name)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	last := "NAMES"
	if what == "semaphore" {
		last = "UNIT"
	}
	fmt.Fprintf(tw, "SESSION\tGRANT\tTOKEN\tSINCE\tNODE\t%s\n", last)
	for _, h := range hs {
		col := strings.Join(h.Names, ",")
		if what == "semaphore" {
			col = strconv.Itoa(h.Unit)
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\n", h.Session, h.Grant, h.Token, h.Since.UTC().Format("2006-01-02T15:04:05.000Z"), h.Node, col)
	}
	return tw.Flush()
}
