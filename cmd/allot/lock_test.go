package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
)

// lockCluster starts n allot serve processes and returns their addresses
// as allot lock's --addr takes them.
func lockCluster(t *testing.T, n int) (string, []*serveProc) {
	t.Helper()
	dir := t.TempDir()
	addrs, err := freePorts(n)
	if err != nil {
		t.Fatal(err)
	}
	nodes := strings.Join(addrs, ",")
	procs := serveTogether(t, n, func(i int) []string {
		return []string{"--nodes", nodes, "--node", fmt.Sprint(i), "--data-dir", filepath.Join(dir, fmt.Sprint(i))}
	})
	return nodes, procs
}

// lockProc starts allot lock ARGS as a process of its own, its stdout and
// stderr into the buffers.
func lockProc(t *testing.T, stdout, stderr *bytes.Buffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"lock"}, args...)...)
	cmd.Env = append(os.Environ(), "ALLOT_TEST_MAIN=1")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A group of its own, so that the command it runs is killed with
	// it, whatever happened; and Wait does not wait on a command left
	// behind holding the output.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd
}

// waitProc waits for cmd to exit, at most d; then it kills it and the
// test fails.
func waitProc(t *testing.T, cmd *exec.Cmd, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("%q did not exit within %v", cmd.Args, d)
		return nil
	}
}

// waitFor waits until f returns true, at most d.
func waitFor(t *testing.T, d time.Duration, what string, f func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !f(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("not within %v: %s", d, what)
		}
	}
}

var tokenRE = regexp.MustCompile(`^\d+\.\d+$`)

// parseToken reads a token as allot lock writes it, EPOCH.COUNTER.
func parseToken(t *testing.T, s string) client.Token {
	t.Helper()
	e, c, ok := strings.Cut(strings.TrimSpace(s), ".")
	epoch, err1 := strconv.ParseUint(e, 10, 64)
	counter, err2 := strconv.ParseUint(c, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("token %q: want EPOCH.COUNTER", s)
	}
	return client.Token{Epoch: epoch, Counter: counter}
}

