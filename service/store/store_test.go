package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/allot-dev/allot/control"
)

var id = Identity{Nodes: []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}, Node: 1}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	if run, err := s.NewRun(); err != nil || run != 1 {
		t.Fatalf("first run %d, %v", run, err)
	}
	ents := []raftpb.Entry{{Index: 2, Term: 2, Data: []byte("a")}, {Index: 3, Term: 2, Data: []byte("b")}, {Index: 4, Term: 2}}
	if err := s.Save(control.Update{Entries: ents, HardState: raftpb.HardState{Term: 2, Vote: 1, Commit: 3}}); err != nil {
		t.Fatal(err)
	}
	// A new leader's entries replace the tail from their index on.
	if err := s.Save(control.Update{Entries: []raftpb.Entry{{Index: 4, Term: 3, Data: []byte("c")}}}); err != nil {
		t.Fatal(err)
	}
	if c, err := s.AddIssued("q", 5); err != nil || c != 5 {
		t.Fatalf("count %d, %v", c, err)
	}
	if c, err := s.AddIssued("q", 2); err != nil || c != 7 {
		t.Fatalf("count %d, %v", c, err)
	}
	s.Close()

	s, err = Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := s.Disk()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Entries) != 3 || d.Entries[2].Term != 3 || string(d.Entries[2].Data) != "c" || d.HardState.Commit != 3 || d.Runs != 1 {
		t.Fatalf("read back %+v", d)
	}
	if len(d.Snapshot.Metadata.ConfState.Voters) != 3 {
		t.Fatalf("bootstrap configuration %+v", d.Snapshot.Metadata.ConfState)
	}
	if c, err := s.Counts([]string{"none", "q"}); err != nil || c[0] != 0 || c[1] != 7 {
		t.Fatalf("counts %v, %v", c, err)
	}
	if run, err := s.NewRun(); err != nil || run != 2 {
		t.Fatalf("second run %d, %v", run, err)
	}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, id); !errors.Is(err, ErrLocked) {
		t.Errorf("a second open while in use: %v, want ErrLocked", err)
	}
	s.Close()
	other := id
	other.Node = 2
	if _, err := Open(dir, other); !errors.Is(err, ErrMismatch) {
		t.Errorf("another node's data: %v, want ErrMismatch", err)
	}
	other = Identity{Nodes: []string{"127.0.0.1:9", "127.0.0.1:2", "127.0.0.1:3"}, Node: 1}
	if _, err := Open(dir, other); !errors.Is(err, ErrMismatch) {
		t.Errorf("another cluster's data: %v, want ErrMismatch", err)
	}

	garbage := t.TempDir()
	if err := os.WriteFile(filepath.Join(garbage, FileName), []byte("not a store at all, not even close to a page"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(garbage, id); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a garbage file: %v, want ErrCorrupt", err)
	}

	// A store cut in half.
	f := filepath.Join(dir, FileName)
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	cut := t.TempDir()
	if err := os.WriteFile(filepath.Join(cut, FileName), b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(cut, id); err == nil {
		_, err = s.Disk()
		s.Close()
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("a truncated file: %v, want ErrCorrupt", err)
		}
	} else if !errors.Is(err, ErrCorrupt) {
		t.Errorf("a truncated file: %v, want ErrCorrupt", err)
	}
	// Peek (a node restarted on its data dir alone) reads it too: a
	// read past the file's end faulted (SIGBUS), a crash of the process.
	// (On a copy: a fault inside bbolt's Open leaves its file locked.)
	cut = t.TempDir()
	if err := os.WriteFile(filepath.Join(cut, FileName), b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Peek(cut); !errors.Is(err, ErrCorrupt) {
		t.Errorf("peek of a truncated file: %v, want ErrCorrupt", err)
	}
	if _, err := Peek(garbage); !errors.Is(err, ErrCorrupt) {
		t.Errorf("peek of a garbage file: %v, want ErrCorrupt", err)
	}
	// A file truncated to nothing is no store: Open would start a new
	// log in it, which the service does only after asking the others.
	if err := os.Truncate(filepath.Join(cut, FileName), 0); err != nil {
		t.Fatal(err)
	}
	if empty, err := Empty(cut); !empty || err != nil {
		t.Errorf("a file of 0 bytes: empty %v, %v", empty, err)
	}
	if _, err := Peek(cut); !errors.Is(err, ErrNoStore) {
		t.Errorf("peek of a file of 0 bytes: %v, want ErrNoStore", err)
	}
	if empty, err := Empty(dir); empty || err != nil {
		t.Errorf("a store: empty %v, %v", empty, err)
	}
}

// TestPeek: the identity and the spec of a store come back without the
// caller knowing them; an older store (no spec) gets the spec on its next
// open; a directory without a store is ErrNoStore; a node that joined
// (an id past the bootstrap nodes) keeps its id.
func TestPeek(t *testing.T) {
	dir := t.TempDir()
	if _, err := Peek(dir); !errors.Is(err, ErrNoStore) {
		t.Fatalf("peek of an empty directory: %v, want ErrNoStore", err)
	}
	joined := Identity{Nodes: id.Nodes, Node: 5}
	s, err := Open(dir, joined)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	got, err := Peek(dir)
	if err != nil || got.Node != 5 || len(got.Nodes) != 3 || got.Spec != nil {
		t.Fatalf("peek: %+v, %v", got, err)
	}
	joined.Spec = []byte(`{"lock":"x"}`)
	if s, err = Open(dir, joined); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got, err = Peek(dir); err != nil || string(got.Spec) != `{"lock":"x"}` {
		t.Fatalf("peek after the spec: %+v, %v", got, err)
	}
	d, err := func() (control.Disk, error) {
		s, err := Open(dir, got)
		if err != nil {
			return control.Disk{}, err
		}
		defer s.Close()
		return s.Disk()
	}()
	if err != nil || len(d.Snapshot.Data) == 0 || len(d.Snapshot.Metadata.ConfState.Voters) != 3 {
		t.Fatalf("the bootstrap snapshot of a joined node: %+v, %v", d.Snapshot.Metadata, err)
	}
}

// snapshotAt is a snapshot of the State of a cluster of id's nodes at
// index at, as a node takes it.
func snapshotAt(t *testing.T, at uint64) raftpb.Snapshot {
	t.Helper()
	boot := control.BootstrapAt(id.Nodes)
	st, err := control.DecodeState(nil, boot.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	data, err := st.Encode()
	if err != nil {
		t.Fatal(err)
	}
	snap := boot.Snapshot
	snap.Data, snap.Metadata.Index = data, at
	return snap
}

func entries(from, to, term uint64) []raftpb.Entry {
	var out []raftpb.Entry
	for i := from; i <= to; i++ {
		out = append(out, raftpb.Entry{Index: i, Term: term, Data: []byte("entry")})
	}
	return out
}

// TestSnapshot: a snapshot replaces the entries it covers, in the write
// that saves it, and is what a restart reads; one from the leader
// (Restored) replaces the whole log.
func TestSnapshot(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	// Entries past a page of keys, and the snapshot in the write of
	// entries it covers (a follower applies entries it appends in the
	// same update): the pages it deletes from were written just before.
	if err := s.Save(control.Update{Entries: entries(2, 1500, 2), HardState: raftpb.HardState{Term: 2, Commit: 1500}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(control.Update{Snapshot: snapshotAt(t, 1400), Entries: entries(1200, 1510, 2)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(dir, id); err != nil {
		t.Fatal(err)
	}
	d, err := s.Disk()
	if err != nil {
		t.Fatal(err)
	}
	if d.Snapshot.Metadata.Index != 1400 || len(d.Entries) != 110 || d.Entries[0].Index != 1401 {
		t.Fatalf("after a snapshot at 1400: snapshot at %d, %d entries from %d", d.Snapshot.Metadata.Index, len(d.Entries), d.Entries[0].Index)
	}
	// The leader's snapshot: the log after it is the leader's, from it.
	if err := s.Save(control.Update{Snapshot: snapshotAt(t, 1450), Restored: true, Entries: entries(1451, 1452, 3), HardState: raftpb.HardState{Term: 3, Commit: 1450}}); err != nil {
		t.Fatal(err)
	}
	if d, err = s.Disk(); err != nil {
		t.Fatal(err)
	}
	if d.Snapshot.Metadata.Index != 1450 || len(d.Entries) != 2 || d.Entries[1].Term != 3 {
		t.Fatalf("after the leader's snapshot at 1450: snapshot at %d, entries %+v", d.Snapshot.Metadata.Index, d.Entries)
	}
	s.Close()
}

// TestCorruptSnapshot: a snapshot that does not unmarshal, or whose State
// a node could not restore, is ErrCorrupt.
func TestCorruptSnapshot(t *testing.T) {
	good := snapshotAt(t, 10)
	bad := good
	bad.Data = []byte("no State")
	badBytes, err := bad.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"garbage": []byte("\xff\xff\xff not a snapshot"), "a bad State": badBytes} {
		s, err := Open(t.TempDir(), id)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Save(control.Update{Snapshot: good}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Disk(); err != nil {
			t.Fatalf("%s: the good snapshot: %v", name, err)
		}
		if err := s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bMeta).Put(kSnap, b) }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Disk(); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
		s.Close()
	}
}

// TestCommitAloneWaitsForTheNextWrite: an update Raft says need not be
// synced (a heartbeat that moved the commit index) writes nothing, so no
// fsync stands between a heartbeat and its answer; the next write, and
// Close, carry its hard state, so the commit on disk never falls below a
// snapshot written after it.
func TestCommitAloneWaitsForTheNextWrite(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	txid := func() (id int) {
		s.db.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil })
		return id
	}
	ents := []raftpb.Entry{{Index: 2, Term: 2}, {Index: 3, Term: 2}, {Index: 4, Term: 2}}
	if err := s.Save(control.Update{Entries: ents, HardState: raftpb.HardState{Term: 2, Vote: 1, Commit: 2}, MustSync: true}); err != nil {
		t.Fatal(err)
	}
	before := txid()
	if err := s.Save(control.Update{HardState: raftpb.HardState{Term: 2, Vote: 1, Commit: 3}}); err != nil {
		t.Fatal(err)
	}
	if after := txid(); after != before {
		t.Fatalf("a commit index alone was written (transaction %d after %d): an fsync on every heartbeat", after, before)
	}
	// The next write carries it: an entry, with no hard state of its own.
	if err := s.Save(control.Update{Entries: []raftpb.Entry{{Index: 5, Term: 2}}, MustSync: true}); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Disk(); err != nil || d.HardState.Commit != 3 {
		t.Fatalf("commit on disk %d after the next write (%v), want 3", d.HardState.Commit, err)
	}
	// Close writes one still waiting.
	if err := s.Save(control.Update{HardState: raftpb.HardState{Term: 2, Vote: 1, Commit: 4}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if d, err := s.Disk(); err != nil || d.HardState.Commit != 4 || d.HardState.Term != 2 || d.HardState.Vote != 1 {
		t.Fatalf("hard state after Close %+v (%v), want term 2, vote 1, commit 4", d.HardState, err)
	}
}
