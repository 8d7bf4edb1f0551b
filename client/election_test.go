package client_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
)

// leaderKilled: the leader of an election, a process of its own
// (TestElectionCampaigner), is killed with kill -9; the campaigner that
// waited behind it leads once the dead leader's session expires, with a
// larger token, and Leader and Observe say who leads before and after.
func leaderKilled(ctx context.Context, t *testing.T, c *client.Client, addrs []string) {
	leader := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestElectionCampaigner$", "-test.count=1")
	leader.Env = append(os.Environ(), "ALLOT_TEST_ELECTION_ADDRS="+strings.Join(addrs, ","))
	out, err := leader.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	leader.Stderr = os.Stderr
	if err := leader.Start(); err != nil {
		t.Fatal(err)
	}
	defer leader.Wait()
	defer leader.Process.Kill()
	var (
		theirs uint64
		tok    client.Token
	)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "leading %d %d.%d", &theirs, &tok.Epoch, &tok.Counter); err == nil {
			break
		}
	}
	if theirs == 0 {
		t.Fatal("the campaigner process did not say it leads")
	}
	go func() {
		for sc.Scan() {
		}
	}()

	s, err := c.Session(ctx, client.WithTTL(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	e := s.Election("kill9")
	if l, err := e.Leader(ctx); err != nil || l.Session != theirs || l.Token != tok {
		t.Fatalf("Leader: %+v, %v; want session %d with token %v", l, err, theirs, tok)
	}
	octx, ocancel := context.WithCancel(ctx)
	defer ocancel()
	seen := e.Observe(octx)
	if l := <-seen; l.Session != theirs {
		t.Fatalf("Observe's first leader: session %d, want %d", l.Session, theirs)
	}
	won := make(chan error, 1)
	go func() { won <- e.Campaign(ctx) }()
	time.Sleep(100 * time.Millisecond) // campaigning, behind the leader
	if err := leader.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if err := <-won; err != nil {
		t.Fatalf("Campaign after the leader's kill -9: %v", err)
	}
	// Its session ends within its TTL (1s) and the nodes' --suspect (1s)
	// of its last keep-alive; a second's margin for a loaded machine.
	took := time.Since(killed)
	t.Logf("led %v after the leader's kill -9", took.Round(time.Millisecond))
	if took > 3*time.Second {
		t.Errorf("led %v after the leader's kill -9; want within 3s", took)
	}
	ours, ok := e.Token()
	if !ok || !tok.Less(ours) {
		t.Errorf("the new leader's token %v (leading: %v); want one above the dead leader's %v", ours, ok, tok)
	}
	select {
	case l := <-seen:
		if l.Session != s.ID() || l.Token != ours {
			t.Errorf("Observe's next leader: %+v; want session %d with token %v", l, s.ID(), ours)
		}
	case <-time.After(5 * time.Second):
		t.Error("Observe did not see the new leader")
	}
	if err := e.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Leader(ctx); !errors.Is(err, client.ErrNoLeader) {
		t.Errorf("Leader once the leader resigned: %v, want ErrNoLeader", err)
	}
}

// TestElectionCampaigner is the leader's process of TestKill9/leader:
// it campaigns with a session of 1s, says it leads, and waits to be
// killed. Run on its own it does nothing.
func TestElectionCampaigner(t *testing.T) {
	addrs := os.Getenv("ALLOT_TEST_ELECTION_ADDRS")
	if addrs == "" {
		t.Skip("the leader's process of TestKill9")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, strings.Split(addrs, ",")...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Session(ctx, client.WithTTL(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	e := s.Election("kill9")
	if err := e.Campaign(ctx); err != nil {
		t.Fatal(err)
	}
	tok, _ := e.Token()
	fmt.Printf("leading %d %v\n", s.ID(), tok)
	<-ctx.Done()
}
