package backend

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Procs tracks the server processes a benchmark started, so that all of
// them can be stopped, by their process ids, when the benchmark is
// interrupted. Each server is a direct child with PR_SET_PDEATHSIG, so
// none outlives a benchmark that is killed outright.
type Procs struct {
	mu       sync.Mutex
	children map[int]*child
}

// NewProcs returns an empty set of children.
func NewProcs() *Procs { return &Procs{children: map[int]*child{}} }

// StopAll stops every child still running (SIGTERM, SIGKILL after 10 s).
func (p *Procs) StopAll() {
	p.mu.Lock()
	cs := make([]*child, 0, len(p.children))
	for _, c := range p.children {
		cs = append(cs, c)
	}
	p.mu.Unlock()
	for _, c := range cs {
		_ = c.stop(10 * time.Second)
	}
}

// child is one server process.
type child struct {
	procs   *Procs
	name    string
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
	ready   string // the line that said the child is ready, for children that print one
	logPath string
}

// start starts argv with its stderr (and its stdout, unless readyPrefix
// is set) going to logPath. With readyPrefix, it waits until the child
// prints a line starting with it.
func (p *Procs) start(name, logPath, readyPrefix string, readyTimeout time.Duration, argv ...string) (*child, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stdout io.ReadCloser
	if readyPrefix != "" {
		if stdout, err = cmd.StdoutPipe(); err != nil {
			logf.Close()
			return nil, err
		}
	} else {
		cmd.Stdout = logf
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	c := &child{procs: p, name: name, cmd: cmd, done: make(chan struct{}), logPath: logPath}
	p.mu.Lock()
	p.children[cmd.Process.Pid] = c
	p.mu.Unlock()
	readyc := make(chan string, 1)
	scanned := make(chan struct{})
	if readyPrefix == "" {
		close(scanned)
	} else {
		go func() {
			defer close(scanned)
			sc := bufio.NewScanner(stdout)
			sent := false
			for sc.Scan() {
				if line := sc.Text(); !sent && strings.HasPrefix(line, readyPrefix) {
					readyc <- line
					sent = true
				} else {
					fmt.Fprintln(logf, line)
				}
			}
			if !sent {
				close(readyc)
			}
		}()
	}
	go func() {
		<-scanned // the pipe is read to its end before Wait closes it
		c.waitErr = cmd.Wait()
		logf.Close()
		close(c.done)
	}()
	if readyPrefix == "" {
		return c, nil
	}
	select {
	case line, ok := <-readyc:
		if !ok {
			<-c.done
			c.forget()
			return nil, fmt.Errorf("%s exited before it was ready (%v); see %s", name, c.waitErr, logPath)
		}
		c.ready = line
		return c, nil
	case <-time.After(readyTimeout):
		_ = c.stop(5 * time.Second)
		return nil, fmt.Errorf("%s not ready after %v; see %s", name, readyTimeout, logPath)
	}
}

func (c *child) pid() int { return c.cmd.Process.Pid }

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *child) forget() {
	c.procs.mu.Lock()
	delete(c.procs.children, c.pid())
	c.procs.mu.Unlock()
}

// stop sends SIGTERM to the child and waits; SIGKILL after timeout.
func (c *child) stop(timeout time.Duration) error {
	defer c.forget()
	if c.exited() {
		return fmt.Errorf("%s (pid %d) had already exited: %v", c.name, c.pid(), c.waitErr)
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		return nil
	case <-time.After(timeout):
		_ = c.cmd.Process.Kill()
		<-c.done
		return fmt.Errorf("%s (pid %d) ignored SIGTERM for %v and was killed", c.name, c.pid(), timeout)
	}
}

// freePort asks the kernel for a TCP port on 127.0.0.1 that was free a
// moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ProcCPU returns a process's user+system CPU seconds from /proc (-1 when
// it cannot be read).
func ProcCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	// After ")", field 3 (state) comes first: utime is field 14, stime 15.
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return -1
	}
	ut, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return (ut + st) / 100 // USER_HZ is 100 on Linux
}

// SelfCPU returns this process's user+system CPU seconds.
func SelfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// debVersion returns an installed Debian package's version, or "?".
func debVersion(pkg string) string {
	out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", pkg).Output()
	if err != nil || len(out) == 0 {
		return "?"
	}
	return strings.TrimSpace(string(out))
}