// TestLock: allot lock on a 3-node cluster passes its tokens to its
// command and passes the command's exit status on; commands under the
// lock of one name run one after the other, with growing tokens; a signal
// to allot lock reaches its command.
func TestLock(t *testing.T) {
	addrs, _ := lockCluster(t, 3)

	t.Run("token", func(t *testing.T) {
		out, errs, code := allot(t, "lock", "--addr", addrs, "build", "--", "sh", "-c", "echo $ALLOT_TOKEN")
		if code != 0 || !tokenRE.MatchString(strings.TrimSpace(out)) {
			t.Fatalf("exit %d, stdout %q (want a token), stderr %q", code, out, errs)
		}
	})

	t.Run("names", func(t *testing.T) {
		// Names with '=' in them: a token is after a line's last '='.
		out, errs, code := allot(t, "lock", "--addr", addrs, "db/a", "--ttl", "5s", "db=b", "--", "sh", "-c", `printf '%s\n' "$ALLOT_TOKEN" "$ALLOT_TOKENS"`)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 0 || len(lines) != 3 {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
		}
		a, ok1 := strings.CutPrefix(lines[1], "db/a=")
		b, ok2 := strings.CutPrefix(lines[2], "db=b=")
		if !ok1 || !ok2 || a != lines[0] || !tokenRE.MatchString(a) || !tokenRE.MatchString(b) {
			t.Errorf("ALLOT_TOKEN, ALLOT_TOKENS:\n%s", out)
		}
	})

	t.Run("exit status", func(t *testing.T) {
		for _, c := range []struct {
			script string
			want   int
		}{{"exit 0", 0}, {"exit 7", 7}, {"kill -KILL $$", 128 + int(syscall.SIGKILL)}} {
			if _, errs, code := allot(t, "lock", "--addr", addrs, "status", "--", "sh", "-c", c.script); code != c.want || errs != "" {
				t.Errorf("%q: exit %d, want %d; stderr %q", c.script, code, c.want, errs)
			}
		}
	})

	t.Run("one after the other", func(t *testing.T) {
		// Each command writes when it starts and when it ends, in ns,
		// and prints its token; none may start before the one before
		// it ended.
		const n = 3
		dir := t.TempDir()
		outs := make([]bytes.Buffer, n)
		errs := make([]bytes.Buffer, n)
		cmds := make([]*exec.Cmd, n)
		for i := range n {
			f := filepath.Join(dir, fmt.Sprint(i))
			cmds[i] = lockProc(t, &outs[i], &errs[i], "--addr", addrs, "deploy", "--",
				"sh", "-c", `date +%s%N > "$1"; sleep 0.3; date +%s%N >> "$1"; echo $ALLOT_TOKEN`, "sh", f)
		}
		type run struct {
			start, end int64
			tok        client.Token
		}
		var runs []run
		for i, c := range cmds {
			if err := waitProc(t, c, 30*time.Second); err != nil {
				t.Fatalf("allot lock %d: %v; stderr %q", i, err, errs[i].String())
			}
			b, err := os.ReadFile(filepath.Join(dir, fmt.Sprint(i)))
			if err != nil {
				t.Fatal(err)
			}
			ts := strings.Fields(string(b))
			if len(ts) != 2 {
				t.Fatalf("command %d wrote %q", i, b)
			}
			start, _ := strconv.ParseInt(ts[0], 10, 64)
			end, _ := strconv.ParseInt(ts[1], 10, 64)
			runs = append(runs, run{start, end, parseToken(t, outs[i].String())})
		}
		slices.SortFunc(runs, func(a, b run) int { return int(a.start - b.start) })
		for i := 1; i < n; i++ {
			if runs[i].start < runs[i-1].end {
				t.Errorf("a command started %v before the one holding the lock ended", time.Duration(runs[i-1].end-runs[i].start))
			}
			if !runs[i-1].tok.Less(runs[i].tok) {
				t.Errorf("token %v after %v: tokens must grow", runs[i].tok, runs[i-1].tok)
			}
		}
	})

	t.Run("interrupted while waiting", func(t *testing.T) {
		// One holds the lock; a second, waiting for it, is interrupted:
		// it never runs its command, and exits 130.
		var out1, errs1, out2, errs2 bytes.Buffer
		f := filepath.Join(t.TempDir(), "log")
		holder := lockProc(t, &out1, &errs1, "--addr", addrs, "held", "--", "sh", "-c", `echo ready > "$1"; exec sleep 30`, "sh", f)
		waitFor(t, 15*time.Second, "the holder's command ready", func() bool { return fileHas(f, "ready") })
		waiter := lockProc(t, &out2, &errs2, "--addr", addrs, "held", "--", "sh", "-c", `echo ran > "$1"`, "sh", f)
		time.Sleep(500 * time.Millisecond) // waiting for the lock by now, or still opening its session: both end on SIGINT
		waiter.Process.Signal(os.Interrupt)
		err := waitProc(t, waiter, 20*time.Second)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGINT) || fileHas(f, "ran") || !strings.HasPrefix(errs2.String(), "allot: lock: stopped by interrupt before the lock was taken") {
			t.Errorf("interrupted: %v (want exit 130), stderr %q", err, errs2.String())
		}
		holder.Process.Signal(syscall.SIGTERM)
		waitProc(t, holder, 20*time.Second)
	})

	t.Run("signal", func(t *testing.T) {
		var out, errs bytes.Buffer
		f := filepath.Join(t.TempDir(), "log")
		cmd := lockProc(t, &out, &errs, "--addr", addrs, "sig", "--",
			"sh", "-c", `trap 'echo got TERM >> "$1"; exit 5' TERM; echo ready > "$1"; while :; do sleep 0.05; done`, "sh", f)
		waitFor(t, 15*time.Second, "the command ready", func() bool { return fileHas(f, "ready") })
		cmd.Process.Signal(syscall.SIGTERM)
		err := waitProc(t, cmd, 20*time.Second)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 5 || !fileHas(f, "got TERM") {
			t.Errorf("allot lock: %v (want exit 5), stdout %q, stderr %q", err, out.String(), errs.String())
		}
	})
}

// fileHas says whether the file at path holds s.
func fileHas(path, s string) bool {
	b, _ := os.ReadFile(path)
	return strings.Contains(string(b), s)
}

