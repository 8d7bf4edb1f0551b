package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/allot-dev/allot/mtls"
	"github.com/allot-dev/allot/service"
)

// TestQuickstart runs the README's client example against three nodes on
// loopback, with the quota allot cluster's example declares.
func TestQuickstart(t *testing.T) {
	var lns []net.Listener
	var addrs []string
	for range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	for i := range 3 {
		nd, err := service.New(service.Config{Self: i, Cluster: service.Cluster{
			Nodes: addrs, Quotas: map[string]service.QuotaSpec{"api-calls": {Budget: 1000, Waste: 100}}}})
		if err != nil {
			t.Fatal(err)
		}
		s := grpc.NewServer()
		if err := nd.Register(s); err != nil {
			t.Fatal(err)
		}
		go s.Serve(lns[i])
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			nd.Shutdown(ctx)
			s.Stop()
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, addrs, nil, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"locked accounts/alice and accounts/bob, tokens ", "1 of 4 units held", "1 permit taken"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestQuickstartTLS runs the example with the flags allot cluster --tls
// prints against a node with mTLS and client tokens: it gets through with
// them, and is refused without the token.
func TestQuickstartTLS(t *testing.T) {
	dir := t.TempDir()
	files, err := mtls.WriteSet(dir, []string{"127.0.0.1"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	const token = "0123456789abcdef0123"
	tokens, tokenFile := filepath.Join(dir, "tokens"), filepath.Join(dir, "client-token")
	os.WriteFile(tokens, []byte("client "+token+"\n"), 0o600)
	os.WriteFile(tokenFile, []byte(token+"\n"), 0o600)
	id, err := mtls.Load(files.CA, files.NodeCert, files.NodeKey)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := service.ReadTokens(tokens)
	if err != nil {
		t.Fatal(err)
	}
	srvOpts, dialOpts := service.Secure(id, toks, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	nd, err := service.New(service.Config{Self: 0, Cluster: service.Cluster{Nodes: []string{addr},
		Quotas: map[string]service.QuotaSpec{"api-calls": {Budget: 1000, Waste: 100}}},
		ServerOptions: srvOpts, DialOptions: dialOpts, Identity: id})
	if err != nil {
		t.Fatal(err)
	}
	s, err := nd.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		nd.Shutdown(ctx)
		s.Stop()
	})
	tls := []string{"--tls-ca", files.CA, "--tls-cert", files.ClientCert, "--tls-key", files.ClientKey}
	var out, errs bytes.Buffer
	if code := realMain(append(append(tls, "--token-file", tokenFile), addr), &out, &errs); code != 0 || !strings.Contains(out.String(), "1 permit taken") {
		t.Fatalf("with the certificate and token: exit %d, %q %q", code, out.String(), errs.String())
	}
	errs.Reset()
	if code := realMain(append(tls, addr), &out, &errs); code != 1 || !strings.Contains(errs.String(), "unauthenticated") {
		t.Errorf("without the token: exit %d, stderr %q", code, errs.String())
	}
	errs.Reset()
	if code := realMain([]string{"--tls-ca", files.CA, addr}, &out, &errs); code != 2 || strings.Count(errs.String(), "\n") != 1 {
		t.Errorf("a CA alone: exit %d, stderr %q", code, errs.String())
	}
}
