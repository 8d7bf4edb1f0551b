// Package store keeps what a node of the service must not lose in a crash:
// the control plane's newest snapshot, the Raft log after it and the hard
// state, the node's runs, and the permits of each quota it has issued. It is a bbolt file (one B+tree,
// copy-on-write, every commit fsynced) in the node's data directory,
// marked with the cluster and the node it belongs to, so that a node
// started on another's data refuses to run instead of voting twice.
//
// bbolt and not etcd's WAL: the log here is small (a few entries per view
// change, and compacted: a snapshot replaces the entries it covers in the
// transaction that writes it), the store also holds counters that change
// on every Take, and one transactional file for both is simpler to keep
// consistent than a WAL and a second store.
package store

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/allot-dev/allot/control"
)

// The errors of Open and of reads: a data directory of another node or
// cluster, or a store that cannot be read back.
var (
	ErrMismatch = errors.New("the data directory belongs to another node")
	ErrCorrupt  = errors.New("the store is corrupt")
	ErrLocked   = errors.New("the data directory is in use by another process")
)

// Identity is whom a data directory belongs to: node Node of the cluster
// bootstrapped with these node addresses (a node that joined later has an
// id past them; the log has every member since). Spec is the cluster's
// description as the service keeps it, written when the store is created:
// a node restarted on its data needs nothing else.
type Identity struct {
	Nodes []string
	Node  int
	Spec  []byte
}

func (id Identity) String() string {
	return fmt.Sprintf("node %d of the cluster %s", id.Node, strings.Join(id.Nodes, ","))
}

// Store is a node's persisted state.
type Store struct {
	db *bolt.DB
	// hard is the newest hard state Save was given that is not on disk
	// yet (a commit index alone: Raft needs no fsync for it); unsaved
	// says there is one. Written by the next transaction of Save, or by
	// Close.
	mu      sync.Mutex
	hard    raftpb.HardState
	unsaved bool
	saves   uint64 // Save's transactions written
}

// FileName is the store's file in its data directory.
const FileName = "allot.db"

var (
	bMeta    = []byte("meta")
	bLog     = []byte("log")
	bCounts  = []byte("counts")
	kNodes   = []byte("nodes")
	kNode    = []byte("node")
	kHard    = []byte("hardstate")
	kSnap    = []byte("snapshot")
	kRuns    = []byte("runs")
	kVersion = []byte("version")
	kSpec    = []byte("spec")
	version  = []byte("1")
)

// Open opens (creating it if need be) the store of id in dir. A new store
// starts with the bootstrap configuration of id's nodes.
func Open(dir string, id Identity) (s *Store, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileName)
	// bbolt trusts its file, which it maps in memory: a truncated or
	// overwritten one can panic, or fault, on a read. That is a corrupt
	// store, not a crash: faults panic here, and every page is checked
	// once before the store is used.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if s != nil {
				s.db.Close()
			}
			s, err = nil, fmt.Errorf("%w: %s cannot be read: truncated or overwritten? (%v)", ErrCorrupt, path, r)
		}
	}()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("%w: %s", ErrLocked, dir)
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	s = &Store{db: db}
	if err := s.check(); err != nil {
		db.Close()
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	if err := s.init(id); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// check walks every page of the store.
func (s *Store) check() error {
	return s.db.View(func(tx *bolt.Tx) error {
		var first error
		for err := range tx.Check() { // drained: the walk ends with the transaction
			first = cmp.Or(first, err)
		}
		return first
	})
}

// init checks the store is id's, or makes it so if it is new.
func (s *Store) init(id Identity) error {
	nodes := []byte(strings.Join(id.Nodes, ","))
	node := binary.BigEndian.AppendUint64(nil, uint64(id.Node))
	return s.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bMeta)
		if meta != nil {
			if v := meta.Get(kVersion); string(v) != string(version) {
				return fmt.Errorf("%w: unknown store version %q", ErrCorrupt, v)
			}
			gotNodes, gotNode := meta.Get(kNodes), meta.Get(kNode)
			if len(gotNode) != 8 || tx.Bucket(bLog) == nil || tx.Bucket(bCounts) == nil || meta.Get(kSnap) == nil {
				return fmt.Errorf("%w: incomplete metadata", ErrCorrupt)
			}
			if string(gotNodes) != string(nodes) || string(gotNode) != string(node) {
				was := Identity{Nodes: strings.Split(string(gotNodes), ","), Node: int(binary.BigEndian.Uint64(gotNode))}
				return fmt.Errorf("%w: it is %v, not %v", ErrMismatch, was, id)
			}
			if len(meta.Get(kSpec)) == 0 && len(id.Spec) > 0 {
				return meta.Put(kSpec, id.Spec) // a store of before the spec was kept
			}
			return nil
		}
		// A node that joins later starts from the same bootstrap
		// state: the log replays every change from there.
		boot := control.BootstrapAt(id.Nodes)
		snap, err := boot.Snapshot.Marshal()
		if err != nil {
			return err
		}
		meta, err = tx.CreateBucket(bMeta)
		if err != nil {
			return err
		}
		for _, kv := range [][2][]byte{{kVersion, version}, {kNodes, nodes}, {kNode, node}, {kSnap, snap}, {kSpec, id.Spec}} {
			if len(kv[1]) == 0 {
				continue // no spec
			}
			if err := meta.Put(kv[0], kv[1]); err != nil {
				return err
			}
		}
		if _, err := tx.CreateBucket(bLog); err != nil {
			return err
		}
		_, err = tx.CreateBucket(bCounts)
		return err
	})
}

