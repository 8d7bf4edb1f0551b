package service

import (
	"crypto/tls"
	"errors"
	"log/slog"
	"net"

	"google.golang.org/grpc"

	"github.com/allot-dev/allot/internal/apiwire"
	"github.com/allot-dev/allot/mtls"
	tgrpc "github.com/allot-dev/allot/transport/grpc"
)

// The links between nodes (transport/grpc) travel on the node's one port,
// on the plain carrier where both nodes take it (their frames on a TCP
// connection of their own, TLS in a secure cluster: about half the CPU of
// a gRPC stream per message) and on gRPC streams otherwise. Serve splits
// the port; a node served without it (s.Serve(ln)) is linked to over
// streams, as is a node of an older version. The same split takes the
// API's native protocol off the port (native.go).

// plainLinks is the plain carrier of a node of cfg: plain TCP in a
// cluster without TLS, mTLS with Config.Identity in a secure one, where
// only a node certificate may link (as only a node may call the node
// services: secure.go); nil when the node has gRPC options but no
// identity.
func plainLinks(cfg Config, log *slog.Logger) *tgrpc.Plain {
	id := cfg.Identity
	if id == nil {
		if cfg.DialOptions != nil || cfg.ServerOptions != nil {
			return nil
		}
		return &tgrpc.Plain{}
	}
	return &tgrpc.Plain{
		Client: id.ClientConfig(),
		Server: id.ServerConfig(),
		Authorize: func(cs tls.ConnectionState) error {
			if len(cs.VerifiedChains) == 0 || !mtls.IsNode(cs.VerifiedChains[0][0]) {
				return errNotNode
			}
			return nil
		},
		Refused: func(remote net.Addr, err error) {
			log.Warn("refused a node link", "remote", remote.String(), "err", err)
		},
	}
}

var errNotNode = errors.New("only a node certificate may link to a node")

// Serve serves s (the node's server: NewServer) at ln, the node's one
// port: the other nodes' links on the plain carrier go to the node, every
// other connection to s. It returns what s.Serve returns. Serving s at ln
// alone works too: the other nodes then link to this one over gRPC
// streams.
func (n *Node) Serve(s *grpc.Server, ln net.Listener) error {
	tr := n.members.transport()
	if tr == nil {
		return errors.New("service: Serve before Register")
	}
	plain := plainLinks(n.cfg, n.log) != nil
	apiTLS, a, native := n.nativeAPI()
	if !plain && !native {
		return s.Serve(ln)
	}
	prefix := ""
	if native {
		prefix = apiwire.PrefaceFamily
	}
	rest, links, api := tgrpc.SplitWith(ln, prefix)
	if plain {
		if err := tr.AcceptPlain(links); err != nil {
			rest.Close()
			return err
		}
	} else {
		// Nothing begins with the links' preface but a node's link,
		// which then goes to gRPC streams: closed, it is redialled so.
		go refuseAll(links)
	}
	if native {
		go n.serveNative(api, apiTLS, a)
	}
	return s.Serve(rest)
}

// refuseAll closes every connection l takes, until l closes.
func refuseAll(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}
