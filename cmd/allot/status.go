package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progressEnv set to "off" turns every progress line off: the docs check
// runs commands whose output must be the same bytes however long they
// take on a busy machine.
const progressEnv = "ALLOT_PROGRESS"

// plainEvery is how often a stderr that is not a terminal is told what a
// long command is doing, and how long it waits before the first line.
const plainEvery = 10 * time.Second

// A statusLine says what a long command is doing. On a terminal it is one
// line redrawn in place and cleared before the output. Elsewhere (a log,
// a pipe) nothing is written for plainEvery, then the newest state every
// plainEvery, one line each: a run that takes minutes is never silent
// (complete:3000 --requests 100 said nothing for over ten minutes), and
// one that takes seconds writes nothing. The zero statusLine says nothing.
type statusLine struct {
	tty io.Writer // the terminal; nil if stderr is not one

	mu    sync.Mutex
	text  string
	plain io.Writer // nil: no plain lines
	stop  chan struct{}
	done  chan struct{}
}

// newStatusLine is the status line of a command writing to stderr; getenv
// reads progressEnv. Plain lines go only to a file (a pipe, a log): an
// in-memory stderr is a test's, or a caller's that reads it at the end.
func newStatusLine(stderr io.Writer, getenv func(string) string, every time.Duration) *statusLine {
	if getenv(progressEnv) == "off" {
		return &statusLine{}
	}
	if tty := terminal(stderr); tty != nil {
		return &statusLine{tty: tty}
	}
	f, ok := stderr.(*os.File)
	if !ok {
		return &statusLine{}
	}
	t := time.NewTicker(every)
	l := plainStatus(f, t.C)
	go func() { <-l.done; t.Stop() }()
	return l
}

// plainStatus is a status line writing plain lines to w, at each tick.
func plainStatus(w io.Writer, tick <-chan time.Time) *statusLine {
	l := &statusLine{plain: w, stop: make(chan struct{}), done: make(chan struct{})}
	go l.tell(tick)
	return l
}

// tell writes the newest state at each tick, until close.
func (l *statusLine) tell(tick <-chan time.Time) {
	defer close(l.done)
	for {
		select {
		case <-l.stop:
			return
		case <-tick:
			l.mu.Lock()
			if text := l.text; text != "" {
				if !strings.HasPrefix(text, "allot") {
					text = "allot sim: " + text
				}
				fmt.Fprintln(l.plain, text)
			}
			l.mu.Unlock()
		}
	}
}

// set makes text the command's state; goroutines may call it at once.
func (l *statusLine) set(text string) {
	if l.tty == nil && l.plain == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tty != nil {
		fmt.Fprintf(l.tty, "\r%s\x1b[K", text)
		return
	}
	l.text = text
}

// seeds is the callback of a sweep of total seeds, its runs ended so far
// told as what's state (nil when nothing is to be told).
func (l *statusLine) seeds(what string, total int) func(n int) {
	if l.tty == nil && l.plain == nil {
		return nil
	}
	start := time.Now()
	return func(n int) {
		l.set(fmt.Sprintf("allot sim: %s: %d of %d seeds run%s", what, n, total, left(", about %s left", time.Since(start), n, total)))
	}
}

// clear clears a terminal's line; a plain line, once written, stays.
func (l *statusLine) clear() {
	if l.tty != nil {
		fmt.Fprint(l.tty, "\r\x1b[K")
	}
}

// close stops the plain lines; none is written after it returns.
func (l *statusLine) close() {
	if l.stop != nil {
		close(l.stop)
		<-l.done
		l.stop = nil
	}
}

// progress is the progress callback of one run (nil when nothing is to
// be told).
func (l *statusLine) progress(name string, target int) func(served, asked int) {
	if l.tty == nil && l.plain == nil {
		return nil
	}
	return runProgress(l.set, name, target, time.Now)
}
