// Package mtls loads the certificates of an allot cluster and turns them
// into gRPC transport credentials for mutual TLS, and makes a throwaway
// certificate authority with node and client certificates for trying.
//
//	   ca.pem (the cluster's CA)
//	   /                  \
//	node.pem             client.pem
//	serverAuth+clientAuth clientAuth
//	  node <--- mTLS ---> node      (each verifies the other against ca.pem)
//	  node <--- mTLS ---- client    (the node requires a client certificate)
//
// Every side loads three files: the CA that signs everyone, its own
// certificate and its own key. Load checks them before anything listens
// or dials, so a wrong file is one clear error at start rather than a
// handshake that fails later: a missing or unreadable file (ErrFile), a
// key that is not the certificate's (ErrKeyMismatch), a certificate
// outside its validity (ErrExpired, ErrNotYetValid), a certificate the CA
// did not sign (ErrUnknownAuthority). The handshakes themselves are
// crypto/tls's: a server built by ServerCredentials refuses a client
// without a certificate signed by the CA (tls.RequireAndVerifyClientCert),
// and a dialer built by DialCredentials refuses a server not signed by it.
//
// A node certificate is one that may serve TLS (extended key usage
// serverAuth); a client certificate may only authenticate a client. The
// service lets only node certificates use the node-to-node API (IsNode).
package mtls

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc/credentials"
)

// Errors of Load; errors.Is tells them apart.
var (
	ErrFile             = errors.New("mtls: cannot read")
	ErrKeyMismatch      = errors.New("mtls: the key does not match the certificate")
	ErrExpired          = errors.New("mtls: certificate expired")
	ErrNotYetValid      = errors.New("mtls: certificate not yet valid")
	ErrUnknownAuthority = errors.New("mtls: certificate not signed by the CA")
	ErrUsage            = errors.New("mtls: certificate not made for this use")
)

// Identity is what one side of a connection presents and trusts: its
// certificate and key, and the CA that must have signed the other side.
type Identity struct {
	Cert tls.Certificate   // the certificate chain and key presented
	Leaf *x509.Certificate // the certificate itself
	CA   *x509.CertPool    // who the other side must be signed by
}

// Load reads the CA bundle, the certificate (PEM, the leaf first) and its
// key (PEM), and checks them.
func Load(caFile, certFile, keyFile string) (*Identity, error) {
	read := func(what, path string) ([]byte, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%w %s: %v", ErrFile, what, err)
		}
		return b, nil
	}
	caPEM, err := read("the CA file", caFile)
	if err != nil {
		return nil, err
	}
	certPEM, err := read("the certificate file", certFile)
	if err != nil {
		return nil, err
	}
	keyPEM, err := read("the key file", keyFile)
	if err != nil {
		return nil, err
	}
	id, err := Parse(caPEM, certPEM, keyPEM, time.Now())
	if err != nil && !errors.Is(err, ErrFile) {
		return nil, fmt.Errorf("%s: %w", certFile, err)
	}
	return id, err
}

// Parse is Load of PEM bytes, checked at time now.
func Parse(caPEM, certPEM, keyPEM []byte, now time.Time) (*Identity, error) {
	pool, cas, err := parseCA(caPEM)
	if err != nil {
		return nil, err
	}
	cb, _ := pem.Decode(certPEM)
	if cb == nil || cb.Type != "CERTIFICATE" {
		return nil, fmt.Errorf("%w the certificate file: no PEM certificate in it", ErrFile)
	}
	if _, err := x509.ParseCertificate(cb.Bytes); err != nil {
		return nil, fmt.Errorf("%w the certificate file: %v", ErrFile, err)
	}
	kb, _ := pem.Decode(keyPEM)
	if kb == nil || !strings.HasSuffix(kb.Type, "PRIVATE KEY") {
		return nil, fmt.Errorf("%w the key file: no PEM private key in it", ErrFile)
	}
	if !parsesAsKey(kb.Bytes) {
		return nil, fmt.Errorf("%w the key file: not a PKCS #8, EC or PKCS #1 private key", ErrFile)
	}
	// Both parse: what X509KeyPair has left to refuse is the pair.
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrKeyMismatch, err)
	}
	leaf := cert.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return nil, fmt.Errorf("%w the certificate file: %v", ErrFile, err)
		}
		cert.Leaf = leaf
	}
	if err := valid(leaf, now); err != nil {
		return nil, err
	}
	for _, ca := range cas {
		if err := valid(ca, now); err != nil {
			return nil, fmt.Errorf("the CA: %w", err)
		}
	}
	inter := x509.NewCertPool()
	for _, der := range cert.Certificate[1:] {
		if c, err := x509.ParseCertificate(der); err == nil {
			inter.AddCert(c)
		}
	}
	_, err = leaf.Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	if err != nil {
		return nil, fmt.Errorf("%w (%s: %v)", ErrUnknownAuthority, describe(leaf), err)
	}
	return &Identity{Cert: cert, Leaf: leaf, CA: pool}, nil
}

