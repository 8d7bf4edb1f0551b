package control

import (
	"fmt"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/proc"
)

// Msg is a Raft message between two nodes' control processes, as Raft
// marshals it.
type Msg struct{ Raft []byte }

func (Msg) Kind() string { return "raft" }

// TickTimer is the timer of a Process's Raft ticks.
type TickTimer struct{}

// Algorithm declares the message and timer types of Process, for a
// driver's codec. It is not an allocation algorithm: it builds nothing.
func Algorithm() algo.Algorithm {
	return algo.Algorithm{
		Name:     "control",
		Summary:  "the control plane: Raft-agreed views, served under leases",
		Messages: []proc.Message{Msg{}, Reach{}},
		Timers:   []proc.Timer{TickTimer{}},
	}
}

// Process runs a Node as a proc.Process: Raft messages go as Msg through
// Env.Send (and each Reach as itself), ticks come from Env.After timers (one a Raft tick), and what
// the node persists is written to the Disk its driver keeps across the
// process's restarts. A view it starts serving is an EvView event, a view
// it stops serving an EvFence. It stands for the whole node: asked to
// adopt a view, it is ready at once (its driver hosts no sessions), and it
// reports the permit counts Counts returns.
type Process struct {
	cfg  Config
	disk *Disk
	node *Node
	// Counts, when set, gives the node's permit counts when it reports
	// them (nil: none).
	Counts func() []uint64
}

// NewProcess is the control process of node cfg.Self (cfg.Run and
// cfg.Rand are set at Start: the run from the disk, the random source
// from the Env). disk is what the node persisted (Bootstrap for a new
// node); the process writes to it.
func NewProcess(cfg Config, disk *Disk) *Process {
	return &Process{cfg: cfg, disk: disk}
}

// Node is the process's node (nil before Start).
func (p *Process) Node() *Node { return p.node }

// Start starts the node on its disk as a new run.
func (p *Process) Start(env proc.Env) {
	p.disk.Runs++
	cfg := p.cfg
	cfg.Run, cfg.Rand = p.disk.Runs, env.Rand()
	cfg.Counts = p.counts()
	n, err := New(cfg, p.disk.Clone(), env.Now())
	if err != nil {
		panic(fmt.Sprintf("control process %d: %v", p.cfg.Self, err)) // a configuration error of the driver's
	}
	p.node = n
	env.After(n.tickEvery(), TickTimer{})
	p.flush(env)
}

// Deliver steps a Raft message, or hands the node a Reach.
func (p *Process) Deliver(env proc.Env, from proc.ID, m proc.Message) {
	if r, ok := m.(Reach); ok {
		p.node.Hear(env.Now(), from, r)
		p.flush(env)
		return
	}
	msg, ok := m.(Msg)
	if !ok {
		return
	}
	var rm raftpb.Message
	if err := rm.Unmarshal(msg.Raft); err != nil || procID(rm.From) != from {
		return // not a Raft message of the sender's: dropped
	}
	if err := p.node.Step(env.Now(), rm); err != nil {
		return // a message Raft refuses (an unknown sender): dropped
	}
	p.flush(env)
}

// Fire is a tick.
func (p *Process) Fire(env proc.Env, t proc.Timer) {
	if _, ok := t.(TickTimer); !ok {
		return
	}
	p.node.Tick(env.Now())
	env.After(p.node.tickEvery(), TickTimer{})
	p.flush(env)
}

func (p *Process) counts() []uint64 {
	if p.Counts == nil {
		return make([]uint64, len(p.cfg.Quotas))
	}
	return p.Counts()
}

// flush does what the node asks until it asks nothing.
func (p *Process) flush(env proc.Env) {
	for {
		u, err := p.node.Next(env.Now())
		if err != nil {
			panic(fmt.Sprintf("control process %d: %v", p.cfg.Self, err)) // a log the node cannot apply: a bug
		}
		if u.Empty() {
			return
		}
		p.disk.Save(u)
		for _, m := range u.Messages {
			b, err := m.Marshal()
			if err != nil {
				panic(fmt.Sprintf("control process %d: %v", p.cfg.Self, err))
			}
			env.Send(procID(m.To), Msg{Raft: b})
		}
		for _, to := range u.ReachTo {
			env.Send(to, u.Reach)
		}
		for _, c := range u.Changes {
			switch c.Kind {
			case Adopt:
				p.node.Ready(env.Now(), c.View.Epoch, p.counts())
			case Serve:
				env.Emit(proc.Event{Kind: proc.EvView, Epoch: c.View.Epoch, Members: c.View.Members})
			case Fence:
				env.Emit(proc.Event{Kind: proc.EvFence, Epoch: c.View.Epoch})
				if c.Lost {
					p.node.Stopped(env.Now(), p.counts())
				}
			}
		}
	}
}
