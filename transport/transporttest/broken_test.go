package transporttest

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"testing"
	"time"

	"github.com/allot-dev/allot/dist"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/transport"
	"github.com/allot-dev/allot/transport/mem"
)

// probe is a testing.TB that records failures instead of failing the test
// it runs in, so the suite can be run on broken transports.
type probe struct {
	testing.TB
	mu      sync.Mutex
	failed  bool
	skipped bool
	first   string
}

func (p *probe) fail(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.failed {
		p.first = msg
	}
	p.failed = true
}

func (p *probe) Errorf(format string, args ...any) { p.fail(fmt.Sprintf(format, args...)) }
func (p *probe) Error(args ...any)                 { p.fail(fmt.Sprint(args...)) }
func (p *probe) Fatalf(format string, args ...any) {
	p.fail(fmt.Sprintf(format, args...))
	goruntime.Goexit()
}
func (p *probe) Fatal(args ...any)   { p.fail(fmt.Sprint(args...)); goruntime.Goexit() }
func (p *probe) Skip(...any)         { p.skipped = true; goruntime.Goexit() }
func (p *probe) Failed() bool        { p.mu.Lock(); defer p.mu.Unlock(); return p.failed }
func (p *probe) Logf(string, ...any) {}

// dup delivers every message twice.
type dup struct{ *mem.Mem }

func (d dup) Send(from, to proc.ID, m proc.Message) error {
	if err := d.Mem.Send(from, to, m); err != nil {
		return err
	}
	return d.Mem.Send(from, to, m)
}

// liar has unordered links and says they are FIFO.
type liar struct{ *mem.Mem }

func (liar) Ordered() bool { return true }

// lossy drops what is sent while a link is cut.
type lossy struct {
	*mem.Mem
	mu  sync.Mutex
	cut bool
}

func (l *lossy) Cut(a, b proc.ID)     { l.mu.Lock(); l.cut = true; l.mu.Unlock() }
func (l *lossy) Restore(a, b proc.ID) { l.mu.Lock(); l.cut = false; l.mu.Unlock() }
func (l *lossy) Send(from, to proc.ID, m proc.Message) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut {
		return nil
	}
	return l.Mem.Send(from, to, m)
}

// leaky ignores cuts: messages cross a cut link.
type leaky struct{ *mem.Mem }

func (leaky) Cut(a, b proc.ID)     {}
func (leaky) Restore(a, b proc.ID) {}

// TestSuiteCatchesBrokenTransports runs the suite's checks on transports
// broken in one way each: the check for that way must fail, so the suite
// is not one that cannot fail.
func TestSuiteCatchesBrokenTransports(t *testing.T) {
	defer func(d time.Duration) { Timeout = d }(Timeout)
	Timeout = time.Second
	newMem := func(fifo bool) *mem.Mem {
		return mem.New(mem.Config{Delay: dist.Uniform(0, 20), FIFO: fifo, Tick: 100 * time.Microsecond, Seed: 1})
	}
	for _, c := range []struct {
		check  string
		broken Factory
	}{
		{"DeliversEachMessageOnce", func(testing.TB) transport.Transport { return dup{newMem(false)} }},
		{"FIFO", func(testing.TB) transport.Transport { return liar{newMem(false)} }},
		{"CutAndRestore", func(testing.TB) transport.Transport { return &lossy{Mem: newMem(true)} }},
		{"CutAndRestore", func(testing.TB) transport.Transport { return leaky{newMem(true)} }},
	} {
		for _, k := range checks {
			if k.name != c.check {
				continue
			}
			p := &probe{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				k.run(p, c.broken)
			}()
			<-done
			switch {
			case p.skipped:
				t.Errorf("%s skipped a broken transport", c.check)
			case !p.Failed():
				t.Errorf("%s passed a broken transport", c.check)
			default:
				t.Logf("%s caught it: %s", c.check, p.first)
			}
		}
	}
}
