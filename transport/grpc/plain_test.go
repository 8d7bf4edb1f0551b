package grpc_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/mtls"
	"github.com/allot-dev/allot/proc"
	grpcnet "github.com/allot-dev/allot/transport/grpc"
	"github.com/allot-dev/allot/transport/transporttest"
)

// pair is two nodes, n0 (it dials) and n1, each configured by its own
// function (nil: gRPC streams only, on a gRPC server of its own); a node
// with Plain shares its one port between the carriers (Split).
func pair(t *testing.T, mods [2]func(*grpcnet.Config)) [2]*grpcnet.Transport {
	t.Helper()
	cd, err := codec.New(algo.Algorithm{Name: "transporttest", Messages: []proc.Message{transporttest.Msg{}}})
	if err != nil {
		t.Fatal(err)
	}
	var lis [2]net.Listener
	peers := map[string]string{}
	for i := range lis {
		if lis[i], err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		peers[fmt.Sprintf("n%d", i)] = lis[i].Addr().String()
	}
	place := func(_ string, p proc.ID) (string, bool) { return fmt.Sprintf("n%d", p%2), p >= 0 }
	var nodes [2]*grpcnet.Transport
	for i := range lis {
		cfg := grpcnet.Config{Node: fmt.Sprintf("n%d", i), Listener: lis[i], Peers: peers, Place: place, Codec: cd}
		if mods[i] != nil {
			mods[i](&cfg)
		}
		tr := start(t, cfg)
		t.Cleanup(func() { tr.Close() })
		nodes[i] = tr
	}
	return nodes
}

// linked sends a message each way between the pair and returns what the
// link is on, as each end sees it.
func linked(t *testing.T, nodes [2]*grpcnet.Transport) [2]grpcnet.Carrier {
	t.Helper()
	got := [2]chan int32{make(chan int32, 1), make(chan int32, 1)}
	for i, n := range nodes {
		if err := n.Register(proc.ID(i), func(_ proc.ID, m proc.Message) { got[i] <- m.(transporttest.Msg).Seq }); err != nil {
			t.Fatal(err)
		}
	}
	for i, n := range nodes {
		if err := n.Send(proc.ID(i), proc.ID(1-i), transporttest.Msg{Seq: int32(10 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range nodes {
		select {
		case s := <-got[1-i]:
			if s != int32(10+i) {
				t.Fatalf("node %d got message %d, want %d", 1-i, s, 10+i)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("node %d's message did not arrive", i)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := nodes[0].WaitUp(ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	var on [2]grpcnet.Carrier
	for i, n := range nodes {
		st, _ := n.Peer(fmt.Sprintf("n%d", 1-i))
		on[i] = st.Carrier
	}
	return on
}

func plain(cfg *grpcnet.Config) { cfg.Plain = &grpcnet.Plain{} }

// TestCarriers: two nodes that both take the plain carrier link on it;
// with either one not taking it (an older node, or a node whose
// listener is not split) they link over a gRPC stream, on the same port.
func TestCarriers(t *testing.T) {
	for _, tc := range []struct {
		name string
		mods [2]func(*grpcnet.Config)
		want grpcnet.Carrier
	}{
		{"both plain", [2]func(*grpcnet.Config){plain, plain}, grpcnet.PlainCarrier},
		{"neither", [2]func(*grpcnet.Config){nil, nil}, grpcnet.StreamCarrier},
		{"the dialled node streams only", [2]func(*grpcnet.Config){plain, nil}, grpcnet.StreamCarrier},
		{"the dialler streams only", [2]func(*grpcnet.Config){nil, plain}, grpcnet.StreamCarrier},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := linked(t, pair(t, tc.mods)); got != [2]grpcnet.Carrier{tc.want, tc.want} {
				t.Errorf("carriers %v, want %v at both ends", got, tc.want)
			}
		})
	}
}

// TestPlainTLS: with TLS configurations the plain carrier speaks mTLS,
// and a dialler the accepting node does not authorise (a certificate of
// another CA, or one Authorize refuses) gets no plain link: it is linked
// over a stream (here one without TLS, which only the test's nodes have).
func TestPlainTLS(t *testing.T) {
	now := time.Now()
	ident := func(ca *mtls.CA, node bool) *mtls.Identity {
		t.Helper()
		cert, key, err := ca.Issue(mtls.Spec{Name: "n", Hosts: []string{"127.0.0.1"}, Node: node, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		id, err := mtls.Parse(ca.PEM(), cert, key, now)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	ca, err := mtls.NewCA("cluster", now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	other, err := mtls.NewCA("other", now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	nodeOnly := func(cs tls.ConnectionState) error {
		if len(cs.VerifiedChains) == 0 || !mtls.IsNode(cs.VerifiedChains[0][0]) {
			return errors.New("not a node")
		}
		return nil
	}
	secure := func(id *mtls.Identity) func(*grpcnet.Config) {
		return func(cfg *grpcnet.Config) {
			cfg.Plain = &grpcnet.Plain{Client: id.ClientConfig(), Server: id.ServerConfig(), Authorize: nodeOnly}
		}
	}
	accepting := secure(ident(ca, true))
	for _, tc := range []struct {
		name    string
		dialler *mtls.Identity
		want    grpcnet.Carrier
	}{
		{"a node of the cluster", ident(ca, true), grpcnet.PlainCarrier},
		{"a client certificate of the cluster", ident(ca, false), grpcnet.StreamCarrier},
		{"a node of another CA", ident(other, true), grpcnet.StreamCarrier},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := linked(t, pair(t, [2]func(*grpcnet.Config){secure(tc.dialler), accepting}))
			if got[0] != tc.want {
				t.Errorf("the dialler's link is on %q, want %q", got[0], tc.want)
			}
		})
	}
}

// TestSilentPlainLinkRedialled is TestSilentStreamRedialled on the plain
// carrier: its keep-alive finds the silent connection dead, so a message
// sent into it still arrives, on the next one. Without the read deadline
// the dialler keeps writing into the void for good.
func TestSilentPlainLinkRedialled(t *testing.T) {
	if testing.Short() {
		t.Skip("takes a keep-alive period (about 12s)")
	}
	silentLink(t, plain)
}

// TestIdlePlainLinkStaysUp: a plain link with nothing to carry stays up
// past the reads' deadline, kept alive by the pings of both sides (with
// none, it would break and be redialled every 12s).
func TestIdlePlainLinkStaysUp(t *testing.T) {
	if testing.Short() {
		t.Skip("waits past a keep-alive period (about 13s)")
	}
	nodes := pair(t, [2]func(*grpcnet.Config){plain, plain})
	linked(t, nodes)
	before, _ := nodes[0].Peer("n1")
	time.Sleep(grpcnet.KeepaliveTime + grpcnet.KeepaliveTimeout + time.Second)
	for i, n := range nodes {
		st, _ := n.Peer(fmt.Sprintf("n%d", 1-i))
		if !st.Up || st.Carrier != grpcnet.PlainCarrier || (i == 0 && !st.Since.Equal(before.Since)) {
			t.Errorf("node %d's link: up %v on %q since %v, want up on the plain carrier since %v", i, st.Up, st.Carrier, st.Since, before.Since)
		}
	}
}
