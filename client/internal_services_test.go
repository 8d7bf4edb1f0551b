package client_test

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/allot-dev/allot/mtls"
	"github.com/allot-dev/allot/service"
)

// The nodes' own services, by method: the node links, the backups of
// sessions, the membership. Each is called with an empty message: a
// caller let through gets past the authorization to the service's own
// checks, whatever they answer.
var internalMethods = []string{
	"/allot.link.Link/Connect",
	"/allot.internal.backup.v1.Backup/Keep",
	"/allot.v1.Admin/ListMembers",
}

// callInternal calls method on cc as a stream (every method can be
// called so) and returns the status it ends with.
func callInternal(ctx context.Context, cc *grpc.ClientConn, method string) codes.Code {
	st, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method)
	if err != nil {
		return status.Code(err)
	}
	st.SendMsg(&emptypb.Empty{})
	st.CloseSend()
	return status.Code(st.RecvMsg(&emptypb.Empty{}))
}

// internalNode starts a node with the server and dial options given, and
// returns its address.
func internalNode(t *testing.T, srv []grpc.ServerOption, dial []grpc.DialOption, id *mtls.Identity) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	nd, err := service.New(service.Config{Cluster: service.Cluster{Nodes: []string{addr}}, Self: 0, ServerOptions: srv, DialOptions: dial, Identity: id})
	if err != nil {
		t.Fatal(err)
	}
	s, err := nd.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	go nd.Serve(s, ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		nd.Shutdown(ctx)
		s.Stop()
	})
	return addr
}

// TestInternalServicesOnlyForNodes: in each mode with identities (mTLS;
// mTLS with client tokens) every service but the client API refuses a
// client certificate of the cluster's own CA, with a valid token or
// without (PERMISSION_DENIED), and lets a node certificate through. In
// plaintext there are no identities: the services answer whoever reaches
// the port, as docs/service.md says (a network that only the nodes reach,
// or mTLS).
func TestInternalServicesOnlyForNodes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, mode := range []string{"mtls", "mtls+tokens"} {
		p := newPKI(t)
		ca, cert, key := p.files(p.ca, "node", mtls.Spec{Name: "node", Hosts: []string{"127.0.0.1"}, Node: true})
		id, err := mtls.Load(ca, cert, key)
		if err != nil {
			t.Fatal(err)
		}
		var tokens *service.Tokens
		if mode == "mtls+tokens" {
			if tokens, err = service.ReadTokens(p.write("tokens", []byte("tests "+testToken+"\n"))); err != nil {
				t.Fatal(err)
			}
		}
		srv, dial := service.Secure(id, tokens, nil)
		addr := internalNode(t, srv, dial, id)
		for _, who := range []struct {
			name string
			node bool
		}{{"client", false}, {"other-node", true}} {
			cid, err := mtls.Load(p.files(p.ca, who.name, mtls.Spec{Name: who.name, Hosts: []string{"127.0.0.1"}, Node: who.node}))
			if err != nil {
				t.Fatal(err)
			}
			cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(cid.DialCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
			cctx := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+testToken)
			for _, m := range internalMethods {
				got := callInternal(cctx, cc, m)
				// A node gets past the authorization: to the service's
				// own answer, not a refusal or a failed connection.
				if refused := got == codes.PermissionDenied; refused == who.node || got == codes.Unavailable || got == codes.Unauthenticated {
					t.Errorf("%s, %s certificate: %s: %v", mode, who.name, m, got)
				}
			}
		}
	}
	addr := internalNode(t, nil, nil, nil)
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	for _, m := range internalMethods {
		if got := callInternal(ctx, cc, m); got == codes.PermissionDenied || got == codes.Unimplemented || got == codes.Unavailable {
			t.Errorf("plaintext: %s: %v: the docs say it answers whoever reaches the port", m, got)
		}
	}
}
