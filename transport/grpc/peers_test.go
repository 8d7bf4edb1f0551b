package grpc_test

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/proc"
	grpcnet "github.com/allot-dev/allot/transport/grpc"
	"github.com/allot-dev/allot/transport/transporttest"
)

// TestPeersAtRunTime: n0 runs alone; n1 and n2 start knowing it, and it
// learns of them with AddPeer (n0 dials n1, n2 dials n0: both sides of
// the rule); messages flow both ways. RemovePeer ends the link: a send
// to the removed node fails, and its stream goes down.
func TestPeersAtRunTime(t *testing.T) {
	cd, err := codec.New(algo.Algorithm{Name: "transporttest", Messages: []proc.Message{transporttest.Msg{}}})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"n0", "n1", "m2"} // "m2" < "n0": it dials n0
	var lis []net.Listener
	for range names {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lis = append(lis, ln)
	}
	place := func(_ string, p proc.ID) (string, bool) {
		if p < 0 || int(p) >= len(names) {
			return "", false
		}
		return names[p], true
	}
	got := make(chan int32, 10)
	var trs []*grpcnet.Transport
	for i, name := range names {
		peers := map[string]string{}
		if i > 0 {
			peers["n0"] = lis[0].Addr().String()
		}
		tr, err := grpcnet.New(grpcnet.Config{Node: name, Listener: lis[i], Peers: peers, Place: place, Codec: cd, Redial: 2 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		tr.Register(proc.ID(i), func(_ proc.ID, m proc.Message) { got <- m.(transporttest.Msg).Seq })
		trs = append(trs, tr)
	}
	if err := trs[0].Send(0, 1, transporttest.Msg{Seq: 1}); err == nil {
		t.Fatal("a send to a node not yet a peer succeeded")
	}
	for i := 1; i < len(names); i++ {
		if err := trs[0].AddPeer(names[i], lis[i].Addr().String()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := 1; i < len(names); i++ {
		if err := trs[0].WaitUp(ctx, names[i]); err != nil {
			t.Fatalf("link n0-%s: %v", names[i], err)
		}
		trs[0].Send(0, proc.ID(i), transporttest.Msg{Seq: int32(10 + i)})
		trs[i].Send(proc.ID(i), 0, transporttest.Msg{Seq: int32(20 + i)})
	}
	seen := map[int32]bool{}
	for range 4 {
		select {
		case s := <-got:
			seen[s] = true
		case <-ctx.Done():
			t.Fatalf("messages arrived: %v", seen)
		}
	}
	if fmt.Sprint(seen) != "map[11:true 12:true 21:true 22:true]" {
		t.Fatalf("messages arrived: %v", seen)
	}
	for i := 1; i < len(names); i++ {
		trs[0].RemovePeer(names[i])
		if err := trs[0].Send(0, proc.ID(i), transporttest.Msg{Seq: 1}); err == nil {
			t.Fatalf("a send to removed %s succeeded", names[i])
		}
		for {
			if st, _ := trs[i].Peer("n0"); !st.Up {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the link %s-n0 stays up after the removal", names[i])
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
}