func parsesAsKey(der []byte) bool {
	if _, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return true
	}
	if _, err := x509.ParseECPrivateKey(der); err == nil {
		return true
	}
	_, err := x509.ParsePKCS1PrivateKey(der)
	return err == nil
}

// parseCA reads every certificate of a CA bundle.
func parseCA(caPEM []byte) (*x509.CertPool, []*x509.Certificate, error) {
	pool := x509.NewCertPool()
	var cas []*x509.Certificate
	for rest := caPEM; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, nil, fmt.Errorf("%w the CA file: %v", ErrFile, err)
		}
		pool.AddCert(c)
		cas = append(cas, c)
	}
	if len(cas) == 0 {
		return nil, nil, fmt.Errorf("%w the CA file: no PEM certificate in it", ErrFile)
	}
	return pool, cas, nil
}

func valid(c *x509.Certificate, now time.Time) error {
	switch {
	case now.After(c.NotAfter):
		return fmt.Errorf("%w (%s: valid until %s)", ErrExpired, describe(c), c.NotAfter.UTC().Format(time.RFC3339))
	case now.Before(c.NotBefore):
		return fmt.Errorf("%w (%s: valid from %s)", ErrNotYetValid, describe(c), c.NotBefore.UTC().Format(time.RFC3339))
	}
	return nil
}

func describe(c *x509.Certificate) string {
	return fmt.Sprintf("%q issued by %q", c.Subject.CommonName, c.Issuer.CommonName)
}

// IsNode reports whether c is a node certificate: one made to serve TLS.
func IsNode(c *x509.Certificate) bool {
	return slices.Contains(c.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
}

// CheckNode checks that the identity may be a node: it serves TLS to the
// clients and the other nodes, and authenticates to the nodes it dials, so
// its certificate names both uses (a certificate naming none would pass
// crypto/tls but not IsNode).
func (id *Identity) CheckNode() error {
	eku := id.Leaf.ExtKeyUsage
	for _, u := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
		if !slices.Contains(eku, u) {
			return fmt.Errorf("%w (%s: a node certificate needs the extended key usages serverAuth and clientAuth)", ErrUsage, describe(id.Leaf))
		}
	}
	return nil
}

// ServerConfig is the TLS configuration of a server: it presents the
// identity's certificate and requires a client certificate signed by the
// CA.
func (id *Identity) ServerConfig() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{id.Cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    id.CA,
	}
}

// ClientConfig is the TLS configuration of a dialer: it presents the
// identity's certificate and accepts only a server signed by the CA whose
// certificate names the host dialled (gRPC fills in the name from the
// address).
func (id *Identity) ClientConfig() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{id.Cert},
		RootCAs:      id.CA,
	}
}

// ServerCredentials are the gRPC credentials of ServerConfig.
func (id *Identity) ServerCredentials() credentials.TransportCredentials {
	return credentials.NewTLS(id.ServerConfig())
}

// DialCredentials are the gRPC credentials of ClientConfig
// (NewCredentials).
func (id *Identity) DialCredentials() credentials.TransportCredentials {
	return NewCredentials(id.ClientConfig())
}
