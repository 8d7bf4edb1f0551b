package chaos

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/allot-dev/allot/service/eventlog"
)

// nodes are the allot serve processes of a run, each dialling the others
// through a proxy of its own per peer: links[i][k] carries node i's
// connections to node k.
type nodes struct {
	bin, dir  string
	addrs     []string
	args      [][]string
	links     [][]*Proxy
	cmds      []*exec.Cmd
	exited    []chan struct{}
	lives     []int           // incarnations of each node, for its event log's name
	killed    map[[2]int]bool // (node, incarnation) killed: its log's tail is lost
	readyWait time.Duration
	mu        sync.Mutex // killed, written by nodes started together
	// dataDirs: allot serve takes --data-dir, and each node has one of
	// its own under dir that outlives its restarts.
	dataDirs bool
}

// takesDataDir reports whether bin's allot serve has a --data-dir flag
// (its --help says so): a service that keeps state across restarts.
func takesDataDir(bin string) bool {
	out, _ := exec.Command(bin, "serve", "--help").CombinedOutput()
	return strings.Contains(string(out), "-data-dir")
}

// freeAddrs are n free loopback addresses for the nodes, on ports below
// the kernel's range of ephemeral ports. A node restarted on its port
// (kill -9, then back within 10–60ms) must find it free: a port of that
// range can be taken meanwhile as the local end of any connection the
// machine opens (every client and link redials then), and the node then
// exits before it is ready ("address already in use"). Ports the kernel
// gives out for port 0 and for connections never fall below the range.
func freeAddrs(n int) ([]string, error) {
	low := ephemeralLow()
	// A random start, so that runs side by side rarely try the same ports.
	next := 10000 + int(time.Now().UnixNano()%int64(max(low-10000, 1)))
	var out []string
	for tries := 0; len(out) < n; tries++ {
		if tries == low {
			return nil, fmt.Errorf("no %d free ports below %d", n, low)
		}
		port := next
		if next++; next >= low {
			next = 10000
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		l, err := net.Listen("tcp", addr)
		if err != nil {
			continue // taken
		}
		defer l.Close()
		out = append(out, addr)
	}
	return out, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's
// ip_local_port_range; its default where that cannot be read).
func ephemeralLow() int {
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var lo, hi int
		if _, err := fmt.Sscan(string(b), &lo, &hi); err == nil && lo > 10001 {
			low = lo
		}
	}
	return low
}

func startNodes(bin, dir string, n int, lockDelay, suspect time.Duration, quota string) (*nodes, error) {
	addrs, err := freeAddrs(n)
	if err != nil {
		return nil, err
	}
	ns := &nodes{bin: bin, dir: dir, addrs: addrs, lives: make([]int, n), killed: map[[2]int]bool{}, readyWait: 20 * time.Second,
		dataDirs: takesDataDir(bin)}
	for i := range n {
		var row []*Proxy
		via := make([]string, n)
		for k := range n {
			if k == i {
				row, via[k] = append(row, nil), addrs[k]
				continue
			}
			p, err := NewProxy(addrs[k])
			if err != nil {
				ns.stop()
				return nil, err
			}
			row, via[k] = append(row, p), p.Addr()
		}
		ns.links = append(ns.links, row)
		ns.args = append(ns.args, []string{"serve", "--nodes", strings.Join(addrs, ","), "--node", fmt.Sprint(i),
			"--peer-addrs", strings.Join(via, ","), "--lock-delay", lockDelay.String(), "--quota", quota,
			"--suspect", suspect.String(), "--log-level", "info", "--drain", "2s", "--peer-timeout", "15s"})
		if ns.dataDirs {
			ns.args[i] = append(ns.args[i], "--data-dir", filepath.Join(dir, "data", fmt.Sprintf("node-%d", i)))
		}
	}
	ns.cmds = make([]*exec.Cmd, n)
	ns.exited = make([]chan struct{}, n)
	ready := make(chan error, n)
	for i := range n {
		go func() { ready <- ns.start(i) }()
	}
	for range n {
		if err := <-ready; err != nil {
			ns.stop()
			return nil, err
		}
	}
	return ns, nil
}

// events is node i's event log of incarnation life.
func (ns *nodes) events(i, life int) string {
	return filepath.Join(ns.dir, fmt.Sprintf("node-%d.%d.jsonl", i, life))
}

// start starts node i (again) and waits until it is ready.
func (ns *nodes) start(i int) error {
	ns.lives[i]++
	return ns.startLife(i, ns.lives[i]-1)
}

// startLife starts incarnation life of node i and waits until it is
// ready.
func (ns *nodes) startLife(i, life int) error {
	args := append(slices.Clone(ns.args[i]), "--events", ns.events(i, life))
	cmd := exec.Command(ns.bin, args...)
	// The node's log goes beside its event log, for a failed run's reader.
	logf, err := os.Create(filepath.Join(ns.dir, fmt.Sprintf("node-%d.%d.log", i, life)))
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	ns.cmds[i] = cmd
	exited := make(chan struct{})
	ns.exited[i] = exited
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if !ok && strings.Contains(sc.Text(), "ready") {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
		cmd.Wait()
		close(exited)
	}()
	select {
	case ok := <-ready:
		if !ok {
			return fmt.Errorf("node %d exited before it was ready; its log ends: %s", i, tail(logf.Name(), 5))
		}
		return nil
	case <-time.After(ns.readyWait):
		ns.mu.Lock()
		ns.killed[[2]int{i, life}] = true
		ns.mu.Unlock()
		cmd.Process.Kill()
		return fmt.Errorf("node %d not ready within %v", i, ns.readyWait)
	}
}

// kill kills the nodes is with SIGKILL at once and waits until they are
// gone.
func (ns *nodes) kill(is ...int) {
	ns.mu.Lock()
	for _, i := range is {
		ns.killed[[2]int{i, ns.lives[i] - 1}] = true
		ns.cmds[i].Process.Kill()
	}
	ns.mu.Unlock()
	for _, i := range is {
		<-ns.exited[i]
	}
}

// restart starts the nodes is again, together (as after a power cut, each
// on its data dir), and waits until they are ready.
func (ns *nodes) restart(is ...int) error {
	errs := make(chan error, len(is))
	for _, i := range is {
		life := ns.lives[i]
		ns.lives[i]++
		go func() { errs <- ns.startLife(i, life) }()
	}
	var err error
	for range is {
		err = errors.Join(err, <-errs)
	}
	return err
}

// pause stops node i with SIGSTOP (frozen: its connections stay open and
// nothing answers) and cont lets it go on with SIGCONT.
func (ns *nodes) pause(i int) { ns.cmds[i].Process.Signal(syscall.SIGSTOP) }
func (ns *nodes) cont(i int)  { ns.cmds[i].Process.Signal(syscall.SIGCONT) }

// link returns the proxies of both directions of the link between nodes
// i and k.
func (ns *nodes) link(i, k int) []*Proxy { return []*Proxy{ns.links[i][k], ns.links[k][i]} }

// isolate returns every proxy of node i's links.
func (ns *nodes) isolate(i int) []*Proxy {
	var out []*Proxy
	for k := range ns.addrs {
		if k != i {
			out = append(out, ns.link(i, k)...)
		}
	}
	return out
}

// stop stops every node with SIGTERM (they drain and flush their logs)
// and closes the proxies; a node still running after 10s is killed.
func (ns *nodes) stop() {
	for i, c := range ns.cmds {
		if c != nil && c.Process != nil {
			c.Process.Signal(syscall.SIGCONT) // a paused node could not drain
			c.Process.Signal(syscall.SIGTERM)
			select {
			case <-ns.exited[i]:
			case <-time.After(10 * time.Second):
				c.Process.Kill()
				<-ns.exited[i]
			}
		}
	}
	for _, row := range ns.links {
		for _, p := range row {
			if p != nil {
				p.Close()
			}
		}
	}
}

// logs reads the event log of every incarnation of every node that was
// not killed: a node buffers its log, so a killed one loses the tail, and
// a grant whose release is lost would look held for ever. The clients'
// histories still show what the killed incarnations granted.
func (ns *nodes) logs() ([][]eventlog.Record, error) {
	var out [][]eventlog.Record
	for i := range ns.addrs {
		for life := range ns.lives[i] {
			if ns.killed[[2]int{i, life}] {
				continue
			}
			f, err := os.Open(ns.events(i, life))
			if err != nil {
				return nil, err
			}
			recs, err := eventlog.Read(f)
			f.Close()
			if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("node %d's log %d: %w", i, life, err)
			}
			out = append(out, recs)
		}
	}
	return out, nil
}

// tail is the last n lines of the file at path, on one line.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], " | ")
}
