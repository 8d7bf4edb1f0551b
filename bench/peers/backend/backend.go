// Package backend starts the lock services the peers benchmark measures —
// etcd (embedded, in a process of its own), ZooKeeper and Redis (Debian's
// packages) — on 127.0.0.1 with their data in a temporary directory, and
// gives the workloads one client per benchmark client, each speaking the
// service's usual lock recipe: etcd's concurrency.Mutex, redsync, the
// ZooKeeper lock recipe. It also has an in-process lock table, the ceiling
// the workloads allow on the machine (not a peer), and the machine's
// loopback round trip and fdatasync cost (the baseline).
//
// A service whose programs are not installed is not an error of the
// benchmark: Check says what is missing, and the benchmark skips it.
package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/allot-dev/allot/bench/peers/workload"
)

// Backend is a lock service under test.
type Backend interface {
	// Start starts the server with its data under dir.
	Start(dir string) error
	// Stop stops it (by its process id).
	Stop() error
	// Pid is the server's process id, 0 when it has none.
	Pid() int
	NewClient(ctx context.Context) (workload.Locker, error)
	// Info describes the versions and settings, once started.
	Info() map[string]string
}

// Env is where the benchmark finds the servers' programs and how it runs
// them.
type Env struct {
	Procs *Procs
	// Self is this benchmark's executable, run again as the etcd server
	// (ServeEtcd) and the baseline's echo server (ServeEcho).
	Self        string
	RedisServer string        // the redis-server program
	FastDelay   time.Duration // redis-fastretry's retry delay
	FastTries   int           // and tries
	Java        string        // the java program ZooKeeper runs on
	ZKClasspath string        // ZooKeeper's jars
	ZKHeap      string        // ZooKeeper's -Xmx
}

// DefaultEnv is Debian's packages at their usual paths.
func DefaultEnv(procs *Procs, self string) Env {
	return Env{Procs: procs, Self: self, RedisServer: "redis-server",
		FastDelay: time.Millisecond, FastTries: 1000000,
		Java: "java", ZKClasspath: "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-nop.jar", ZKHeap: "1g"}
}

// Names are the backends, in the order the benchmark runs them.
func Names() []string {
	return []string{"etcd", "etcd-nofsync", "zk", "zk-nosync", "redis", "redis-fastretry", "inproc"}
}

// ErrUnknown is a backend name that is not one of Names.
var ErrUnknown = errors.New("unknown backend")

// NotInstalled says which program a backend needs and does not find.
type NotInstalled struct {
	Backend, Missing string
}

func (e *NotInstalled) Error() string {
	return fmt.Sprintf("%s: not installed (%s not found; bench/peers/setup.sh installs it)", e.Backend, e.Missing)
}

// New returns the named backend.
func New(name string, env Env) (Backend, error) {
	switch name {
	case "etcd", "etcd-nofsync":
		return &etcdBackend{env: env, name: name, nofsync: name == "etcd-nofsync"}, nil
	case "redis", "redis-fastretry":
		return &redisBackend{env: env, name: name, fast: name == "redis-fastretry"}, nil
	case "zk", "zk-nosync":
		return &zkBackend{env: env, name: name, nosync: name == "zk-nosync"}, nil
	case "inproc":
		return &inprocBackend{}, nil
	}
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
}

// Check returns a *NotInstalled when the named backend's programs are
// missing, nil when it can run.
func Check(name string, env Env) error {
	if !slices.Contains(Names(), name) {
		return fmt.Errorf("%w %q (known: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	switch {
	case strings.HasPrefix(name, "redis"):
		if _, err := exec.LookPath(env.RedisServer); err != nil {
			return &NotInstalled{name, env.RedisServer}
		}
	case strings.HasPrefix(name, "zk"):
		if _, err := exec.LookPath(env.Java); err != nil {
			return &NotInstalled{name, env.Java}
		}
		for _, jar := range strings.Split(env.ZKClasspath, ":") {
			if _, err := os.Stat(jar); err != nil {
				return &NotInstalled{name, jar}
			}
		}
	}
	return nil
}

// Meter measures a started backend's server CPU and this process's.
type Meter struct{ B Backend }

// CPU is workload.Meter's.
func (m Meter) CPU() (server, self float64) {
	server = -1
	if pid := m.B.Pid(); pid != 0 {
		server = ProcCPU(pid)
	}
	return server, SelfCPU()
}
