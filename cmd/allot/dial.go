package main

import (
	"context"
	"flag"
	"net"
	"os"
	"strings"

	"github.com/allot-dev/allot/client"
)

// clientOpts are the flags of a command that is a client of a cluster:
// the nodes' addresses, and the client certificate and token a secure
// cluster asks for (allot certs and allot cluster --tls write them).
type clientOpts struct {
	addr, ca, cert, key, tokenFile string
	protocol                       client.Protocol // "": the client's default
}

func (o *clientOpts) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.addr, "addr", "", "the cluster's node addresses host:port, comma-separated (give them all: a session moves to another node when its own is lost)")
	o.secureFlags(fs)
}

// secureFlags are the flags of a secure cluster's client alone, for a
// command with an --addr of its own.
func (o *clientOpts) secureFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.ca, "tls-ca", "", "mTLS: the CA certificate (PEM) that signs the nodes' certificates; with --tls-cert and --tls-key")
	fs.StringVar(&o.cert, "tls-cert", "", "mTLS: the client certificate (PEM), clientAuth")
	fs.StringVar(&o.key, "tls-key", "", "mTLS: the client certificate's private key (PEM)")
	fs.StringVar(&o.tokenFile, "token-file", "", "send the client token on the first line of FILE, for nodes that ask for one (allot serve --auth-tokens); needs mTLS")
}

// dial checks the flags and dials the cluster; what is wrong with them is
// bad input. what names the command in messages.
func (o *clientOpts) dial(ctx context.Context, what string) (*client.Client, error) {
	if o.addr == "" {
		return nil, badf("%s: --addr: the cluster's node addresses are needed", what)
	}
	addrs := strings.Split(o.addr, ",")
	for _, a := range addrs {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return nil, badf("%s: --addr: %v", what, err)
		}
	}
	var opts []client.Option
	n := 0
	for _, f := range []string{o.ca, o.cert, o.key} {
		if f != "" {
			n++
		}
	}
	switch {
	case n == 3:
		opts = append(opts, client.WithTLSFiles(o.ca, o.cert, o.key))
	case n > 0:
		return nil, badf("%s: give all of --tls-ca, --tls-cert and --tls-key, or none", what)
	case o.tokenFile != "":
		return nil, badf("%s: --token-file needs mTLS (--tls-ca, --tls-cert, --tls-key): a token sent in plaintext can be read on the way", what)
	}
	if o.tokenFile != "" {
		b, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return nil, badf("%s: --token-file: %v", what, err)
		}
		tok, _, _ := strings.Cut(string(b), "\n")
		if tok = strings.TrimSpace(tok); tok == "" {
			return nil, badf("%s: --token-file %s: no token on its first line", what, o.tokenFile)
		}
		opts = append(opts, client.WithToken(tok))
	}
	if o.protocol != "" {
		opts = append(opts, client.WithProtocol(o.protocol))
	}
	c, err := client.DialWith(ctx, addrs, opts...)
	if err != nil {
		return nil, badf("%s: %s", what, bare(err))
	}
	return c, nil
}
