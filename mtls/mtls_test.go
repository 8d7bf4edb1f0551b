package mtls_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-dev/allot/mtls"
)

var now = time.Now()

func newCA(t *testing.T, name string) *mtls.CA {
	t.Helper()
	ca, err := mtls.NewCA(name, now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func issue(t *testing.T, ca *mtls.CA, s mtls.Spec) (cert, key []byte) {
	t.Helper()
	if s.NotBefore.IsZero() {
		s.NotBefore, s.NotAfter = now.Add(-time.Hour), now.Add(time.Hour)
	}
	cert, key, err := ca.Issue(s)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func TestLoadErrors(t *testing.T) {
	ca, other := newCA(t, "ca"), newCA(t, "other")
	cert, key := issue(t, ca, mtls.Spec{Name: "n", Hosts: []string{"127.0.0.1"}, Node: true})
	_, key2 := issue(t, ca, mtls.Spec{Name: "n2", Node: true})
	expired, expiredKey := issue(t, ca, mtls.Spec{Name: "old", Node: true, NotBefore: now.Add(-2 * time.Hour), NotAfter: now.Add(-time.Minute)})
	future, futureKey := issue(t, ca, mtls.Spec{Name: "new", Node: true, NotBefore: now.Add(time.Minute), NotAfter: now.Add(time.Hour)})
	foreign, foreignKey := issue(t, other, mtls.Spec{Name: "foreign", Node: true})
	client, clientKey := issue(t, ca, mtls.Spec{Name: "c"})
	dir := t.TempDir()
	file := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	caF, certF, keyF := file("ca.pem", ca.PEM()), file("cert.pem", cert), file("key.pem", key)
	for _, c := range []struct {
		name            string
		ca, cert, key   string
		want            error
		wantNodeFailure bool
	}{
		{"good", caF, certF, keyF, nil, false},
		{"client certificate", caF, file("c.pem", client), file("ck.pem", clientKey), nil, true},
		{"missing CA", filepath.Join(dir, "none.pem"), certF, keyF, mtls.ErrFile, false},
		{"missing key", caF, certF, filepath.Join(dir, "none.pem"), mtls.ErrFile, false},
		{"CA file of no PEM", file("junk.pem", []byte("junk")), certF, keyF, mtls.ErrFile, false},
		{"key as certificate", caF, keyF, keyF, mtls.ErrFile, false},
		{"corrupt key", caF, certF, file("junk-key.pem", []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")), mtls.ErrFile, false},
		{"key of another certificate", caF, certF, file("key2.pem", key2), mtls.ErrKeyMismatch, false},
		{"expired", caF, file("old.pem", expired), file("oldk.pem", expiredKey), mtls.ErrExpired, false},
		{"not yet valid", caF, file("new.pem", future), file("newk.pem", futureKey), mtls.ErrNotYetValid, false},
		{"signed by another CA", caF, file("f.pem", foreign), file("fk.pem", foreignKey), mtls.ErrUnknownAuthority, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, err := mtls.Load(c.ca, c.cert, c.key)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("Load: %v, want %v", err, c.want)
			}
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error on several lines: %q", err)
				}
				return
			}
			if err := id.CheckNode(); (err != nil) != c.wantNodeFailure || (err != nil && !errors.Is(err, mtls.ErrUsage)) {
				t.Errorf("CheckNode: %v", err)
			}
		})
	}
}

// handshake serves one TLS connection with server and dials it with
// client; it returns the client's error (a TLS 1.3 client learns that its
// certificate was refused only when it reads).
func handshake(t *testing.T, server, client *tls.Config) error {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", server)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if c.(*tls.Conn).Handshake() == nil {
			c.Write([]byte("x"))
		}
	}()
	c, err := tls.Dial("tcp", ln.Addr().String(), client)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	_, err = io.ReadFull(c, make([]byte, 1))
	return err
}

// TestHandshake runs real handshakes on loopback: the server refuses a
// client without a certificate, with one of another CA or an expired one,
// and the dialer refuses a server of another CA, one whose certificate
// names another host, and one with a client certificate.
func TestHandshake(t *testing.T) {
	ca, other := newCA(t, "ca"), newCA(t, "other")
	id := func(signer *mtls.CA, s mtls.Spec) *mtls.Identity {
		cert, key := issue(t, signer, s)
		// Parse checks validity: an expired certificate is loaded as of
		// a time it was valid, as a wrong clock would.
		at := s.NotBefore
		if at.IsZero() {
			at = now
		}
		id, err := mtls.Parse(signer.PEM(), cert, key, at.Add(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		// Every side trusts ca: the refusals below are the other end's.
		id.CA = x509.NewCertPool()
		id.CA.AppendCertsFromPEM(ca.PEM())
		return id
	}
	node := id(ca, mtls.Spec{Name: "node", Hosts: []string{"127.0.0.1"}, Node: true})
	client := id(ca, mtls.Spec{Name: "client"})
	foreign := id(other, mtls.Spec{Name: "foreign"})
	foreignNode := id(other, mtls.Spec{Name: "foreign node", Hosts: []string{"127.0.0.1"}, Node: true})
	clientAt := id(ca, mtls.Spec{Name: "client at 127.0.0.1", Hosts: []string{"127.0.0.1"}})
	elsewhere := id(ca, mtls.Spec{Name: "node elsewhere", Hosts: []string{"10.0.0.1", "node.example"}, Node: true})
	expired := id(ca, mtls.Spec{Name: "expired", NotBefore: now.Add(-30 * time.Minute), NotAfter: now.Add(-time.Minute)})
	noCert := client.ClientConfig()
	noCert.Certificates = nil
	// crypto/tls sends only a certificate of a CA the server names;
	// this client sends its own regardless, as an impostor would.
	impostor := foreign.ClientConfig()
	impostor.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &foreign.Cert, nil }
	for _, c := range []struct {
		name           string
		server, client *tls.Config
		want           string // in the client's error; "" succeeds
	}{
		{"client", node.ServerConfig(), client.ClientConfig(), ""},
		{"node to node", node.ServerConfig(), node.ClientConfig(), ""},
		{"no client certificate", node.ServerConfig(), noCert, "certificate required"},
		{"client of another CA", node.ServerConfig(), impostor, "unknown certificate authority"},
		{"client of another CA, as crypto/tls sends it", node.ServerConfig(), foreign.ClientConfig(), "certificate required"},
		{"expired client", node.ServerConfig(), expired.ClientConfig(), "expired certificate"},
		{"server of another CA", foreignNode.ServerConfig(), client.ClientConfig(), "certificate signed by unknown authority"},
		{"client certificate as a server", clientAt.ServerConfig(), node.ClientConfig(), "certificate specifies an incompatible key usage"},
		{"server certificate for another host", elsewhere.ServerConfig(), client.ClientConfig(), "certificate is valid for 10.0.0.1, not 127.0.0.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.client.ServerName = "127.0.0.1"
			err := handshake(t, c.server, c.client)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}
