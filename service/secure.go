package service

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/mtls"
)

// Who may call what, on a node with mTLS (Secure):
//
//	caller                    TLS handshake                 Allot API         node links
//	no certificate            refused (crypto/tls)          -                 -
//	certificate of another CA refused (crypto/tls)          -                 -
//	client certificate        accepted                      with a token (*)  PermissionDenied
//	node certificate          accepted                      with a token (*)  yes
//
// (*) when the node has tokens; a missing or unknown one is Unauthenticated.
// Nodes are authorised by their certificate alone: a client certificate
// signed by the cluster's CA does not make its holder a node. Every
// service but Allot is the nodes' own (the links of transport/grpc, and
// any other registered on the same server), so a new one is closed to
// clients by default.

// MinTokenLen is the shortest client token a token file may hold.
const MinTokenLen = 16

// ErrTokens marks a bad token file.
var ErrTokens = errors.New("bad token file")

// Tokens are the client tokens a node accepts, kept as their SHA-256 so
// that a lookup does not compare secrets byte by byte.
type Tokens struct {
	names map[[sha256.Size]byte]string
}

// Len is the number of tokens.
func (t *Tokens) Len() int { return len(t.names) }

// ReadTokens reads a token file: one token per line, optionally after a
// name and a space ("NAME TOKEN"); blank lines and lines starting with #
// are skipped. A token has at least MinTokenLen characters and no spaces.
func ReadTokens(path string) (*Tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTokens, err)
	}
	defer f.Close()
	t := &Tokens{names: map[[sha256.Size]byte]string{}}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		name, tok := fmt.Sprintf("line %d", line), fs[0]
		switch len(fs) {
		case 1:
		case 2:
			name, tok = fs[0], fs[1]
		default:
			return nil, fmt.Errorf("%w: %s:%d: want TOKEN or NAME TOKEN", ErrTokens, path, line)
		}
		if len(tok) < MinTokenLen {
			return nil, fmt.Errorf("%w: %s:%d: a token needs at least %d characters", ErrTokens, path, line, MinTokenLen)
		}
		h := sha256.Sum256([]byte(tok))
		if other, ok := t.names[h]; ok {
			return nil, fmt.Errorf("%w: %s:%d: the token of %s again", ErrTokens, path, line, other)
		}
		t.names[h] = name
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrTokens, path, err)
	}
	if len(t.names) == 0 {
		return nil, fmt.Errorf("%w: %s: no token in it", ErrTokens, path)
	}
	return t, nil
}

// check finds ctx's "authorization: Bearer TOKEN" metadata among the
// tokens, or returns an Unauthenticated status.
func (t *Tokens) check(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	v := md.Get("authorization")
	if len(v) == 0 {
		return status.Error(codes.Unauthenticated, "no client token")
	}
	tok, ok := strings.CutPrefix(v[0], "Bearer ")
	if !ok {
		return status.Error(codes.Unauthenticated, "the authorization is not a Bearer token")
	}
	return t.checkToken(tok)
}

// checkToken finds tok among the tokens, or returns an Unauthenticated
// status ("" is no token).
func (t *Tokens) checkToken(tok string) error {
	if tok == "" {
		return status.Error(codes.Unauthenticated, "no client token")
	}
	if _, ok := t.names[sha256.Sum256([]byte(tok))]; !ok {
		return status.Error(codes.Unauthenticated, "unknown client token")
	}
	return nil
}

// Secure returns the options of a node that speaks mTLS with identity id
// (its certificate must be a node certificate: id.CheckNode) and, unless
// tokens is nil, asks clients for one of tokens: the server options for
// Config.ServerOptions and the dial options for Config.DialOptions. Every
// refused handshake and call is logged on log (nil: not logged) with its
// reason, which the refused side may not learn.
func Secure(id *mtls.Identity, tokens *Tokens, log *slog.Logger) ([]grpc.ServerOption, []grpc.DialOption) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := authorizer{tokens: tokens, log: log}
	srv := []grpc.ServerOption{
		grpc.Creds(loggedCreds{id.ServerCredentials(), log}),
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := a.authorize(ctx, info.FullMethod); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := a.authorize(ss.Context(), info.FullMethod); err != nil {
				return err
			}
			return h(srv, ss)
		}),
	}
	// The node's native protocol checks the same (native.go).
	srv = append(srv, nativeOption{id: id, a: a})
	return srv, []grpc.DialOption{grpc.WithTransportCredentials(id.DialCredentials())}
}

// loggedCreds logs the handshakes a server refuses: gRPC itself logs them
// only at a level it hides by default.
type loggedCreds struct {
	credentials.TransportCredentials
	log *slog.Logger
}

func (c loggedCreds) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := c.TransportCredentials.ServerHandshake(raw)
	if err != nil {
		c.log.Warn("refused a TLS handshake", "remote", raw.RemoteAddr().String(), "err", err)
	}
	return conn, info, err
}

func (c loggedCreds) Clone() credentials.TransportCredentials {
	return loggedCreds{c.TransportCredentials.Clone(), c.log}
}

type authorizer struct {
	tokens *Tokens
	log    *slog.Logger
}

var clientPrefix = "/" + pb.Allot_ServiceDesc.ServiceName + "/"

// authorize lets clients with a token (when there are tokens) call the
// Allot API, and only nodes call anything else: the node links, and any
// other service on the same server.
func (a authorizer) authorize(ctx context.Context, method string) error {
	err := a.check(ctx, method)
	if err != nil {
		remote := "?"
		if p, ok := peer.FromContext(ctx); ok {
			remote = p.Addr.String()
		}
		a.log.Warn("refused a call", "method", method, "remote", remote, "err", status.Convert(err).Message())
	}
	return err
}

func (a authorizer) check(ctx context.Context, method string) error {
	if !strings.HasPrefix(method, clientPrefix) {
		p, _ := peer.FromContext(ctx)
		var info credentials.TLSInfo
		if p != nil {
			info, _ = p.AuthInfo.(credentials.TLSInfo)
		}
		if len(info.State.VerifiedChains) == 0 || !mtls.IsNode(info.State.VerifiedChains[0][0]) {
			return status.Error(codes.PermissionDenied, "only a node certificate may call a node service")
		}
		return nil
	}
	if a.tokens == nil {
		return nil
	}
	return a.tokens.check(ctx)
}

// NewServer returns a gRPC server with Config.ServerOptions, its calls
// counted in the node's metrics, and the node registered on it
// (Register).
func (n *Node) NewServer() (*grpc.Server, error) {
	s := grpc.NewServer(append(n.serverOptions(), n.cfg.ServerOptions...)...)
	if err := n.Register(s); err != nil {
		return nil, err
	}
	n.metrics.grpc.InitializeMetrics(s)
	return s, nil
}
