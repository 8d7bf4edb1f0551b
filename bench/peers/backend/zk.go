package backend

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/allot-dev/allot/bench/peers/workload"
)

// zkBackend runs Debian's ZooKeeper standalone, the JVM itself as the
// child (ZooKeeperServerMain, no wrapper script), and locks with the
// go-zookeeper lock recipe. zk-nosync turns off forceSync.
type zkBackend struct {
	env    Env
	name   string
	nosync bool
	proc   *child
	addr   string
	info   map[string]string
}

func (b *zkBackend) Pid() int {
	if b.proc == nil {
		return 0
	}
	return b.proc.pid()
}

func (b *zkBackend) Info() map[string]string { return b.info }

// fourLetter sends one of ZooKeeper's four-letter commands.
func fourLetter(addr, cmd string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte(cmd)); err != nil {
		return "", err
	}
	var b strings.Builder
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	return b.String(), nil
}

func (b *zkBackend) Start(dir string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	data := filepath.Join(dir, "zk-data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	forceSync := "yes"
	if b.nosync {
		forceSync = "no"
	}
	cfg := fmt.Sprintf("tickTime=2000\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\nmaxClientCnxns=0\nadmin.enableServer=false\n4lw.commands.whitelist=srvr,ruok\nforceSync=%s\n", data, port, forceSync)
	cpath := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(cpath, []byte(cfg), 0o644); err != nil {
		return err
	}
	b.proc, err = b.env.Procs.start(b.name, filepath.Join(dir, "zk-server.log"), "", 0,
		b.env.Java, "-Xms256m", "-Xmx"+b.env.ZKHeap, "-Dzookeeper.admin.enableServer=false",
		"-Dzookeeper.forceSync="+forceSync, "-cp", b.env.ZKClasspath,
		"org.apache.zookeeper.server.ZooKeeperServerMain", cpath)
	if err != nil {
		return err
	}
	b.addr = fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	var srvr string
	for {
		srvr, err = fourLetter(b.addr, "srvr")
		if err == nil && strings.Contains(srvr, "Mode:") {
			break
		}
		if b.proc.exited() || time.Now().After(deadline) {
			b.Stop()
			return fmt.Errorf("zookeeper not ready: %v (see %s)", err, b.proc.logPath)
		}
		time.Sleep(100 * time.Millisecond)
	}
	ver := "?"
	for _, l := range strings.Split(srvr, "\n") {
		if v, ok := strings.CutPrefix(l, "Zookeeper version:"); ok {
			ver = strings.TrimSuffix(strings.SplitN(strings.TrimSpace(v), ",", 2)[0], "-${mvngit.commit.id}")
		}
	}
	b.info = map[string]string{
		"server":    "ZooKeeper " + ver + " standalone (Debian package " + debVersion("zookeeper") + ", " + b.javaVersion() + ", -Xmx" + b.env.ZKHeap + ")",
		"forceSync": forceSync,
		"client":    "go-zookeeper/zk lock recipe, one zk.Conn (its own session, 10s timeout) per benchmark client",
	}
	return nil
}

func (b *zkBackend) javaVersion() string {
	out, err := exec.Command(b.env.Java, "-version").CombinedOutput()
	if lines := strings.Split(string(out), "\n"); err == nil && len(lines) > 1 {
		return strings.TrimSpace(lines[1])
	}
	return "java ?"
}

func (b *zkBackend) Stop() error {
	if b.proc == nil {
		return nil
	}
	return b.proc.stop(20 * time.Second)
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

type zkClient struct {
	conn  *zk.Conn
	locks map[string]*zk.Lock
	once  sync.Once
}

func (b *zkBackend) NewClient(ctx context.Context) (workload.Locker, error) {
	conn, ev, err := zk.Connect([]string{b.addr}, 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(quiet{}))
	if err != nil {
		return nil, err
	}
	timeout := time.After(15 * time.Second)
	for {
		select {
		case e := <-ev:
			if e.State == zk.StateHasSession {
				go func() {
					for range ev { // the connection closes the channel
					}
				}()
				return &zkClient{conn: conn, locks: map[string]*zk.Lock{}}, nil
			}
		case <-timeout:
			conn.Close()
			return nil, errors.New("zookeeper: no session after 15s")
		case <-ctx.Done():
			conn.Close()
			return nil, ctx.Err()
		}
	}
}

func (c *zkClient) lock(key string) *zk.Lock {
	l := c.locks[key]
	if l == nil {
		l = zk.NewLock(c.conn, "/bench/"+key, zk.WorldACL(zk.PermAll))
		c.locks[key] = l
	}
	return l
}

// Lock cannot be cancelled (the recipe takes no context): the workloads
// bound it by the drain, then close the connection.
func (c *zkClient) Lock(_ context.Context, key string) error { return c.lock(key).Lock() }

func (c *zkClient) Unlock(_ context.Context, key string) error { return c.lock(key).Unlock() }

func (c *zkClient) Close() error {
	c.once.Do(func() { c.conn.Close() })
	return nil
}
