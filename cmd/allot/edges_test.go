package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/allot-dev/allot/service"
)

// deadAddr is a loopback address no one listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := ln.Addr().String()
	ln.Close()
	return a
}

// The client's errors start with "allot: ", and a command's line does:
// the line has one, wherever the wraps put theirs.
func TestOneAllotPrefix(t *testing.T) {
	for in, want := range map[error]string{
		errors.New("allot: taken"):                                                      "taken",
		fmt.Errorf("W1: %w", errors.New("allot: unavailable")):                          "W1: unavailable",
		fmt.Errorf("allot: 127.0.0.1:1: %w", errors.New("allot: TLS handshake failed")): "127.0.0.1:1: TLS handshake failed",
		errors.New("member list: no node answers"):                                      "member list: no node answers",
	} {
		if got := bare(in); got != want {
			t.Errorf("bare(%q) = %q, want %q", in, got, want)
		}
	}
	dead := deadAddr(t)
	for _, args := range [][]string{
		{"bench", "--addr", dead, "--workloads", "W1", "--duration", "1s"},
		{"member", "list", "--addr", dead, "--timeout", "2s"},
	} {
		_, errs, code := allot(t, args...)
		if code != 1 || strings.Count(errs, "allot:") != 1 || !strings.HasPrefix(errs, "allot: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q: want one line with one allot:, exit 1", args, code, errs)
		}
	}
	// Against a dead address, member says so in words, not gRPC's.
	if _, errs, _ := allot(t, "member", "list", "--addr", dead, "--timeout", "2s"); errs != "allot: member list: no node answers at "+dead+" (connection refused)\n" {
		t.Errorf("member list at a dead address: %q", errs)
	}
}

// inProcessNodes starts n nodes in this process, each with its /status on
// an HTTP server of its own that the node knows of (Config.StatusAddr, as
// allot serve --metrics sets it), and returns their addresses, their
// status addresses, and a stop for each.
func inProcessNodes(t *testing.T, n int) (addrs, status []string, stop []func()) {
	t.Helper()
	var lns, sls []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		sl, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns, sls = append(lns, ln), append(sls, sl)
		addrs, status = append(addrs, ln.Addr().String()), append(status, sl.Addr().String())
	}
	for i := range n {
		nd, err := service.New(service.Config{Cluster: service.Cluster{Nodes: addrs}, Self: i, StatusAddr: status[i]})
		if err != nil {
			t.Fatal(err)
		}
		s := grpc.NewServer()
		if err := nd.Register(s); err != nil {
			t.Fatal(err)
		}
		go s.Serve(lns[i])
		hs := &http.Server{Handler: nd.StatusHandler()}
		go hs.Serve(sls[i])
		var once sync.Once
		stop = append(stop, func() {
			once.Do(func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				nd.Shutdown(ctx)
				s.Stop()
				hs.Close()
			})
		})
		t.Cleanup(stop[i])
	}
	return addrs, status, stop
}

type listedMember struct {
	ID          int    `json:"id"`
	Leader      bool   `json:"leader"`
	Up          bool   `json:"up"`
	LeaseLeftMs int64  `json:"lease_left_ms"`
	Status      string `json:"status_address"`
}

// memberList is allot member list --format json at addr.
func memberList(t *testing.T, addr string) []listedMember {
	t.Helper()
	out, errs, code := allot(t, "member", "list", "--addr", addr, "--format", "json")
	var l struct{ Members []listedMember }
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil {
		t.Fatalf("member list: exit %d, %q %q", code, out, errs)
	}
	return l.Members
}

// allot member list says of each member whether it is up, and its lease,
// and which one leads; allot ui --cluster takes the nodes' own addresses
// and finds their status addresses.
func TestMemberListUpLeaseAndUIByNodeAddress(t *testing.T) {
	addrs, status, stop := inProcessNodes(t, 3)
	var ms []listedMember
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ms = memberList(t, addrs[0])
		leaders, serving := 0, 0
		for _, m := range ms {
			if m.Leader {
				leaders++
			}
			if m.Up && m.LeaseLeftMs > 0 && m.Status == status[m.ID] {
				serving++
			}
		}
		if leaders == 1 && serving == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no leader and three members up with leases and status addresses: %+v", ms)
		}
	}
	out, _, _ := allot(t, "member", "list", "--addr", addrs[0])
	if lines := strings.Split(out, "\n"); !strings.HasSuffix(lines[0], "LEADER  UP  LEASE") || !strings.Contains(lines[1], " up ") {
		t.Errorf("member list as text:\n%s", out)
	}

	// ui --cluster: node addresses are asked for their status address,
	// status addresses are taken as they are.
	var errs strings.Builder
	got, err := statusAddrs(context.Background(), []string{addrs[0], status[1]}, &errs)
	if err != nil || got[0] != status[0] || got[1] != status[1] {
		t.Errorf("status addresses of %s and %s: %q %v, want %s and %s", addrs[0], status[1], got, err, status[0], status[1])
	}
	if want := "allot: ui: node " + addrs[0] + ": its status at " + status[0] + "\n"; errs.String() != want {
		t.Errorf("stderr %q, want %q", errs.String(), want)
	}

	// A node down: listed as down, with no lease.
	stop[2]()
	ms = memberList(t, addrs[0])
	if m := ms[2]; m.Up || m.LeaseLeftMs != 0 || !ms[0].Up {
		t.Errorf("node 2 stopped: %+v", ms)
	}
	out, _, _ = allot(t, "member", "list", "--addr", addrs[0])
	if !strings.Contains(out, " down ") {
		t.Errorf("node 2 stopped, not down in\n%s", out)
	}
}

// TestBenchTLS: allot bench takes the flags of the other client commands
// and runs against a secure node (as allot cluster --tls starts them,
// with the token file it writes); without them it gets no session.
func TestBenchTLS(t *testing.T) {
	secure, dir, _, files, err := secureCluster()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	addrs, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	startServe(t, append([]string{"--nodes", addrs[0], "--node", "0", "--data-dir", t.TempDir()}, secure...)...)
	bench := []string{"bench", "--addr", addrs[0], "--workloads", "W1", "--duration", "300ms", "--format", "json"}
	flags := strings.Fields(secureClientFlags(files, dir))
	out, errs, code := allot(t, append(bench, flags...)...)
	var r struct {
		Protocol  string
		Workloads []struct {
			OpsPerSecond float64 `json:"ops_per_second"`
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || len(r.Workloads) != 1 || r.Workloads[0].OpsPerSecond <= 0 || r.Protocol != "native" {
		t.Errorf("the default, with the certificate and token: exit %d, stdout %q, stderr %q; want calls on the native protocol", code, out, errs)
	}
	out, errs, code = allot(t, append(append(bench, "--protocol", "grpc"), flags...)...)
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Protocol != "grpc" {
		t.Errorf("--protocol grpc: exit %d, stdout %q, stderr %q; want calls on gRPC", code, out, errs)
	}
	if _, errs, code := allot(t, bench...); code == 0 || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "allot: ") {
		t.Errorf("in plaintext: exit %d, stderr %q", code, errs)
	}
	if _, errs, code := allot(t, append([]string{"bench", "--workloads", "W1"}, flags...)...); code != 2 || !strings.Contains(errs, "given with --addr") {
		t.Errorf("TLS flags for the bench's own cluster: exit %d, stderr %q", code, errs)
	}
}
