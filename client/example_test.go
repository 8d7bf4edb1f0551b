package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"google.golang.org/grpc"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service"
)

// startNodes starts a cluster of n nodes in this process (allot cluster
// starts one as separate processes).
func startNodes(n int) (addrs []string, stop func()) {
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	var stops []func()
	for i := range n {
		nd, err := service.New(service.Config{Cluster: service.Cluster{Nodes: addrs, Quotas: map[string]service.QuotaSpec{"api-calls": {Budget: 3}}}, Self: i})
		if err != nil {
			panic(err)
		}
		s := grpc.NewServer()
		if err := nd.Register(s); err != nil {
			panic(err)
		}
		go s.Serve(lns[i])
		stops = append(stops, func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			nd.Shutdown(ctx)
			s.Stop()
		})
	}
	return addrs, func() {
		for _, f := range stops {
			f()
		}
	}
}

// A multi-resource lock: both accounts at once, with a fencing token for
// each that the store checks on every write.
func ExampleSession_Lock() {
	addrs, stop := startNodes(3)
	defer stop()
	ctx := context.Background()
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	s, err := c.Session(ctx, client.WithTTL(5*time.Second))
	if err != nil {
		panic(err)
	}
	defer s.Close(ctx)

	g, err := s.Lock(ctx, "accounts/alice", "accounts/bob")
	if err != nil {
		panic(err)
	}
	first := g.Token("accounts/alice")
	fmt.Println("holding alice and bob")
	g.Unlock(ctx)

	g, _ = s.Lock(ctx, "accounts/alice")
	fmt.Println("the next holder's token is larger:", first.Less(g.Token("accounts/alice")))
	g.Unlock(ctx)
	// Output:
	// holding alice and bob
	// the next holder's token is larger: true
}

// TryLock does not wait; each grant is its own owner, even on one session.
func ExampleSession_TryLock() {
	addrs, stop := startNodes(1)
	defer stop()
	ctx := context.Background()
	c, _ := client.Dial(ctx, addrs...)
	defer c.Close()
	s, _ := c.Session(ctx)
	defer s.Close(ctx)

	g, _ := s.Lock(ctx, "printer")
	_, err := s.TryLock(ctx, "printer")
	fmt.Println(errors.Is(err, client.ErrLocked))
	g.Unlock(ctx)
	// Output: true
}

// A distributed semaphore of 2 units.
func ExampleSemaphore() {
	addrs, stop := startNodes(3)
	defer stop()
	ctx := context.Background()
	c, _ := client.Dial(ctx, addrs...)
	defer c.Close()
	s, _ := c.Session(ctx)
	defer s.Close(ctx)

	sem := s.Semaphore("workers", 2)
	sem.Acquire(ctx)
	sem.Acquire(ctx)
	fmt.Println("third unit:", sem.TryAcquire(ctx))
	sem.Release(ctx)
	fmt.Println("after a release:", sem.TryAcquire(ctx))
	sem.Release(ctx)
	sem.Release(ctx)
	// Output:
	// third unit: allot: taken
	// after a release: <nil>
}

// A quota of 3 permits (waste 0: exact): Take returns ErrExhausted once
// they are spent.
func ExampleQuota_Take() {
	addrs, stop := startNodes(3)
	defer stop()
	ctx := context.Background()
	c, _ := client.Dial(ctx, addrs...)
	defer c.Close()
	s, _ := c.Session(ctx)
	defer s.Close(ctx)

	q := s.Quota("api-calls")
	fmt.Println(q.Take(ctx, 2))
	fmt.Println(errors.Is(q.Take(ctx, 2), client.ErrExhausted))
	// Output:
	// <nil>
	// true
}

// A session's Done closes when its lease may have expired: from then on
// its grants may be someone else's.
func ExampleSession_Done() {
	addrs, stop := startNodes(1)
	defer stop()
	ctx := context.Background()
	c, _ := client.Dial(ctx, addrs...)
	defer c.Close()
	s, _ := c.Session(ctx, client.WithTTL(200*time.Millisecond))
	g, _ := s.Lock(ctx, "job-42")
	s.Orphan() // stop the keep-alives, as a hung client would
	<-g.Done()
	fmt.Println("lost job-42")
	// Output: lost job-42
}

// A session for a leader's lock, opened on the node where the lock's
// name lives: its Lock takes no hop to another node for the name.
func ExampleWithNear() {
	addrs, stop := startNodes(3)
	defer stop()
	ctx := context.Background()
	c, _ := client.Dial(ctx, addrs...)
	defer c.Close()
	s, err := c.Session(ctx, client.WithNear("leader"))
	if err != nil {
		panic(err)
	}
	defer s.Close(ctx)

	g, _ := s.Lock(ctx, "leader")
	fmt.Println("leading, on one of the nodes given:", slices.Contains(addrs, s.Node()))
	g.Unlock(ctx)
	// Output: leading, on one of the nodes given: true
}

// Leader election: two campaigners on one name; the second leads once
// the first resigns, with a larger fencing token, and an observer sees
// each leader in turn.
func ExampleElection() {
	addrs, stop := startNodes(3)
	defer stop()
	ctx := context.Background()
	c, _ := client.Dial(ctx, addrs...)
	defer c.Close()
	a, _ := c.Session(ctx)
	defer a.Close(ctx)
	b, _ := c.Session(ctx)
	defer b.Close(ctx)

	ea, eb := a.Election("scheduler"), b.Election("scheduler")
	if err := ea.Campaign(ctx); err != nil { // blocks until a leads
		panic(err)
	}
	first, _ := ea.Token()
	octx, cancel := context.WithCancel(ctx)
	defer cancel()
	leaders := eb.Observe(octx)
	fmt.Println("a leads:", (<-leaders).Session == a.ID())

	won := make(chan error)
	go func() { won <- eb.Campaign(ctx) }() // waits behind a
	ea.Resign(ctx)
	if err := <-won; err != nil {
		panic(err)
	}
	second, _ := eb.Token()
	fmt.Println("then b leads:", (<-leaders).Session == b.ID())
	fmt.Println("with a larger token:", first.Less(second))
	// Output:
	// a leads: true
	// then b leads: true
	// with a larger token: true
}
