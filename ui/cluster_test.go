package ui

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestParseAddrs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"127.0.0.1:1,127.0.0.1:2", 2, true},
		{" a:1 , ", 1, true},
		{"", 0, false},
		{"nohost", 0, false},
		{"a:", 0, false},
	} {
		got, err := ParseAddrs(c.in)
		if (err == nil) != c.ok || len(got) != c.want {
			t.Errorf("ParseAddrs(%q) = %q, %v", c.in, got, err)
		}
	}
}

// Poll reads a node's status, and says why it could not of one that is
// down, one that is not a node, and one that answers something else than
// JSON; Changed hears of each change once.
func TestPoll(t *testing.T) {
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/status" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"node":0,"epoch":3}`))
	}))
	defer node.Close()
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("<html>")) }))
	defer html.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close()
	host := func(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "http://") }
	var changes []string
	c := &Cluster{
		Addrs:   []string{host(node), host(other), host(html), down},
		Now:     func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		Changed: func(addr string, err error) { changes = append(changes, addr) },
	}
	for range 2 {
		st := c.Poll(context.Background())
		if st.At != "2026-01-02T03:04:05Z" || len(st.Nodes) != 4 {
			t.Fatalf("poll: %+v", st)
		}
		if st.Nodes[0].Error != "" || string(st.Nodes[0].Status) != `{"node":0,"epoch":3}` {
			t.Errorf("the node: %+v", st.Nodes[0])
		}
		for _, n := range st.Nodes[1:] {
			if n.Error == "" || n.Status != nil {
				t.Errorf("%s: %+v, want an error", n.Addr, n)
			}
		}
	}
	if len(changes) != 3 {
		t.Errorf("changes heard: %q, want the 3 unreachable nodes once each", changes)
	}
	_, err = fetch(context.Background(), http.DefaultClient, "http://"+down+"/status")
	if !errors.Is(err, ErrUnreachable) {
		t.Errorf("fetch of a closed port: %v", err)
	}
}