// TestLockEndsCommandWhenSessionLost: the only node of a cluster killed,
// allot lock's session is lost within its TTL: its command gets SIGTERM
// and, ignoring it, SIGKILL after --grace; allot lock says why, and
// exits with the command's status.
func TestLockEndsCommandWhenSessionLost(t *testing.T) {
	addr, procs := lockCluster(t, 1)
	var out, errs bytes.Buffer
	f := filepath.Join(t.TempDir(), "log")
	cmd := lockProc(t, &out, &errs, "--addr", addr, "--ttl", "1s", "--grace", "300ms", "job", "--",
		"sh", "-c", `trap 'echo got TERM >> "$1"' TERM; echo ready > "$1"; while :; do sleep 0.05; done`, "sh", f)
	waitFor(t, 15*time.Second, "the command ready", func() bool { return fileHas(f, "ready") })
	killed := time.Now()
	procs[0].cmd.Process.Kill()
	err := waitProc(t, cmd, 20*time.Second)
	took := time.Since(killed)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGKILL) {
		t.Errorf("allot lock: %v, want exit %d (SIGKILL)", err, 128+int(syscall.SIGKILL))
	}
	if !fileHas(f, "got TERM") {
		t.Errorf("the command got no SIGTERM")
	}
	if !strings.Contains(errs.String(), "allot: lock: the session was lost") {
		t.Errorf("stderr %q", errs.String())
	}
	// The client's lease bound (1s) and the grace (0.3s), on a loaded
	// machine.
	if took > 10*time.Second {
		t.Errorf("the command ended %v after the node was killed", took)
	}
	t.Logf("the command ended %v after the node was killed", took)
}

// TestLockBadInput: what is wrong with the command line, and a cluster
// that cannot be reached, is one allot: line and exit 2.
func TestLockBadInput(t *testing.T) {
	addrs, err := freePorts(1) // nobody listens there
	if err != nil {
		t.Fatal(err)
	}
	a := addrs[0]
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--addr", a, "x", "true"}, "no -- before the command"},
		{[]string{"--addr", a, "--", "true"}, "no name to lock"},
		{[]string{"--addr", a, "x", "--"}, "no command after --"},
		{[]string{"x", "--", "true"}, "--addr: the cluster's node addresses are needed"},
		{[]string{"--addr", "nowhere", "x", "--", "true"}, "--addr: address nowhere: missing port"},
		{[]string{"--addr", a, "--ttl", "0s", "x", "--", "true"}, "--ttl 0s: want more than 0"},
		{[]string{"--addr", a, "--ttl", "25h", "x", "--", "true"}, "--ttl 25h0m0s"},
		{[]string{"--addr", a, "--ttl", "soon", "x", "--", "true"}, "invalid value \"soon\" for flag -ttl"},
		{[]string{"--addr", a, "--grace", "-1s", "x", "--", "true"}, "--grace -1s"},
		{[]string{"--addr", a, "x\ny", "--", "true"}, "a newline"},
		{[]string{"--addr", a, "x", "--", filepath.Join(dir, "nothing")}, "no such file"},
		{[]string{"--addr", a, "--tls-ca", "ca.pem", "x", "--", "true"}, "give all of --tls-ca, --tls-cert and --tls-key"},
		{[]string{"--addr", a, "--token-file", "t", "x", "--", "true"}, "--token-file needs mTLS"},
		{[]string{"--addr", a, "x", "--", "true"}, "no session on the cluster at " + a},
	} {
		out, errs, code := allot(t, append([]string{"lock"}, c.args...)...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "allot: ") || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q (want one allot: line with %q, exit 2)", c.args, code, out, errs, c.want)
		}
	}
	// Help is not an error.
	if out, _, code := allot(t, "lock", "-h"); code != 0 || !strings.Contains(out, "ALLOT_TOKENS") {
		t.Errorf("allot lock -h: exit %d, %q", code, out)
	}
}

// TestLockTLS: allot lock speaks mTLS with a client certificate and
// token to a secure node (as allot cluster --tls starts them); without
// the token it gets no session.
func TestLockTLS(t *testing.T) {
	secure, dir, token, files, err := secureCluster()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	addrs, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	startServe(t, append([]string{"--nodes", addrs[0], "--node", "0", "--data-dir", t.TempDir()}, secure...)...)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tls := []string{"--addr", addrs[0], "--tls-ca", files.CA, "--tls-cert", files.ClientCert, "--tls-key", files.ClientKey}
	out, errs, code := allot(t, append(append([]string{"lock"}, tls...), "--token-file", tokenFile, "x", "--", "sh", "-c", "echo $ALLOT_TOKEN")...)
	if code != 0 || !tokenRE.MatchString(strings.TrimSpace(out)) {
		t.Errorf("with the token: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	_, errs, code = allot(t, append(append([]string{"lock"}, tls...), "x", "--", "true")...)
	if code != 2 || !strings.Contains(errs, "unauthenticated") {
		t.Errorf("without the token: exit %d, stderr %q", code, errs)
	}
}
