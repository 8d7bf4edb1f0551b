package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/allot-dev/allot/bench/peers/workload"
)

// ErrNotHeld is redsync's Unlock finding the lock not held (expired).
var ErrNotHeld = errors.New("redsync: unlock found the lock not held")

// redisBackend runs Debian's redis-server (127.0.0.1, no persistence) and
// locks with redsync on that one instance (quorum 1). redis-fastretry
// polls every FastDelay instead of redsync's 50-250 ms random retry
// delay, which is what makes redsync competitive under contention.
type redisBackend struct {
	env  Env
	name string
	fast bool
	proc *child
	addr string
	info map[string]string
}

func (b *redisBackend) Pid() int {
	if b.proc == nil {
		return 0
	}
	return b.proc.pid()
}

func (b *redisBackend) Info() map[string]string { return b.info }

func (b *redisBackend) Start(dir string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	conf := fmt.Sprintf("bind 127.0.0.1\nport %d\nprotected-mode yes\ndaemonize no\nsave \"\"\nappendonly no\ndir %s\nlogfile \"\"\ndatabases 1\n", port, dir)
	cpath := filepath.Join(dir, "redis.conf")
	if err := os.WriteFile(cpath, []byte(conf), 0o644); err != nil {
		return err
	}
	if b.proc, err = b.env.Procs.start(b.name, filepath.Join(dir, "redis-server.log"), "", 0, b.env.RedisServer, cpath); err != nil {
		return err
	}
	b.addr = fmt.Sprintf("127.0.0.1:%d", port)
	rc := b.redisClient()
	defer rc.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err = rc.Ping(ctx).Err()
		cancel()
		if err == nil {
			break
		}
		if b.proc.exited() || time.Now().After(deadline) {
			b.Stop()
			return fmt.Errorf("redis not ready: %v (see %s)", err, b.proc.logPath)
		}
		time.Sleep(50 * time.Millisecond)
	}
	ver := "?"
	if s, err := rc.Info(context.Background(), "server").Result(); err == nil {
		for _, l := range strings.Split(s, "\n") {
			if v, ok := strings.CutPrefix(l, "redis_version:"); ok {
				ver = strings.TrimSpace(v)
			}
		}
	}
	b.info = map[string]string{
		"server":      "redis-server " + ver + " (Debian package " + debVersion("redis-server") + ")",
		"persistence": `save "" appendonly no`,
		"client":      "redsync v4 + go-redis v9, one Redis instance (quorum 1), one go-redis client per benchmark client",
		"retry":       "redsync's defaults: 32 tries, 50-250 ms random delay, expiry 8s; the benchmark retries a Lock that gave up (counted as lock failures)",
	}
	if b.fast {
		b.info["retry"] = fmt.Sprintf("WithRetryDelay(%v), WithTries(%d): polling every %v", b.env.FastDelay, b.env.FastTries, b.env.FastDelay)
	}
	return nil
}

func (b *redisBackend) Stop() error {
	if b.proc == nil {
		return nil
	}
	return b.proc.stop(20 * time.Second)
}

func (b *redisBackend) redisClient() *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:                     b.addr,
		PoolSize:                 2,
		MinIdleConns:             1,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
}

type redisClient struct {
	rc   *redis.Client
	rs   *redsync.Redsync
	opts []redsync.Option
	mus  map[string]*redsync.Mutex
	once sync.Once
}

func (b *redisBackend) NewClient(ctx context.Context) (workload.Locker, error) {
	rc := b.redisClient()
	if err := rc.Ping(ctx).Err(); err != nil {
		rc.Close()
		return nil, err
	}
	c := &redisClient{rc: rc, rs: redsync.New(goredis.NewPool(rc)), mus: map[string]*redsync.Mutex{}}
	if b.fast {
		c.opts = []redsync.Option{redsync.WithRetryDelay(b.env.FastDelay), redsync.WithTries(b.env.FastTries)}
	}
	return c, nil
}

func (c *redisClient) mu(key string) *redsync.Mutex {
	m := c.mus[key]
	if m == nil {
		m = c.rs.NewMutex("bench:"+key, c.opts...)
		c.mus[key] = m
	}
	return m
}

func (c *redisClient) Lock(ctx context.Context, key string) error {
	return c.mu(key).LockContext(ctx)
}

func (c *redisClient) Unlock(ctx context.Context, key string) error {
	ok, err := c.mu(key).UnlockContext(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotHeld
	}
	return nil
}

func (c *redisClient) Close() error {
	c.once.Do(func() { c.rc.Close() })
	return nil
}
