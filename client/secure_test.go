package client_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/client"
	"github.com/allot-dev/allot/mtls"
	"github.com/allot-dev/allot/service"
)

// The token the secure test clusters accept.
const testToken = "s3cret-t0ken-for-tests"

// pki is a CA made for one test, and certificates it and another CA issue.
type pki struct {
	t         *testing.T
	dir       string
	ca, other *mtls.CA
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	now := time.Now()
	p := &pki{t: t, dir: t.TempDir()}
	var err error
	if p.ca, err = mtls.NewCA("test CA", now.Add(-time.Hour), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if p.other, err = mtls.NewCA("other CA", now.Add(-time.Hour), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	p.write("ca.pem", p.ca.PEM())
	return p
}

func (p *pki) write(name string, b []byte) string {
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		p.t.Fatal(err)
	}
	return path
}

// files issues a certificate of s by ca and writes it as name.pem and
// name-key.pem; it returns the CA file, the certificate and the key.
func (p *pki) files(ca *mtls.CA, name string, s mtls.Spec) (caFile, certFile, keyFile string) {
	p.t.Helper()
	if s.NotBefore.IsZero() {
		s.NotBefore, s.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	}
	cert, key, err := ca.Issue(s)
	if err != nil {
		p.t.Fatal(err)
	}
	return filepath.Join(p.dir, "ca.pem"), p.write(name+".pem", cert), p.write(name+"-key.pem", key)
}

// tlsConfig is a client configuration that trusts the test CA and sends
// the certificate of s by ca whatever the server asks for (crypto/tls
// would send none of a CA the server does not name), as an impostor
// would; the certificate is not checked here, so an expired one goes out.
func (p *pki) tlsConfig(ca *mtls.CA, s mtls.Spec) *tls.Config {
	p.t.Helper()
	cert, key, err := ca.Issue(s)
	if err != nil {
		p.t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		p.t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(p.ca.PEM())
	return &tls.Config{RootCAs: roots, GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }}
}

// secureCluster starts n nodes in this process that speak mTLS to each
// other and to clients, and ask clients for testToken; the nodes log on
// log (nil: nowhere).
func secureCluster(t *testing.T, p *pki, n int, log *lockedBuffer) []string {
	t.Helper()
	ca, cert, key := p.files(p.ca, "node", mtls.Spec{Name: "node", Hosts: []string{"127.0.0.1"}, Node: true})
	id, err := mtls.Load(ca, cert, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := id.CheckNode(); err != nil {
		t.Fatal(err)
	}
	tokens, err := service.ReadTokens(p.write("tokens", []byte("# name token\ntests "+testToken+"\n")))
	if err != nil {
		t.Fatal(err)
	}
	var logger *slog.Logger
	if log != nil {
		logger = slog.New(slog.NewTextHandler(log, nil))
	}
	srvOpts, dialOpts := service.Secure(id, tokens, logger)
	var lns []net.Listener
	var addrs []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	var nodes []*service.Node
	var servers []*grpc.Server
	for i := range n {
		nd, err := service.New(service.Config{Cluster: service.Cluster{Nodes: addrs, Slots: 4}, Self: i, DialOptions: dialOpts, ServerOptions: srvOpts, Identity: id})
		if err != nil {
			t.Fatal(err)
		}
		s, err := nd.NewServer()
		if err != nil {
			t.Fatal(err)
		}
		go nd.Serve(s, lns[i])
		nodes = append(nodes, nd)
		servers = append(servers, s)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		for i, nd := range nodes {
			nd.Shutdown(ctx)
			servers[i].Stop()
		}
	})
	// The links are up only if the nodes' handshakes with each other
	// succeeded: mTLS between nodes, on the plain carrier.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, nd := range nodes {
		if err := nd.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i, nd := range nodes {
		for k := range n {
			if k == i {
				continue
			}
			want := fmt.Sprintf("allot_peer_link_plain{peer=%q} 1", fmt.Sprint(k))
			for !strings.Contains(scrapeNode(nd), want) {
				if ctx.Err() != nil {
					t.Fatalf("node %d: no %s: its link to node %d is not on the plain carrier", i, want, k)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
	return addrs
}

// TestSecureCluster: with the right certificate and token, sessions on
// each of 3 nodes talking mTLS to each other take and give back
// overlapping locks, and a semaphore unit.
//
// It runs on the native protocol and on gRPC.
func TestSecureCluster(t *testing.T) {
	p := newPKI(t)
	addrs := secureCluster(t, p, 3, nil)
	for _, proto := range []client.Protocol{client.ProtocolNative, client.ProtocolGRPC} {
		t.Run(string(proto), func(t *testing.T) { testSecureCluster(t, p, addrs, proto) })
	}
}

func testSecureCluster(t *testing.T, p *pki, addrs []string, proto client.Protocol) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.DialWith(ctx, addrs, client.WithTLSFiles(p.files(p.ca, "client", mtls.Spec{Name: "client"})), client.WithToken(testToken), client.WithProtocol(proto))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer func() {
		if got := c.Protocols(); !slices.Equal(got, []string{string(proto), string(proto), string(proto)}) {
			t.Errorf("calls went on %v, want %s at each node", got, proto)
		}
	}()
	var wg sync.WaitGroup
	for i := range 3 { // one session per node
		s, err := c.Session(ctx, client.WithTTL(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(ctx)
		wg.Go(func() {
			for k := range 10 {
				g, err := s.Lock(ctx, "shared", []string{"a", "b", "c"}[(i+k)%3])
				if err != nil {
					t.Error(err)
					return
				}
				if err := g.Unlock(ctx); err != nil {
					t.Error(err)
					return
				}
			}
			sem := s.Semaphore("workers", 2)
			if err := sem.Acquire(ctx); err != nil {
				t.Error(err)
				return
			}
			if err := sem.Release(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// TestRefused: every wrong client is refused, each with its reason, which
// the node logs too.
func TestRefused(t *testing.T) {
	p := newPKI(t)
	var log lockedBuffer
	addrs := secureCluster(t, p, 1, &log)
	now := time.Now()
	good := client.WithTLSFiles(p.files(p.ca, "client", mtls.Spec{Name: "client"}))
	noCert := p.tlsConfig(p.ca, mtls.Spec{Name: "client"})
	noCert.GetClientCertificate = nil
	for _, c := range []struct {
		name string
		opts []client.Option
		want error
		says string // in the error
		logs string // in the node's log
	}{
		{"no client certificate", []client.Option{client.WithTLS(noCert), client.WithToken(testToken)}, client.ErrTLS, "certificate required", "client didn't provide a certificate"},
		{"certificate of another CA", []client.Option{client.WithTLS(p.tlsConfig(p.other, mtls.Spec{Name: "impostor", NotBefore: now.Add(-time.Minute), NotAfter: now.Add(time.Hour)})), client.WithToken(testToken)}, client.ErrTLS, "unknown certificate authority", "certificate signed by unknown authority"},
		{"expired certificate", []client.Option{client.WithTLS(p.tlsConfig(p.ca, mtls.Spec{Name: "late", NotBefore: now.Add(-time.Hour), NotAfter: now.Add(-time.Minute)})), client.WithToken(testToken)}, client.ErrTLS, "expired certificate", "certificate has expired"},
		{"no TLS", []client.Option{client.WithToken(testToken), client.AllowInsecureToken()}, client.ErrUnavailable, "", "first record does not look like a TLS handshake"},
		{"no token", []client.Option{good}, client.ErrUnauthenticated, "no client token", "err=\"no client token\""},
		{"wrong token", []client.Option{good, client.WithToken(testToken + "x")}, client.ErrUnauthenticated, "unknown client token", "err=\"unknown client token\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			cl, err := client.DialWith(ctx, addrs, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			_, err = cl.Session(ctx)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("Session: %v, want %v saying %q", err, c.want, c.says)
			}
			// The node logs a refused handshake when its side of it
			// ends, which may be a moment after the client's.
			for deadline := time.Now().Add(2 * time.Second); !strings.Contains(log.String(), c.logs); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the node's log does not say %q:\n%s", c.logs, log.String())
				}
			}
		})
	}
}

// TestDialRefuses: what the client refuses before it sends anything.
func TestDialRefuses(t *testing.T) {
	p := newPKI(t)
	now := time.Now()
	ctx := context.Background()
	addrs := []string{"127.0.0.1:1"}
	expired := client.WithTLSFiles(p.files(p.ca, "late", mtls.Spec{Name: "late", NotBefore: now.Add(-time.Hour), NotAfter: now.Add(-time.Minute)}))
	if _, err := client.DialWith(ctx, addrs, expired); !errors.Is(err, mtls.ErrExpired) {
		t.Errorf("an expired certificate: %v, want mtls.ErrExpired", err)
	}
	foreign := client.WithTLSFiles(p.files(p.other, "foreign", mtls.Spec{Name: "foreign"}))
	if _, err := client.DialWith(ctx, addrs, foreign); !errors.Is(err, mtls.ErrUnknownAuthority) {
		t.Errorf("a certificate of another CA: %v, want mtls.ErrUnknownAuthority", err)
	}
	if _, err := client.DialWith(ctx, addrs, client.WithToken(testToken)); !errors.Is(err, client.ErrInsecureToken) {
		t.Errorf("a token without TLS: %v, want ErrInsecureToken", err)
	}
}

// TestNodeAPINeedsNodeCertificate: a client certificate of the cluster's
// own CA gets through the handshake but may not open a node link (the
// link service of transport/grpc on the node's server): only a node
// certificate gets to the link's own handshake, which then finds no hello.
func TestNodeAPINeedsNodeCertificate(t *testing.T) {
	p := newPKI(t)
	var log lockedBuffer
	addrs := secureCluster(t, p, 1, &log)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, c := range []struct {
		name string
		node bool
		want codes.Code
	}{{"client certificate", false, codes.PermissionDenied}, {"node certificate", true, codes.Unknown}} {
		id, err := mtls.Load(p.files(p.ca, c.name, mtls.Spec{Name: c.name, Hosts: []string{"127.0.0.1"}, Node: c.node}))
		if err != nil {
			t.Fatal(err)
		}
		cc, err := grpc.NewClient(addrs[0], grpc.WithTransportCredentials(id.DialCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		st, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, "/allot.link.Link/Connect")
		if err != nil {
			t.Fatal(err)
		}
		st.CloseSend()
		err = st.RecvMsg(new(wrapperspb.BytesValue))
		if status.Code(err) != c.want {
			t.Errorf("%s: a link without a hello: %v, want %v", c.name, err, c.want)
		}
	}
	if !strings.Contains(log.String(), "method=/allot.link.Link/Connect") {
		t.Errorf("the node did not log the refused link:\n%s", log.String())
	}
}

// TestAdminNeedsNodeCertificate: the membership (allot member, the Admin
// service) is the nodes': a client certificate of the cluster's CA with a
// valid token is refused, a node certificate lists the members.
func TestAdminNeedsNodeCertificate(t *testing.T) {
	p := newPKI(t)
	var log lockedBuffer
	addrs := secureCluster(t, p, 1, &log)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, c := range []struct {
		name string
		node bool
		want codes.Code
	}{{"admin client", false, codes.PermissionDenied}, {"admin node", true, codes.OK}} {
		id, err := mtls.Load(p.files(p.ca, c.name, mtls.Spec{Name: c.name, Hosts: []string{"127.0.0.1"}, Node: c.node}))
		if err != nil {
			t.Fatal(err)
		}
		cc, err := grpc.NewClient(addrs[0], grpc.WithTransportCredentials(id.DialCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		tctx := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+testToken)
		r, err := pb.NewAdminClient(cc).ListMembers(tctx, &pb.ListMembersRequest{})
		if status.Code(err) != c.want || err == nil && len(r.Members) != 1 {
			t.Errorf("%s: list the members: %v %v, want %v", c.name, r, err, c.want)
		}
	}
}

// scrapeNode is what the node's /metrics says.
func scrapeNode(n *service.Node) string {
	rec := httptest.NewRecorder()
	n.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}
