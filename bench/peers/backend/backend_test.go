package backend

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/allot-dev/allot/bench/peers/workload"
)

// TestMain lets the test binary be the etcd and echo servers, as the
// benchmark's own binary is.
func TestMain(m *testing.M) {
	if len(os.Args) >= 2 && (os.Args[1] == EtcdFlag || os.Args[1] == EchoFlag) {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		var err error
		if os.Args[1] == EtcdFlag {
			err = ServeEtcd(ctx, os.Args[2], os.Stdout)
		} else {
			err = ServeEcho(ctx, os.Stdout)
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func testEnv(t *testing.T) Env {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	procs := NewProcs()
	t.Cleanup(procs.StopAll)
	return DefaultEnv(procs, self)
}

func TestCheck(t *testing.T) {
	env := testEnv(t)
	env.RedisServer = "/nonexistent/redis-server"
	env.ZKClasspath = "/nonexistent/zookeeper.jar"
	var ni *NotInstalled
	for _, name := range []string{"redis", "redis-fastretry", "zk", "zk-nosync"} {
		if err := Check(name, env); !errors.As(err, &ni) || ni.Backend != name {
			t.Errorf("%s with its programs missing: %v", name, err)
		}
	}
	for _, name := range []string{"etcd", "etcd-nofsync", "inproc"} {
		if err := Check(name, env); err != nil {
			t.Errorf("%s needs nothing installed: %v", name, err)
		}
	}
	if err := Check("mongo", env); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown backend: %v", err)
	}
	if _, err := New("mongo", env); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown backend: %v", err)
	}
}

// TestBackends starts every backend that is installed here and runs the
// workloads against it briefly; one not installed is skipped, and says so.
func TestBackends(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd, ZooKeeper and Redis")
	}
	env := testEnv(t)
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			if err := Check(name, env); err != nil {
				t.Skip(err)
			}
			b, err := New(name, env)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Start(t.TempDir()); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := b.Stop(); err != nil {
					t.Error(err)
				}
			}()
			if name != "inproc" && (b.Pid() == 0 || ProcCPU(b.Pid()) < 0) {
				t.Errorf("server pid %d", b.Pid())
			}
			cfg := workload.Default()
			cfg.Window, cfg.W2, cfg.W3, cfg.W4 = time.Second, 3, 4, 4
			ss, err := workload.Run(context.Background(), cfg, b.NewClient, Meter{B: b})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range ss {
				if s.Ops == 0 || s.UnlockFailures != 0 || s.Aborted {
					t.Errorf("%+v", s)
				}
			}
			if b.Info()["server"] == "" {
				t.Errorf("info %v", b.Info())
			}
		})
	}
}

func TestBaseline(t *testing.T) {
	bl, err := MeasureBaseline(testEnv(t), t.TempDir(), 500)
	if err != nil {
		t.Fatal(err)
	}
	if bl.RTTP50us <= 0 || bl.RTTP99us < bl.RTTP50us || bl.GRPCP50us <= 0 || bl.GRPCP99us < bl.GRPCP50us || bl.StreamP50us <= 0 || bl.StreamP99us < bl.StreamP50us || bl.FsyncP50us <= 0 || bl.FsyncP99us < bl.FsyncP50us {
		t.Errorf("%+v", bl)
	}
}

func TestCPU(t *testing.T) {
	if ProcCPU(os.Getpid()) < 0 || SelfCPU() < 0 {
		t.Error("this process's CPU is not readable")
	}
	if ProcCPU(-1) != -1 {
		t.Error("a process that does not exist has a CPU time")
	}
}
