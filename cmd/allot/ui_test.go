package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/service"
	"github.com/allot-dev/allot/ui"
)

func TestUIBadArgs(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"ui"},
		{"ui", filepath.Join(dir, "missing.jsonl")},
		{"ui", "--cluster", "nohost"},
		{"ui", "--cluster", "a:1", "t.jsonl"},
		{"ui", "--window", "9:1", "t.jsonl"},
		{"ui", "--addr"},
		{"ui", "--algo", "hygienic,threshold", "--graph", "ring:4", "--requests", "10"},
		{"ui", "--algo", "nope"},
	} {
		_, stderr, code := allot(t, args...)
		last := strings.TrimSpace(stderr)
		if i := strings.LastIndexByte(last, '\n'); i >= 0 {
			last = last[i+1:]
		}
		if code != 2 || !strings.HasPrefix(last, "allot: ") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and a line allot: ...", args, code, stderr)
		}
	}
}

// Sim flags run the simulator here; the page gets the run, messages
// included.
func TestUISimFlags(t *testing.T) {
	var stderr bytes.Buffer
	s, addr, bad, err := uiServer([]string{"--algo", "hygienic", "--graph", "ring:4", "--requests", "10", "--addr", "127.0.0.1:0"}, &stderr)
	if err != nil || bad != nil || addr != "127.0.0.1:0" {
		t.Fatalf("%v %v %q: %s", err, bad, addr, stderr.String())
	}
	rec := httptestGet(t, s, "/api/run")
	var r ui.Run
	if err := json.Unmarshal(rec, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.T) == 0 || r.Kind != "exclusive" || len(r.Msgs) == 0 || len(r.Edges) != 4 {
		t.Errorf("the run: %d events, kind %q, messages %q, edges %v", len(r.T), r.Kind, r.Msgs, r.Edges)
	}
}

// A bad trace is one line on stderr and a page that says it.
func TestUIBadTraceServesItsError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte("not a trace\n"), 0o644)
	var stderr bytes.Buffer
	s, _, bad, err := uiServer([]string{path}, &stderr)
	if err != nil || bad == nil {
		t.Fatalf("err %v, bad %v", err, bad)
	}
	if got := stderr.String(); !strings.HasPrefix(got, "allot: "+path+": line 1: not a JSONL trace") || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr %q", got)
	}
	var info struct{ Mode, Error string }
	json.Unmarshal(httptestGet(t, s, "/api/info"), &info)
	if info.Mode != "error" || !strings.Contains(info.Error, "not a JSONL trace") {
		t.Errorf("info %+v", info)
	}
}

// The node's /status shows a held lock with its token, as the client got
// it, and what allot ui --cluster reads of it.
func TestUIClusterStatus(t *testing.T) {
	cl, addrs, status := clusterInProcess(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.Session(ctx, client.WithTTL(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close(ctx)
	g, err := sess.Lock(ctx, "accounts/alice", "accounts/bob")
	if err != nil {
		t.Fatal(err)
	}
	st := (&ui.Cluster{Addrs: status}).Poll(ctx)
	found := 0
	for _, n := range st.Nodes {
		if n.Error != "" {
			t.Fatalf("%s: %s", n.Addr, n.Error)
		}
		var s service.Status
		if err := json.Unmarshal(n.Status, &s); err != nil {
			t.Fatal(err)
		}
		if s.Epoch == 0 || len(s.Live) != 3 {
			t.Errorf("node %d: epoch %d, live %v", s.Node, s.Epoch, s.Live)
		}
		for _, ss := range s.Sessions {
			for _, gs := range ss.Grants {
				found++
				tok := g.Token("accounts/alice")
				want := []string{cl.LockKey("accounts/alice"), cl.LockKey("accounts/bob")}
				if ss.ID != sess.ID() || !gs.Held || gs.Epoch != tok.Epoch || gs.Counter != tok.Counter || len(gs.Resources) != 2 ||
					!(gs.Resources[0] == want[0] && gs.Resources[1] == want[1] || gs.Resources[0] == want[1] && gs.Resources[1] == want[0]) {
					t.Errorf("grant %+v of session %d, want session %d holding %v with token %v", gs, ss.ID, sess.ID(), want, tok)
				}
			}
		}
	}
	if found != 1 {
		t.Errorf("%d grants on the nodes, want 1", found)
	}
}

func httptestGet(t *testing.T, h http.Handler, path string) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

func TestUIHelp(t *testing.T) {
	stdout, _, code := allot(t, "ui", "-h")
	if code != 0 || !strings.Contains(stdout, "allot ui --cluster ADDRS") {
		t.Errorf("allot ui -h: exit %d, %q", code, stdout)
	}
}
