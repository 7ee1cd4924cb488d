// Package store keeps WorkRail's durable truth in one bbolt file: per-session
// append-only event logs chained by digest, content-addressed node snapshots
// and pinned compiled workflows, and indexes derived from the logs. It is the
// only package that imports bbolt.
package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
)

// SchemaVersion is the layout version recorded in the meta bucket.
const SchemaVersion = 1

var (
	bucketMeta      = []byte("meta")
	bucketSessions  = []byte("sessions")
	bucketSnapshots = []byte("snapshots")
	bucketWorkflows = []byte("workflows")

	// Inside each session's bucket.
	bucketEvents   = []byte("events")   // EventIndex → JCS event
	bucketChain    = []byte("chain")    // EventIndex → chain digest
	bucketNodes    = []byte("nodes")    // NodeID → NodeInfo (derived)
	bucketRuns     = []byte("runs")     // RunID → RunInfo (derived)
	bucketAttempts = []byte("attempts") // NodeID‖Attempt → EventIndex (derived)
	keyHead        = []byte("head")     // last EventIndex ‖ last digest
)

// ErrLocked means another process holds the database.
var ErrLocked = errors.New("store: the database is locked by another process")

// Options tune how the store opens its file.
type Options struct {
	// LockTimeout bounds the wait for bbolt's file lock (default 1s).
	LockTimeout time.Duration
	// ReadOnly opens an existing database for reading only (doctor).
	ReadOnly bool
}

// Store is an open WorkRail database.
type Store struct {
	db     *bbolt.DB
	commit *committer

	mu     sync.Mutex
	health map[engine.SessionID]execute.Health
}

// Open opens (creating if needed) the database at path.
func Open(path string, o Options) (*Store, error) {
	if o.LockTimeout == 0 {
		o.LockTimeout = time.Second
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: o.LockTimeout, ReadOnly: o.ReadOnly,
		NoFreelistSync: true, FreelistType: bbolt.FreelistMapType})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, ErrLocked
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if !o.ReadOnly {
		if err := db.Update(migrate); err != nil {
			db.Close()
			return nil, err
		}
	}
	s := &Store{db: db, health: map[engine.SessionID]execute.Health{}}
	s.commit = newCommitter(db)
	return s, nil
}

// Close stops the writer and closes the file.
func (s *Store) Close() error {
	s.commit.stop()
	return s.db.Close()
}

// Path is the file the store uses.
func (s *Store) Path() string { return s.db.Path() }

func migrate(tx *bbolt.Tx) error {
	for _, name := range [][]byte{bucketMeta, bucketSessions, bucketSnapshots, bucketWorkflows} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("store: create bucket %s: %w", name, err)
		}
	}
	meta := tx.Bucket(bucketMeta)
	v := meta.Get([]byte("schema"))
	switch {
	case v == nil:
		return meta.Put([]byte("schema"), u64(SchemaVersion))
	case binary.BigEndian.Uint64(v) > SchemaVersion:
		return fmt.Errorf("store: database schema %d is newer than this workrail (%d): upgrade workrail", binary.BigEndian.Uint64(v), SchemaVersion)
	}
	return nil
}

func u64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }
func u32(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }

func sessionKey(id engine.SessionID) []byte { return u64(uint64(id)) }

// Stats describes the database file's space.
type Stats struct {
	FileBytes int64 // size of the file's used high-water mark
	FreeBytes int64 // bytes on the free list inside it
}

// Stats reports how much of the file holds live data.
func (s *Store) Stats() (Stats, error) {
	var st Stats
	err := s.db.View(func(tx *bbolt.Tx) error {
		st.FileBytes = tx.Size()
		return nil
	})
	st.FreeBytes = int64(s.db.Stats().FreeAlloc)
	return st, err
}
