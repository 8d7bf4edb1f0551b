package ctlsim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/allot-dev/allot/control"
	"github.com/allot-dev/allot/proc"
)

// The timing of the simulated control plane, in ticks: a lease of 1000
// (package control derives Raft's tick and election timeout from it), a
// margin of 20 over the wait for a lease to run out. With delays of a few
// ticks to ten, a run of 20000 ticks holds twenty leases.
const (
	Lease  = 1000
	Margin = 20
)

// The simulated nodes take a snapshot every 16 entries applied and keep 4
// behind it: a run's log is a few dozen entries, so a node down or cut
// off for a while comes back by a snapshot, under every fault the run
// draws (the service's default, a thousand, would never compact in a
// run).
const (
	SnapshotEvery = 16
	SnapshotKeep  = 4
)

// Variants are the deliberately broken control planes, by name (control's
// Broken hooks), for showing that check.Control catches them.
var Variants = map[string]control.Broken{
	"no-wait":  control.NoWait,
	"no-lease": control.NoLease,
}

// VariantNames lists Variants, sorted.
func VariantNames() []string {
	var names []string
	for n := range Variants { // any order: sorted below
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Plane is the Build of package control's nodes (variant "" for the
// faithful one), each on a disk of its own bootstrapped with every node.
func Plane(variant string) (Build, error) {
	broken := control.Broken(0)
	if variant != "" {
		b, ok := Variants[variant]
		if !ok {
			return nil, fmt.Errorf("no control variant %q (want one of %s)", variant, strings.Join(VariantNames(), ", "))
		}
		broken = b
	}
	return func(n int, _ uint64) ([]proc.Process, error) {
		ids := make([]proc.ID, n)
		for i := range ids {
			ids[i] = proc.ID(i)
		}
		ps := make([]proc.Process, n)
		for i := range ps {
			disk := control.Bootstrap(ids)
			cfg := control.Config{Self: proc.ID(i), Lease: Lease, Margin: Margin, Broken: broken, SnapshotEvery: SnapshotEvery, SnapshotKeep: SnapshotKeep}
			ps[i] = &durable{Process: control.NewProcess(cfg, &disk), cfg: cfg, disk: &disk}
		}
		return ps, nil
	}, nil
}

// durable makes a control.Process durable for the simulator: what it
// persisted is its Disk, which the process writes before it sends.
type durable struct {
	*control.Process
	cfg  control.Config
	disk *control.Disk
}

// Restarted is a new process on a copy of the disk (the crashed process
// is never run again; the copy keeps them apart all the same).
func (n *durable) Restarted() proc.Process {
	d := n.disk.Clone()
	return &durable{Process: control.NewProcess(n.cfg, &d), cfg: n.cfg, disk: &d}
}

// Unhashed is what the explorer leaves out of a control node's
// fingerprint: Raft's own randomized election timeout, drawn from
// crypto/rand at every term change. Package control never lets Raft's
// elapsed ticks reach it (a node campaigns on its own seeded timer), so it
// decides nothing; it only differs from replay to replay.
var Unhashed = []string{"go.etcd.io/raft/v3.raft.randomizedElectionTimeout"}
