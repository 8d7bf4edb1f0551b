package control

import (
	"slices"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
)

// Disk is what a node persists: its newest snapshot (the bootstrap one,
// the first configuration, until it takes one), Raft's hard state and the
// log after the snapshot. The simulator keeps one across a node's
// restart; the service keeps it in its store.
type Disk struct {
	// Runs counts the node's starts: each start is a new run, named by
	// it (Config.Run).
	Runs uint64
	// Counts: the permits of each quota (Config.Quotas) the node has
	// issued over its whole life, as its driver wrote them before it
	// answered a Take (Config.Counts at the next start). The control
	// node itself never writes them.
	Counts    []uint64
	Snapshot  raftpb.Snapshot
	HardState raftpb.HardState
	Entries   []raftpb.Entry
}

// Save applies u's writes to d: the entries replace those from their
// first index on (a new leader's log wins over an unconfirmed tail), and
// a snapshot the entries it covers (all of them, Restored).
func (d *Disk) Save(u Update) {
	if u.Restored {
		d.Entries = nil
	}
	if len(u.Entries) > 0 {
		first := u.Entries[0].Index
		keep := len(d.Entries)
		for keep > 0 && d.Entries[keep-1].Index >= first {
			keep--
		}
		d.Entries = append(d.Entries[:keep:keep], u.Entries...)
	}
	if !raft.IsEmptySnap(u.Snapshot) {
		d.Snapshot = u.Snapshot
		covered := 0
		for covered < len(d.Entries) && d.Entries[covered].Index <= u.Snapshot.Metadata.Index {
			covered++
		}
		d.Entries = slices.Clone(d.Entries[covered:])
	}
	if u.HardState.Term != 0 || u.HardState.Commit != 0 || u.HardState.Vote != 0 {
		d.HardState = u.HardState
	}
}

// Clone is a copy of d that shares nothing with it.
func (d Disk) Clone() Disk {
	d.Entries = slices.Clone(d.Entries)
	d.Counts = slices.Clone(d.Counts)
	return d
}
