package main

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc"

	"github.com/allot-dev/allot/mtls"
	"github.com/allot-dev/allot/service"
)

// tlsOpts are the security flags of allot serve.
type tlsOpts struct{ ca, cert, key, tokens string }

func (o *tlsOpts) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.ca, "tls-ca", "", "mTLS: the CA certificate (PEM) that signs the nodes' and the clients' certificates; with --tls-cert and --tls-key")
	fs.StringVar(&o.cert, "tls-cert", "", "mTLS: this node's certificate (PEM), serverAuth and clientAuth, naming the host of its address")
	fs.StringVar(&o.key, "tls-key", "", "mTLS: this node's private key (PEM)")
	fs.StringVar(&o.tokens, "auth-tokens", "", "ask clients for a token of FILE (lines TOKEN or NAME TOKEN; # comments); needs mTLS")
}

// options loads the files: the node's server and dial options and its
// identity (none without TLS).
func (o *tlsOpts) options(log *slog.Logger) ([]grpc.ServerOption, []grpc.DialOption, *mtls.Identity, error) {
	n := 0
	for _, f := range []string{o.ca, o.cert, o.key} {
		if f != "" {
			n++
		}
	}
	switch {
	case n == 0 && o.tokens != "":
		return nil, nil, nil, badf("--auth-tokens needs mTLS (--tls-ca, --tls-cert, --tls-key): a token sent in plaintext can be read on the way")
	case n == 0:
		return nil, nil, nil, nil
	case n < 3:
		return nil, nil, nil, badf("give all of --tls-ca, --tls-cert and --tls-key, or none")
	}
	id, err := mtls.Load(o.ca, o.cert, o.key)
	if err != nil {
		return nil, nil, nil, badf("%v", err)
	}
	if err := id.CheckNode(); err != nil {
		return nil, nil, nil, badf("--tls-cert: %v", err)
	}
	var tokens *service.Tokens
	if o.tokens != "" {
		if tokens, err = service.ReadTokens(o.tokens); err != nil {
			return nil, nil, nil, badf("--auth-tokens: %v", err)
		}
	}
	srv, dial := service.Secure(id, tokens, log)
	return srv, dial, id, nil
}

// certsCmd writes a CA and certificates for trying a cluster with mTLS.
func certsCmd(args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("allot certs", flag.ContinueOnError)
	out := fs.String("out", "", "the directory to write ca.pem, node.pem, node-key.pem, client.pem and client-key.pem into")
	hosts := fs.String("hosts", "127.0.0.1,localhost", "the IP addresses and DNS names the nodes serve at, comma-separated (the node certificate names them all)")
	valid := fs.Duration("valid", 365*24*time.Hour, "how long the certificates are valid")
	if err := parseFlags(fs, args, stdout, "usage: allot certs --out DIR [--hosts H,H] [--valid D]\n\nmakes a new CA and, signed by it, a node certificate for the hosts (every node of the cluster uses it) and a client certificate;\nthe CA's key is not kept: to add a host, make a new set. For trying and tests: a lasting cluster uses its own PKI"); err != nil {
		return err
	}
	if *out == "" {
		return badf("certs needs --out DIR")
	}
	hs := strings.Split(*hosts, ",")
	for _, h := range hs {
		if h == "" || strings.ContainsAny(h, " /") || strings.Contains(h, ":") && net.ParseIP(h) == nil {
			return badf("--hosts %q: want host names or IP addresses (no ports), comma-separated", *hosts)
		}
	}
	if *valid <= 0 {
		return badf("--valid %v: want a positive duration", *valid)
	}
	f, err := mtls.WriteSet(*out, hs, *valid)
	if err != nil {
		return badf("%v", err)
	}
	fmt.Fprintf(stdout, "CA:     %s\nnode:   --tls-ca %s --tls-cert %s --tls-key %s\nclient: client.WithTLSFiles(%q, %q, %q)\n", f.CA, f.CA, f.NodeCert, f.NodeKey, f.CA, f.ClientCert, f.ClientKey)
	return nil
}

// clientTokenFile is where secureCluster writes the client token alone,
// for the clients' --token-file.
const clientTokenFile = "client-token"

// secureCluster writes the certificates and a client token of a throwaway
// secure cluster into a new temporary directory (the token also alone in
// DIR/client-token): the allot serve flags that use them, and the
// directory and token to tell the user.
func secureCluster() (args []string, dir, token string, files mtls.Files, err error) {
	if dir, err = os.MkdirTemp("", "allot-tls-"); err != nil {
		return
	}
	if files, err = mtls.WriteSet(dir, []string{"127.0.0.1", "localhost"}, 24*time.Hour); err != nil {
		os.RemoveAll(dir)
		return
	}
	b := make([]byte, 16)
	rand.Read(b)
	token = hex.EncodeToString(b)
	tokens := filepath.Join(dir, "tokens")
	if err = os.WriteFile(tokens, []byte("# NAME TOKEN\nclient "+token+"\n"), 0o600); err != nil {
		os.RemoveAll(dir)
		return
	}
	if err = os.WriteFile(filepath.Join(dir, clientTokenFile), []byte(token+"\n"), 0o600); err != nil {
		os.RemoveAll(dir)
		return
	}
	args = []string{"--tls-ca", files.CA, "--tls-cert", files.NodeCert, "--tls-key", files.NodeKey, "--auth-tokens", tokens}
	return
}
