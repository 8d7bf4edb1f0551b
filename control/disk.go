package control

import (
	"slices"

	"go.etcd.io/raft/v3/raftpb"
)

// Disk is what a node persists: the bootstrap snapshot (the first
// configuration), Raft's hard state and its log. The simulator keeps one
// across a node's restart; the service keeps it in its store.
type Disk struct {
	// Runs counts the node's starts: each start is a new run, named by
	// it (Config.Run).
	Runs      uint64
	Snapshot  raftpb.Snapshot
	HardState raftpb.HardState
	Entries   []raftpb.Entry
}

// Save applies u's writes to d: the entries replace those from their
// first index on (a new leader's log wins over an unconfirmed tail).
func (d *Disk) Save(u Update) {
	if len(u.Entries) > 0 {
		first := u.Entries[0].Index
		keep := len(d.Entries)
		for keep > 0 && d.Entries[keep-1].Index >= first {
			keep--
		}
		d.Entries = append(d.Entries[:keep:keep], u.Entries...)
	}
	if u.HardState.Term != 0 || u.HardState.Commit != 0 || u.HardState.Vote != 0 {
		d.HardState = u.HardState
	}
}

// Clone is a copy of d that shares nothing with it.
func (d Disk) Clone() Disk {
	d.Entries = slices.Clone(d.Entries)
	return d
}
