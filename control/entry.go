package control

import (
	"fmt"

	"github.com/allot-dev/allot/algo"
	"github.com/allot-dev/allot/codec"
	"github.com/allot-dev/allot/proc"
)

// The entries of the control log. They are proc.Message values only so
// that the project's codec encodes them (deterministic bytes, hostile
// input refused); no process sends them to another.
type (
	// ViewEntry is a view: the members serving in it with the generation
	// each serves as, and how long a node waits after applying it before
	// it serves (the leases of the runs it leaves out run out meanwhile).
	// Its epoch is its index in the log.
	ViewEntry struct {
		Members []int32
		Gens    []uint64
		Wait    int64
	}
	// ReadyEntry says Node (as generation Gen) holds again in view Epoch
	// every grant its sessions held, and has issued Counts[i] permits of
	// the i-th quota (Config.Quotas) over its whole life.
	ReadyEntry struct {
		Epoch  uint64
		Node   int32
		Gen    uint64
		Counts []uint64
	}
	// ReportEntry says Node, serving view Epoch as generation Gen, has
	// issued Counts[i] permits of the i-th quota over its whole life:
	// it may issue a chunk more in the view (Quota.Chunk).
	ReportEntry struct {
		Epoch  uint64
		Node   int32
		Gen    uint64
		Counts []uint64
	}
	// RejoinEntry says Node is a new run (Run, Seq) that serves nothing
	// until a view takes it in, its permit counts final for every view it
	// was in before.
	RejoinEntry struct {
		Node   int32
		Run    uint64
		Seq    uint64
		Counts []uint64
	}
	// LeaveEntry says Node's run (Run, Seq) has stopped serving for good
	// (it gave back every grant and is shutting down), its permit counts
	// final: a view may leave it out without waiting for its lease.
	LeaveEntry struct {
		Node   int32
		Run    uint64
		Seq    uint64
		Counts []uint64
	}
	// SemaphoreEntry records a semaphore's units, proposed by a node
	// before its first Acquire of a name the log does not have: the first
	// entry of a name is its units for the cluster's life, and a later
	// one is ignored (the node that proposed it reads the first and
	// refuses its Acquire). Consensus once per name and refresh, never
	// on a grant's path. It is applied only while the newest view is
	// open: before that, the members' readies are recording the units of
	// the semaphores they hold (HoldingEntry), and a new name's entry
	// must not come first; the proposer proposes again.
	SemaphoreEntry struct {
		Name  string
		Units int32
	}
	// RefreshEntry asks for a refresh of view Epoch: a view of the same
	// members and generations, at the entry's index, if Epoch is still
	// the newest view and open when it is applied (else it is ignored:
	// the view it would refresh has moved on). Nobody is left out, so the
	// refresh waits for no lease; like any view change, it retires every
	// instance of the old view, and each member asks again for the grants
	// its sessions hold: what nobody holds is collected. It also forgets
	// the units of the semaphores: each member's ready in the new view
	// records again those its sessions hold (HoldingEntry).
	RefreshEntry struct {
		Epoch uint64
	}
	// HoldingEntry is a ReadyEntry with the units of the semaphores the
	// node's sessions hold again in the view (by name): they are recorded
	// (as SemaphoreEntry) before the ready counts, so a view opens with
	// every held semaphore's units in the log. A node holding none
	// proposes a plain ReadyEntry.
	HoldingEntry struct {
		Ready ReadyEntry
		Sems  []SemaphoreEntry
	}
	// MemberEntry is the context of a configuration change that adds
	// Node at Addr: every node learns the new member's address from the
	// log, and its transport can dial it.
	MemberEntry struct {
		Node int32
		Addr string
	}
	// MembersEntry is the data of the bootstrap snapshot: the first
	// members' addresses, and the next id to give. A node that joins
	// later receives it with the snapshot.
	MembersEntry struct {
		Nodes []int32
		Addrs []string
		Next  int32
	}
)

func (ViewEntry) Kind() string      { return "view" }
func (ReadyEntry) Kind() string     { return "ready" }
func (ReportEntry) Kind() string    { return "report" }
func (RejoinEntry) Kind() string    { return "rejoin" }
func (LeaveEntry) Kind() string     { return "leave" }
func (MemberEntry) Kind() string    { return "member" }
func (MembersEntry) Kind() string   { return "members" }
func (SemaphoreEntry) Kind() string { return "semaphore" }
func (RefreshEntry) Kind() string   { return "refresh" }
func (HoldingEntry) Kind() string   { return "holding" }

// entries is the codec of the log's entries.
var entries = mustCodec(algo.Algorithm{Name: "control-log", Messages: []proc.Message{ViewEntry{}, ReadyEntry{}, ReportEntry{}, RejoinEntry{}, LeaveEntry{}, MemberEntry{}, MembersEntry{}, SemaphoreEntry{}, RefreshEntry{}, HoldingEntry{}}})

func mustCodec(a algo.Algorithm) *codec.Codec {
	c, err := codec.New(a)
	if err != nil {
		panic(err) // the types above are fixed: a collision is a build error
	}
	return c
}

func encodeEntry(m proc.Message) []byte {
	b, err := entries.AppendMessage(nil, m)
	if err != nil {
		panic(fmt.Sprintf("control: encoding a %s entry: %v", m.Kind(), err)) // the codec knows every entry type
	}
	return b
}

func decodeEntry(b []byte) (proc.Message, error) { return entries.DecodeMessage(b) }