// ErrNoStore is Peek's answer for a directory without a store.
var ErrNoStore = errors.New("no store in the data directory")

// Empty reports whether dir holds no store, or an empty file in its place
// (a crash while the store was first created, or a file truncated to
// nothing): Open would start a new log there. A node whose directory is
// empty after it ran has lost its log (the service asks the other nodes
// before it starts one).
func Empty(dir string) (bool, error) {
	fi, err := os.Stat(filepath.Join(dir, FileName))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return true, nil
	case err != nil:
		return false, err
	}
	return fi.Size() == 0, nil
}

// Peek reads the identity of the store in dir, and closes it: whose
// data it is, and the cluster's description (Spec, nil if the store is
// older than it).
func Peek(dir string) (id Identity, err error) {
	path := filepath.Join(dir, FileName)
	if empty, err := Empty(dir); err != nil || empty {
		return Identity{}, cmp.Or(err, fmt.Errorf("%w: %s", ErrNoStore, dir))
	}
	// As in Open: a truncated or overwritten file is a corrupt store,
	// not a crash (a read past its end faults).
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			id, err = Identity{}, fmt.Errorf("%w: %s cannot be read: truncated or overwritten? (%v)", ErrCorrupt, path, r)
		}
	}()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return Identity{}, fmt.Errorf("%w: %s", ErrLocked, dir)
	case err != nil:
		return Identity{}, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		// Opened read-only, bbolt does not grow a truncated file to the
		// size its meta page says: a page past the end would fault, in
		// tx.Check's goroutine too, where nothing recovers it.
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		if fi.Size() < tx.Size() {
			return fmt.Errorf("%w: %s: truncated (%d bytes of %d)", ErrCorrupt, path, fi.Size(), tx.Size())
		}
		meta := tx.Bucket(bMeta)
		if meta == nil || len(meta.Get(kNode)) != 8 {
			return fmt.Errorf("%w: %s: incomplete metadata", ErrCorrupt, path)
		}
		id.Nodes = strings.Split(string(meta.Get(kNodes)), ",")
		id.Node = int(binary.BigEndian.Uint64(meta.Get(kNode)))
		id.Spec = slices.Clone(meta.Get(kSpec))
		return nil
	})
	return id, err
}

// Close closes the store.
func (s *Store) Close() error {
	s.mu.Lock()
	unsaved := s.unsaved
	s.mu.Unlock()
	var err error
	if unsaved {
		err = s.Save(control.Update{MustSync: true})
	}
	return errors.Join(err, s.db.Close())
}

// Disk reads the control plane's persisted state.
func (s *Store) Disk() (d control.Disk, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrCorrupt, r)
		}
	}()
	err = s.db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bMeta)
		if err := d.Snapshot.Unmarshal(meta.Get(kSnap)); err != nil {
			return fmt.Errorf("%w: snapshot: %v", ErrCorrupt, err)
		}
		// The snapshot's State is checked here, whatever the quotas: a
		// store whose snapshot a node cannot restore is corrupt.
		if _, err := control.DecodeState(nil, d.Snapshot); err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		if h := meta.Get(kHard); h != nil {
			if err := d.HardState.Unmarshal(h); err != nil {
				return fmt.Errorf("%w: hard state: %v", ErrCorrupt, err)
			}
		}
		if r := meta.Get(kRuns); len(r) == 8 {
			d.Runs = binary.BigEndian.Uint64(r)
		}
		next := d.Snapshot.Metadata.Index + 1
		return tx.Bucket(bLog).ForEach(func(k, v []byte) error {
			var e raftpb.Entry
			if err := e.Unmarshal(v); err != nil || len(k) != 8 || binary.BigEndian.Uint64(k) != e.Index || e.Index != next {
				return fmt.Errorf("%w: log entry at key %x", ErrCorrupt, k)
			}
			next++
			d.Entries = append(d.Entries, e)
			return nil
		})
	})
	if err == nil && d.HardState.Commit > d.Snapshot.Metadata.Index+uint64(len(d.Entries)) {
		err = fmt.Errorf("%w: committed up to %d, the log ends at %d", ErrCorrupt, d.HardState.Commit, d.Snapshot.Metadata.Index+uint64(len(d.Entries)))
	}
	return d, err
}

