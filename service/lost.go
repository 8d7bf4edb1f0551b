package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/store"
)

// A node's data directory holds its Raft log: what it voted and what it
// acknowledged. A node that lost it (a wiped, truncated or older copy of
// the directory) and started again would vote with a log that forgot
// committed entries, and could elect a leader without them; Raft itself
// panics once a leader's heartbeat shows it. Two checks keep such a node
// out:
//
//   - before it starts a new log in an empty data directory, the node asks
//     the other nodes it can reach whether the log has applied a start of
//     it (Admin.ListMembers, Member.rejoins): if so its data is lost, and
//     it refuses to start (ErrDataLost);
//   - while it runs, a heartbeat that commits past the end of its log
//     (control.ErrLogLost) stops it (Lost).
//
// The first misses a node whose peers are all down or silent when it
// starts (it starts a new log, as a new cluster's first node does), and
// a node that ran so briefly that no start of it was applied; the second
// catches it then, at the first heartbeat of a leader that knows what it
// acknowledged. A node whose data is lost comes back under a new id:
// allot member remove, then allot member add and allot serve --join on an
// empty data directory.

// ErrDataLost: this node's data directory lost the log it had.
var ErrDataLost = errors.New("the node's data is lost")

// lostSignal is closed once the node stopped because its log lost what
// it had acknowledged.
type lostSignal struct {
	once sync.Once
	done chan struct{}
	err  error
}

// lose stops the node for err (a control.ErrLogLost, on which its
// control host fell silent): Lost is closed.
func (n *Node) lose(err error) {
	n.lost.once.Do(func() {
		n.lost.err = fmt.Errorf("%w: node %d stops: %v (its data directory was wiped, truncated or restored from an older copy after it ran); %s",
			ErrDataLost, n.self, err, comeBack(n.self))
		n.log.Error("this node's log lost entries it had acknowledged: it stops", "err", err)
		close(n.lost.done)
	})
}

// Lost is closed once the node stopped because its log lost entries it
// had acknowledged (LostErr says which); its process should end.
func (n *Node) Lost() <-chan struct{} { return n.lost.done }

// LostErr is why Lost was closed (ErrDataLost), nil before.
func (n *Node) LostErr() error {
	select {
	case <-n.lost.done:
		return n.lost.err
	default:
		return nil
	}
}

// comeBack is what to do with node id whose data is lost.
func comeBack(id int) string {
	return fmt.Sprintf("a node whose data is lost comes back under a new id: allot member remove %d, then allot member add and allot serve --join with an empty --data-dir", id)
}

// checkDataLost refuses to start a new log in dir, if it is empty, when a
// node this one can reach has applied a start of it, or its removal.
// Nodes that do not answer within half a lease count for nothing: a new
// cluster's nodes, starting together, are all in this check at once (a
// node's process should take its port only once New returned, as allot
// serve does, so that the others' calls are refused at once rather than
// held until the timeout).
func (n *Node) checkDataLost(dir string) error {
	if empty, err := store.Empty(dir); err != nil || !empty {
		return err
	}
	var boot []control.Member
	for k, a := range n.c.Nodes {
		boot = append(boot, control.Member{ID: proc.ID(k), Addr: a})
	}
	peers := n.members.want(boot)
	if len(peers) == 0 {
		return nil
	}
	opts := n.cfg.DialOptions
	if opts == nil {
		opts = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	ctx, cancel := context.WithTimeout(context.Background(), max(n.cfg.Suspect/2, 100*time.Millisecond))
	defer cancel()
	type answer struct {
		peer int
		r    *pb.ListMembersResponse
	}
	answers := make(chan answer, len(peers))
	for k, addr := range peers {
		go func() {
			var r *pb.ListMembersResponse
			if conn, err := grpc.NewClient(addr, opts...); err == nil {
				r, _ = pb.NewAdminClient(conn).ListMembers(ctx, &pb.ListMembersRequest{})
				conn.Close()
			}
			answers <- answer{k, r}
		}()
	}
	// One peer with a start of this node settles it: the check refuses
	// at once, without waiting out the others. Only a start of a new log
	// needs every peer heard (or its time out).
	for range peers {
		a := <-answers
		if a.r == nil || !slices.Equal(a.r.GetCluster().GetBootstrap(), n.c.Nodes) {
			continue // silent, or another cluster's
		}
		i := slices.IndexFunc(a.r.Members, func(m *pb.Member) bool { return int(m.Id) == n.self })
		switch {
		case i < 0 && n.self < len(n.c.Nodes): // a node that started the cluster leaves it only removed
			return fmt.Errorf("%w: node %d's data directory %s is empty, and node %d's log has removed it (applied up to index %d): %s",
				ErrDataLost, n.self, dir, a.peer, a.r.Applied, comeBack(n.self))
		case i >= 0 && a.r.Members[i].Rejoins > 0:
			return fmt.Errorf("%w: node %d's data directory %s is empty, but the cluster has run with it (node %d has applied index %d, where node %d joined): %s",
				ErrDataLost, n.self, dir, a.peer, a.r.Applied, n.self, comeBack(n.self))
		}
	}
	return nil
}
