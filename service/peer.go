package service

import (
	"fmt"

	pb "github.com/allot-dev/allot/api/allot/v1"
	"github.com/allot-dev/allot/proc"
	"github.com/allot-dev/allot/service/internal/link"
)

// received hands a message from a link to its instance.
func (n *Node) received(peer int, f *pb.Frame) {
	m, err := n.codec.DecodeMessage(f.Payload)
	if err != nil {
		n.log.Error("link: undecodable message", "peer", peer, "err", err)
		return
	}
	in, err := n.instance(f.Instance)
	if err != nil {
		n.log.Error("link: message for an unknown instance", "peer", peer, "instance", f.Instance, "err", err)
		return
	}
	in.deliver(proc.ID(f.From), proc.ID(f.To), m)
}

// Link implements the Peer service: the accepting end of a link.
func (p peerServer) Link(s pb.Peer_LinkServer) error {
	n := p.n
	k, err := link.Hello(s)
	if err != nil {
		return err
	}
	if k < 0 || k >= len(n.links) || n.links[k] == nil {
		return fmt.Errorf("link from unknown node %d", k)
	}
	return n.links[k].Attach(n.ctx, s)
}
