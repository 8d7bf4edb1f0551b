package backend

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/version"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/allot-dev/allot/bench/peers/workload"
)

// etcdBackend runs etcd's server (embedded) in a process of its own — this
// benchmark's executable again, in ServeEtcd — so that server and clients
// do not share one Go runtime, as with the other servers.
type etcdBackend struct {
	env      Env
	name     string
	nofsync  bool
	proc     *child
	endpoint string
	info     map[string]string
}

func (b *etcdBackend) Pid() int {
	if b.proc == nil {
		return 0
	}
	return b.proc.pid()
}

func (b *etcdBackend) Info() map[string]string { return b.info }

// EtcdFlag is the flag that makes the benchmark's executable an etcd
// server: -serve-etcd DIR,CLIENTPORT,PEERPORT,NOFSYNC.
const EtcdFlag = "-serve-etcd"

func (b *etcdBackend) Start(dir string) error {
	cp, err := freePort()
	if err != nil {
		return err
	}
	pp, err := freePort()
	if err != nil {
		return err
	}
	spec := strings.Join([]string{filepath.Join(dir, "etcd-data"), strconv.Itoa(cp), strconv.Itoa(pp), strconv.FormatBool(b.nofsync)}, ",")
	b.proc, err = b.env.Procs.start(b.name, filepath.Join(dir, "etcd-server.log"), "READY", 60*time.Second, b.env.Self, EtcdFlag, spec)
	if err != nil {
		return err
	}
	b.endpoint = fmt.Sprintf("127.0.0.1:%d", cp)
	b.info = map[string]string{
		"server":        "etcd " + strings.TrimSpace(strings.TrimPrefix(b.proc.ready, "READY")) + " (embedded, a process of its own, one member)",
		"UnsafeNoFsync": strconv.FormatBool(b.nofsync),
		"client":        "clientv3 + concurrency.Mutex, one clientv3.Client and one Session (TTL 30s) per benchmark client",
	}
	return nil
}

func (b *etcdBackend) Stop() error {
	if b.proc == nil {
		return nil
	}
	return b.proc.stop(20 * time.Second)
}

type etcdClient struct {
	cli  *clientv3.Client
	sess *concurrency.Session
	mus  map[string]*concurrency.Mutex
	once sync.Once
}

func (b *etcdBackend) NewClient(context.Context) (workload.Locker, error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{b.endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return nil, err
	}
	s, err := concurrency.NewSession(cli, concurrency.WithTTL(30))
	if err != nil {
		cli.Close()
		return nil, err
	}
	return &etcdClient{cli: cli, sess: s, mus: map[string]*concurrency.Mutex{}}, nil
}

func (c *etcdClient) mu(key string) *concurrency.Mutex {
	m := c.mus[key]
	if m == nil {
		m = concurrency.NewMutex(c.sess, "/bench/"+key)
		c.mus[key] = m
	}
	return m
}

func (c *etcdClient) Lock(ctx context.Context, key string) error   { return c.mu(key).Lock(ctx) }
func (c *etcdClient) Unlock(ctx context.Context, key string) error { return c.mu(key).Unlock(ctx) }

func (c *etcdClient) Close() error {
	c.once.Do(func() {
		// Revoke the lease (quick cleanup), bounded in case the server is gone.
		done := make(chan struct{})
		go func() { c.sess.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
		}
		c.cli.Close()
	})
	return nil
}

// ServeEtcd is the etcd server process: spec is EtcdFlag's value. It
// prints "READY version" when the server is ready and returns when ctx
// ends (SIGTERM) or the server fails.
func ServeEtcd(ctx context.Context, spec string, stdout io.Writer) error {
	f := strings.Split(spec, ",")
	if len(f) != 4 {
		return fmt.Errorf("%s %q: want DIR,CLIENTPORT,PEERPORT,NOFSYNC", EtcdFlag, spec)
	}
	cp, err1 := strconv.Atoi(f[1])
	pp, err2 := strconv.Atoi(f[2])
	nofsync, err3 := strconv.ParseBool(f[3])
	if err1 != nil || err2 != nil || err3 != nil {
		return fmt.Errorf("%s %q: want DIR,CLIENTPORT,PEERPORT,NOFSYNC", EtcdFlag, spec)
	}
	cfg := embed.NewConfig()
	cfg.Name = "peers"
	cfg.Dir = f[0]
	cu := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", cp)}
	pu := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", pp)}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = "error"
	cfg.LogOutputs = []string{"stderr"}
	cfg.UnsafeNoFsync = nofsync
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		return fmt.Errorf("etcd not ready after 60s")
	}
	fmt.Fprintf(stdout, "READY %s\n", version.Version)
	select {
	case <-ctx.Done():
		return nil
	case err := <-e.Err():
		return err
	}
}
