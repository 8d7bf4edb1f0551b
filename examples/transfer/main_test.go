package main

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service"
)

// startCluster starts n nodes on loopback serving locks with the
// algorithm lock, and stops them when the test ends.
func startCluster(t *testing.T, n int, lock string) []string {
	var lns []net.Listener
	var addrs []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	for i := range n {
		nd, err := service.New(service.Config{Self: i, Cluster: service.Cluster{Nodes: addrs, Lock: lock}})
		if err != nil {
			t.Fatal(err)
		}
		s := grpc.NewServer()
		if err := nd.Register(s); err != nil {
			t.Fatal(err)
		}
		go s.Serve(lns[i])
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			nd.Shutdown(ctx)
			s.Stop()
		})
	}
	return addrs
}

// TestTransfersKeepTheTotal runs many clients' transfers against three
// nodes, under the default lock algorithm and under the ordered-locking
// baseline, and checks the sum of the balances.
func TestTransfersKeepTheTotal(t *testing.T) {
	for _, lock := range []string{service.DefaultLock, "ordered"} {
		t.Run(lock, func(t *testing.T) {
			seed := rand.Uint64()
			t.Logf("seed %d", seed)
			addrs := startCluster(t, 3, lock)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var out bytes.Buffer
			cfg := Config{Addrs: addrs, Clients: 8, Transfers: 20, Accounts: 6, Seed: seed}
			res, err := Run(ctx, cfg, &out)
			t.Log(out.String())
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Done + res.Refused + res.Overdrawn; got != cfg.Clients*cfg.Transfers {
				t.Fatalf("%d transfers accounted for, %d made", got, cfg.Clients*cfg.Transfers)
			}
			if res.Done == 0 {
				t.Fatal("no transfer committed")
			}
		})
	}
}

// TestUnlockedTransfersLoseMoney shows the total is a check that can
// fail: two transfers out of one account that interleave their reads and
// commits without the lock (the zero token, which the ledger never
// refuses while nobody has used a larger one) lose one debit.
func TestUnlockedTransfersLoseMoney(t *testing.T) {
	l := NewLedger(map[string]int{"a": 100, "b": 100, "c": 100})
	var none client.Token
	a1, _ := l.Read("a", none)
	b1, _ := l.Read("b", none)
	a2, _ := l.Read("a", none) // the second transfer reads a before the first commits
	c2, _ := l.Read("c", none)
	if err := l.Commit(Write{"a", none, a1 - 10}, Write{"b", none, b1 + 10}); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(Write{"a", none, a2 - 20}, Write{"c", none, c2 + 20}); err != nil {
		t.Fatal(err)
	}
	if l.Total() == 300 {
		t.Fatal("the lost update went unnoticed by the total")
	}
}

// TestLedgerFences: a holder whose token is below one the ledger has seen
// is refused at its commit, and the commit writes nothing.
func TestLedgerFences(t *testing.T) {
	l := NewLedger(map[string]int{"a": 100, "b": 100})
	old, fresh := client.Token{Epoch: 1, Counter: 5}, client.Token{Epoch: 1, Counter: 9}
	a, _ := l.Read("a", old)
	if _, err := l.Read("b", fresh); err != nil { // a newer holder touches b
		t.Fatal(err)
	}
	err := l.Commit(Write{"a", old, a - 10}, Write{"b", old, 110})
	if !errors.Is(err, ErrStale) {
		t.Fatalf("commit with a stale token: %v, want ErrStale", err)
	}
	if got, _ := l.Read("a", fresh); got != 100 {
		t.Fatalf("a = %d after a refused commit, want 100 (all or nothing)", got)
	}
}
