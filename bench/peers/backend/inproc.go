package backend

import (
	"context"
	"sync"

	"github.com/allot-dev/allot/bench/peers/workload"
)

// inprocBackend is not a peer: a lock table in this process (a buffered
// channel per key, whose waiters queue in order) with no network, no
// server and no persistence — the ceiling the workloads themselves allow
// on this machine (their contention, 1 ms holds, Go's scheduling).
type inprocBackend struct {
	mu    sync.Mutex
	locks map[string]chan struct{}
}

func (b *inprocBackend) Start(string) error {
	b.locks = map[string]chan struct{}{}
	return nil
}

func (b *inprocBackend) Stop() error { return nil }
func (b *inprocBackend) Pid() int    { return 0 }

func (b *inprocBackend) Info() map[string]string {
	return map[string]string{"server": "none: an in-process lock table, a channel per key (the workloads' ceiling, not a peer)"}
}

func (b *inprocBackend) ch(key string) chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.locks[key]
	if c == nil {
		c = make(chan struct{}, 1)
		b.locks[key] = c
	}
	return c
}

type inprocClient struct{ b *inprocBackend }

func (b *inprocBackend) NewClient(context.Context) (workload.Locker, error) {
	return inprocClient{b}, nil
}

func (c inprocClient) Lock(ctx context.Context, key string) error {
	select {
	case c.b.ch(key) <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c inprocClient) Unlock(_ context.Context, key string) error {
	<-c.b.ch(key)
	return nil
}

func (c inprocClient) Close() error { return nil }
