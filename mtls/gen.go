package mtls

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// CA is a certificate authority made in memory, for trying a cluster and
// for tests; a lasting cluster takes its certificates from its own PKI.
// Its key is never written anywhere: to add a node, make a new set.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

// NewCA makes a self-signed CA named name, valid from notBefore to
// notAfter.
func NewCA(name string, notBefore, notAfter time.Time) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// PEM is the CA's certificate, the file every side trusts.
func (ca *CA) PEM() []byte { return ca.pem }

// Spec describes a certificate to issue.
type Spec struct {
	Name string // the subject's common name
	// Hosts are the DNS names and IP addresses a node serves at (its
	// subject alternative names); clients need none.
	Hosts []string
	// Node makes a node certificate (serverAuth and clientAuth);
	// otherwise a client certificate (clientAuth only).
	Node                bool
	NotBefore, NotAfter time.Time
}

// Issue makes a key and a certificate for it signed by ca, both PEM.
func (ca *CA) Issue(s Spec) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: s.Name},
		NotBefore:    s.NotBefore,
		NotAfter:     s.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if s.Node {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	}
	for _, h := range s.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), nil
}

func serialNumber() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

// Files are the paths of a set written by WriteSet.
type Files struct {
	CA                    string // ca.pem: every side's --tls-ca
	NodeCert, NodeKey     string // node.pem, node-key.pem: every node's
	ClientCert, ClientKey string // client.pem, client-key.pem: the clients'
}

// WriteSet makes a new CA and writes into dir its certificate, one node
// certificate for hosts (shared by every node of the cluster) and one
// client certificate, each valid for valid from now. The keys are written
// readable by the owner only; the CA's key is not written.
func WriteSet(dir string, hosts []string, valid time.Duration) (Files, error) {
	if len(hosts) == 0 {
		return Files{}, errors.New("mtls: a node certificate needs at least one host")
	}
	if valid <= 0 {
		return Files{}, fmt.Errorf("mtls: validity %v: want a positive duration", valid)
	}
	now := time.Now()
	// A minute's slack for clocks a little behind this one.
	from, until := now.Add(-time.Minute), now.Add(valid)
	ca, err := NewCA("allot cluster CA", from, until)
	if err != nil {
		return Files{}, err
	}
	nodeCert, nodeKey, err := ca.Issue(Spec{Name: "allot node", Hosts: hosts, Node: true, NotBefore: from, NotAfter: until})
	if err != nil {
		return Files{}, err
	}
	clientCert, clientKey, err := ca.Issue(Spec{Name: "allot client", NotBefore: from, NotAfter: until})
	if err != nil {
		return Files{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Files{}, err
	}
	f := Files{
		CA:       filepath.Join(dir, "ca.pem"),
		NodeCert: filepath.Join(dir, "node.pem"), NodeKey: filepath.Join(dir, "node-key.pem"),
		ClientCert: filepath.Join(dir, "client.pem"), ClientKey: filepath.Join(dir, "client-key.pem"),
	}
	for _, w := range []struct {
		path string
		b    []byte
		mode os.FileMode
	}{{f.CA, ca.PEM(), 0o644}, {f.NodeCert, nodeCert, 0o644}, {f.NodeKey, nodeKey, 0o600}, {f.ClientCert, clientCert, 0o644}, {f.ClientKey, clientKey, 0o600}} {
		if err := os.WriteFile(w.path, w.b, w.mode); err != nil {
			return Files{}, err
		}
	}
	return f, nil
}
