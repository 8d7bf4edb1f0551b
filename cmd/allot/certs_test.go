package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-dev/allot/mtls"
)

// TestServeTLSBadInput: every wrong security file is one allot: line
// naming what is wrong, and exit 2, before the node listens.
func TestServeTLSBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	now := time.Now()
	ca, err := mtls.NewCA("ca", now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	other, err := mtls.NewCA("other", now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	issue := func(signer *mtls.CA, name string, s mtls.Spec) (string, string) {
		if s.NotBefore.IsZero() {
			s.NotBefore, s.NotAfter = now.Add(-time.Hour), now.Add(time.Hour)
		}
		cert, key, err := signer.Issue(s)
		if err != nil {
			t.Fatal(err)
		}
		return write(name+".pem", cert), write(name+"-key.pem", key)
	}
	caF := write("ca.pem", ca.PEM())
	cert, key := issue(ca, "node", mtls.Spec{Name: "node", Hosts: []string{"127.0.0.1"}, Node: true})
	_, key2 := issue(ca, "node2", mtls.Spec{Name: "node2", Hosts: []string{"127.0.0.1"}, Node: true})
	expired, expiredKey := issue(ca, "old", mtls.Spec{Name: "old", Node: true, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(-time.Minute)})
	foreign, foreignKey := issue(other, "foreign", mtls.Spec{Name: "foreign", Node: true})
	client, clientKey := issue(ca, "client", mtls.Spec{Name: "client"})
	short := write("short", []byte("abc\n"))
	serve := []string{"serve", "--nodes", "127.0.0.1:1"}
	tlsArgs := func(ca, cert, key string) []string {
		return append(append([]string{}, serve...), "--tls-ca", ca, "--tls-cert", cert, "--tls-key", key)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{append(append([]string{}, serve...), "--tls-ca", caF), "all of --tls-ca, --tls-cert and --tls-key"},
		{append(append([]string{}, serve...), "--tls-cert", cert, "--tls-key", key), "all of --tls-ca, --tls-cert and --tls-key"},
		{append(append([]string{}, serve...), "--auth-tokens", short), "--auth-tokens needs mTLS"},
		{tlsArgs(caF, cert, key2), "key does not match the certificate"},
		{tlsArgs(caF, expired, expiredKey), "certificate expired"},
		{tlsArgs(caF, foreign, foreignKey), "not signed by the CA"},
		{tlsArgs(caF, client, clientKey), "serverAuth and clientAuth"},
		{tlsArgs(filepath.Join(dir, "missing.pem"), cert, key), "cannot read the CA file"},
		{append(tlsArgs(caF, cert, key), "--auth-tokens", short), "at least 16 characters"},
		{append(tlsArgs(caF, cert, key), "--auth-tokens", filepath.Join(dir, "missing")), "bad token file"},
		{[]string{"certs"}, "--out"},
		{[]string{"certs", "--out", dir, "--valid", "-1h"}, "--valid"},
		{[]string{"certs", "--out", dir, "--hosts", "127.0.0.1:7001"}, "no ports"},
		{[]string{"certs", "--out", dir, "--hosts", ""}, "--hosts"},
	} {
		out, errs, code := allot(t, c.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "allot: ") || !strings.Contains(errs, c.says) {
			t.Errorf("allot %q: exit %d, stdout %q, stderr %q; want one allot: line saying %q and exit 2", c.args, code, out, errs, c.says)
		}
	}
}

// TestCerts: allot certs writes a set whose node certificate may serve a
// node and whose client certificate may not.
func TestCerts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	out, errs, code := allot(t, "certs", "--out", dir, "--hosts", "127.0.0.1,::1,localhost", "--valid", "1h")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f := func(name string) string { return filepath.Join(dir, name) }
	if !strings.Contains(out, f("node.pem")) {
		t.Errorf("output does not name the files: %s", out)
	}
	node, err := mtls.Load(f("ca.pem"), f("node.pem"), f("node-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	if err := node.CheckNode(); err != nil {
		t.Error(err)
	}
	if len(node.Leaf.IPAddresses) != 2 || len(node.Leaf.DNSNames) != 1 {
		t.Errorf("node certificate for %v and %v, want 2 IPs and localhost", node.Leaf.IPAddresses, node.Leaf.DNSNames)
	}
	if d := time.Until(node.Leaf.NotAfter); d > time.Hour || d < 50*time.Minute {
		t.Errorf("valid for %v more, want about an hour", d)
	}
	client, err := mtls.Load(f("ca.pem"), f("client.pem"), f("client-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	if err := client.CheckNode(); !errors.Is(err, mtls.ErrUsage) {
		t.Errorf("the client certificate could be a node's: %v", err)
	}
	if st, err := os.Stat(f("node-key.pem")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("node key: %v, mode %v, want 0600", err, st.Mode().Perm())
	}
	if _, err := os.Stat(f("ca-key.pem")); err == nil {
		t.Error("the CA's key was written")
	}
}

func TestServeHelpListsTLSFlags(t *testing.T) {
	out, _, code := allot(t, "serve", "--help")
	for _, f := range []string{"-tls-ca", "-tls-cert", "-tls-key", "-auth-tokens"} {
		if code != 0 || !strings.Contains(out, f) {
			t.Errorf("allot serve --help lacks %s", f)
		}
	}
	if out, _, code := allot(t, "certs", "--help"); code != 0 || !strings.Contains(out, "usage: allot certs") {
		t.Errorf("allot certs --help: exit %d, %q", code, out)
	}
}