// NewRun counts a start of the node and returns its number.
func (s *Store) NewRun() (run uint64, err error) {
	err = s.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bMeta)
		if r := meta.Get(kRuns); len(r) == 8 {
			run = binary.BigEndian.Uint64(r)
		}
		run++
		return meta.Put(kRuns, binary.BigEndian.AppendUint64(nil, run))
	})
	return run, err
}

// Save writes what the control plane asks to persist, fsynced, in one
// transaction: entries replace the log from their first index on, and a
// snapshot replaces the entries it covers (every entry, if it came from
// the leader: Restored).
//
// An update Raft says need not be synced (MustSync false: no entries, no
// snapshot, a hard state whose term and vote did not change, only its
// commit index) is not written at once: its hard state goes with the
// next write, or with Close. A commit index on disk that lags is safe
// (Raft learns it again from the leader; a restarted node applies fewer
// entries before its first message), and writing it cost an fsync on
// every heartbeat that moved it — under the lock that the lease's
// renewals wait for, so that a loaded disk or machine let every node's
// lease run out. The hard state written is always the newest given, so
// the commit on disk is never below a snapshot written with it.
func (s *Store) Save(u control.Update) error {
	snap := !raft.IsEmptySnap(u.Snapshot)
	s.mu.Lock()
	defer s.mu.Unlock()
	hard := !raft.IsEmptyHardState(u.HardState)
	if hard {
		s.hard, s.unsaved = u.HardState, true
	}
	if !snap && len(u.Entries) == 0 && (!u.MustSync || !s.unsaved) {
		return nil
	}
	u.HardState = s.hard
	err := s.db.Update(func(tx *bolt.Tx) error {
		log := tx.Bucket(bLog)
		if u.Restored {
			if err := deleteFrom(log, 0, math.MaxUint64); err != nil {
				return err
			}
		}
		if len(u.Entries) > 0 {
			if err := deleteFrom(log, u.Entries[0].Index, math.MaxUint64); err != nil {
				return err
			}
			for _, e := range u.Entries {
				b, err := e.Marshal()
				if err != nil {
					return err
				}
				if err := log.Put(binary.BigEndian.AppendUint64(nil, e.Index), b); err != nil {
					return err
				}
			}
		}
		if snap {
			b, err := u.Snapshot.Marshal()
			if err != nil {
				return err
			}
			if err := tx.Bucket(bMeta).Put(kSnap, b); err != nil {
				return err
			}
			if err := deleteFrom(log, 0, u.Snapshot.Metadata.Index); err != nil {
				return err
			}
		}
		if !raft.IsEmptyHardState(u.HardState) {
			b, err := u.HardState.Marshal()
			if err != nil {
				return err
			}
			return tx.Bucket(bMeta).Put(kHard, b)
		}
		return nil
	})
	if err == nil {
		s.unsaved, s.saves = false, s.saves+1
	}
	return err
}

// Saves is the number of transactions Save wrote (each fsynced): what
// the log's writes cost, which a driver that steps many inputs before
// one Save keeps down.
func (s *Store) Saves() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saves
}

// deleteFrom deletes the log's entries from index from to index to. The
// keys are gathered first: a bbolt cursor that deletes as it goes skips
// the key after a deleted one once the page was written in the
// transaction (etcd-io/bbolt#146).
func deleteFrom(log *bolt.Bucket, from, to uint64) error {
	var keys [][]byte
	c := log.Cursor()
	for k, _ := c.Seek(binary.BigEndian.AppendUint64(nil, from)); k != nil && binary.BigEndian.Uint64(k) <= to; k, _ = c.Next() {
		keys = append(keys, slices.Clone(k))
	}
	for _, k := range keys {
		if err := log.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// Counts are the permits issued of each quota, in names' order.
func (s *Store) Counts(names []string) ([]uint64, error) {
	out := make([]uint64, len(names))
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bCounts)
		for i, q := range names {
			if v := b.Get([]byte(q)); len(v) == 8 {
				out[i] = binary.BigEndian.Uint64(v)
			} else if v != nil {
				return fmt.Errorf("%w: count of quota %q", ErrCorrupt, q)
			}
		}
		return nil
	})
	return out, err
}

// AddIssued adds n permits to the quota's count and returns the new count
// once it is on disk. Concurrent calls share one commit (one fsync).
func (s *Store) AddIssued(quota string, n uint64) (count uint64, err error) {
	err = s.db.Batch(func(tx *bolt.Tx) error {
		b := tx.Bucket(bCounts)
		var c uint64
		if v := b.Get([]byte(quota)); len(v) == 8 {
			c = binary.BigEndian.Uint64(v)
		}
		// Batch may run a function twice (once alone, after a failed
		// batch): count is set from what this run read.
		count = c + n
		return b.Put([]byte(quota), binary.BigEndian.AppendUint64(nil, count))
	})
	return count, err
}
