package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/mtls"
	"github.com/allot-dev/allot/service"
)

// A cluster with mTLS and client tokens: the client presents a certificate
// signed by the cluster's CA and a token the nodes know (allot certs and
// allot serve --tls-ca/--tls-cert/--tls-key/--auth-tokens make such a
// cluster; allot cluster --tls starts one).
func ExampleDialWith() {
	dir, _ := os.MkdirTemp("", "allot-example-")
	defer os.RemoveAll(dir)
	files, err := mtls.WriteSet(dir, []string{"127.0.0.1"}, time.Hour)
	if err != nil {
		panic(err)
	}
	const token = "example-token-0123456789"
	os.WriteFile(filepath.Join(dir, "tokens"), []byte("example "+token+"\n"), 0o600)

	// One node, as allot serve would run it.
	id, err := mtls.Load(files.CA, files.NodeCert, files.NodeKey)
	if err != nil {
		panic(err)
	}
	tokens, err := service.ReadTokens(filepath.Join(dir, "tokens"))
	if err != nil {
		panic(err)
	}
	srvOpts, dialOpts := service.Secure(id, tokens, nil)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	n, err := service.New(service.Config{Cluster: service.Cluster{Nodes: []string{ln.Addr().String()}}, ServerOptions: srvOpts, DialOptions: dialOpts})
	if err != nil {
		panic(err)
	}
	srv, err := n.NewServer()
	if err != nil {
		panic(err)
	}
	go srv.Serve(ln)
	defer srv.Stop()
	ctx := context.Background()
	defer n.Shutdown(ctx)

	c, err := client.DialWith(ctx, []string{ln.Addr().String()},
		client.WithTLSFiles(files.CA, files.ClientCert, files.ClientKey),
		client.WithToken(token))
	if err != nil {
		panic(err)
	}
	defer c.Close()
	s, err := c.Session(ctx)
	if err != nil {
		panic(err)
	}
	g, err := s.Lock(ctx, "accounts/alice")
	if err != nil {
		panic(err)
	}
	fmt.Println("locked over mTLS")
	g.Unlock(ctx)
	s.Close(ctx)

	// The same certificate without the token is refused.
	anon, _ := client.DialWith(ctx, []string{ln.Addr().String()}, client.WithTLSFiles(files.CA, files.ClientCert, files.ClientKey))
	defer anon.Close()
	_, err = anon.Session(ctx)
	fmt.Println(errors.Is(err, client.ErrUnauthenticated))
	// Output:
	// locked over mTLS
	// true
}
