package client_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-dev/allot/client"
)

// TestSecureClusterProcesses starts allot cluster --tls: three allot serve
// processes that talk mTLS to each other and ask clients for a token, with
// the certificates and the token allot cluster made; a client with them
// takes locks from every node, one without the token is refused, and the
// certificates are gone when the cluster stops.
func TestSecureClusterProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the allot binary and starts processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	var addrs []string
	var certs, token string
	stop := allotCluster(ctx, t, t.TempDir(), func(line string) bool {
		if a, ok := strings.CutPrefix(line, "cluster of 3 nodes: "); ok {
			addrs = strings.Split(a, ",")
		}
		if d, ok := strings.CutPrefix(line, "mTLS certificates: "); ok {
			certs, _, _ = strings.Cut(d, " ")
		}
		if tk, ok := strings.CutPrefix(line, "client token: "); ok {
			token = tk
		}
		return token != ""
	}, nil, "--nodes", "3", "--tls")
	defer stop()
	if len(addrs) != 3 || certs == "" || token == "" {
		t.Fatal("allot cluster --tls printed no addresses, certificates or token")
	}
	files := client.WithTLSFiles(filepath.Join(certs, "ca.pem"), filepath.Join(certs, "client.pem"), filepath.Join(certs, "client-key.pem"))

	c, err := client.DialWith(ctx, addrs, files, client.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 3 { // a session on each node; the lock's processes span them
		s, err := c.Session(ctx, client.WithTTL(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		g, err := s.Lock(ctx, "x", "y")
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		s.Close(ctx)
	}

	anon, err := client.DialWith(ctx, addrs, files)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	if _, err := anon.Session(ctx); !errors.Is(err, client.ErrUnauthenticated) {
		t.Errorf("a session without the token: %v, want ErrUnauthenticated", err)
	}
	stop()
	if _, err := os.Stat(certs); !os.IsNotExist(err) {
		t.Errorf("the certificates are still there after the cluster stopped: %v", err)
	}
}
