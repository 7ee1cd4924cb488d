// Package store keeps WorkRail's durable truth in one bbolt file: per-session
// append-only event logs chained by digest, content-addressed node snapshots
// and pinned compiled workflows, and indexes derived from the logs. It is the
// only package of the binary that imports bbolt, and the only one that names
// the file's buckets (store/internal/layout); tests elsewhere that damage a
// file or read it behind the store's back do so through store/storetest.
//
// Its files, by concern:
//
//   - the port execute declares (store.go, tx.go, commit.go, index.go,
//     node.go, recent.go, starts.go, holds.go, unwritable.go): opening,
//     appending, reading, the write sequence, a full disk;
//   - derived records, versioned caches of folds of the logs (derived.go,
//     overview.go, resume.go, lineage.go and part.go: the runs'
//     projection);
//   - health (health.go, doctor.go, damage.go, checked.go):
//     verifying logs and references, and refusing a damaged file;
//   - maintenance, the operations a person or the sweeper runs on a whole
//     file or session rather than an agent's call, each in a maintain_*.go
//     file: compact, retention (the sweep), reindex (refolding derived
//     records), salvage (copying what verifies out of a damaged file;
//     maintain_salvage_scan.go makes sense of the pages pagefile.Scan
//     hands it), wipe (freed pages zeroed) and replace (a session
//     rewritten, as a secrets scrub does).
//
// Reading the pages of a possibly damaged file, where bbolt cannot be
// trusted, is store/pagefile's: it knows bbolt's format, not the store's.
package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/store/internal/layout"
	"github.com/workrail/workrail/store/pagefile"
)

// SchemaVersion is the layout version recorded in the meta bucket. It
// changes only when the layout does (what an older build could not read
// or would write wrongly); a change to what a derived record holds bumps
// that record's definition version instead (derived.go), which needs no
// migration.
const SchemaVersion = 6

// schemaOverviews is the first version that keeps each session's overview.
const schemaOverviews = 2

// schemaResume is the first version that keeps each session's resume
// record.
const schemaResume = 3

// schemaWordCut is the first version whose resume records cut the newest
// note on whole words of its normalized text; the records of schema 3
// cut the raw text and are folded again.
const schemaWordCut = 4

// Version 5 is the first whose sessions name the definition versions of
// their derived records (keyDerived); builds before it would write
// records of their own definitions under a newer label, so they must
// refuse the file, and do (its schema is newer than theirs). Nothing
// here reads by it, so it has no constant.

var (
	bucketMeta      = layout.Meta
	bucketSessions  = layout.Sessions
	bucketSnapshots = layout.Snapshots
	bucketWorkflows = layout.Workflows
	// bucketActivity: session key → wall time of its last write (Unix
	// seconds), for retention. It is outside the hashed logs and the
	// derived indexes: the one record written from the clock.
	bucketActivity = layout.Activity
	// bucketUnreferenced: snapshots and pinned workflows a deleted
	// session referenced (kind ‖ digest → the session), kept until a
	// sweep has checked that no remaining session references them.
	bucketUnreferenced = layout.Unreferenced

	// Inside each session's bucket.
	bucketEvents   = layout.Events   // EventIndex → JCS event
	bucketChain    = layout.Chain    // EventIndex → chain digest
	bucketNodes    = layout.Nodes    // NodeID → NodeInfo (derived)
	bucketRuns     = layout.Runs     // RunID → RunInfo (derived)
	bucketAttempts = layout.Attempts // NodeID‖Attempt → EventIndex (derived)
	keyHead        = layout.Head     // last EventIndex ‖ last digest
	keyOverview    = layout.Overview // project.Overview as JSON (derived)
	keyResume      = layout.Resume   // resume.Record as JSON (derived)
	keyDerived     = layout.Derived  // the definition versions of the derived records
	keySchema      = layout.Schema   // in the meta bucket: the schema version
)

// ErrNewerSchema means the file was written by a newer workrail, whose
// layout this build does not know: it is refused before anything is
// read or written.
var ErrNewerSchema = errors.New("store: the database was written by a newer workrail")

// ErrLocked means another process holds the database.
var ErrLocked = errors.New("store: the database is locked by another process")

// Options tune how the store opens its file.
type Options struct {
	// LockTimeout bounds the wait for bbolt's file lock (default 1s).
	LockTimeout time.Duration
	// ReadOnly opens an existing database for reading only (doctor).
	ReadOnly bool
	// Now stamps each session's last write, which retention counts from
	// (time.Now when nil). Nothing is ordered by it.
	Now func() time.Time
	// Logf gets a line for each session whose derived records a health
	// check found different from its log, and repaired (discarded when
	// nil).
	Logf func(format string, args ...any)
}

// Store is an open WorkRail database.
type Store struct {
	db       *bbolt.DB
	commit   *committer
	now      func() time.Time
	logf     func(format string, args ...any)
	readOnly bool

	// sweeping lets one sweep run at a time; live holds the references
	// appends make while it collects snapshots and pins.
	sweeping sync.Mutex
	live     liveRefs

	mu     sync.Mutex
	health map[engine.SessionID]execute.Health

	// decoded keeps the overviews last decoded, so that a walk decodes
	// only those whose stored bytes changed since.
	decodedMu sync.Mutex
	decoded   map[engine.SessionID]decodedOverview

	// resume is every session's resume record, in memory once queried.
	resume resumeIndex
}

// Open opens (creating if needed) the database at path. Opened for
// writing, a file whose structure is damaged is refused with a
// *DamagedError before anything is written; opened read-only (doctor,
// salvage), every read reports damage as an error wrapping ErrDamaged.
func Open(path string, o Options) (*Store, error) {
	if o.LockTimeout == 0 {
		o.LockTimeout = time.Second
	}
	if !o.ReadOnly {
		if err := checkStructure(path, o.LockTimeout); err != nil {
			return nil, err
		}
	}
	db, err := open(path, o.LockTimeout, o.ReadOnly)
	if err != nil {
		return nil, err
	}
	if err := db.View(func(tx *bbolt.Tx) error { return checkSchema(path, tx) }); err != nil {
		db.Close()
		return nil, err
	}
	if !o.ReadOnly {
		if err := db.Update(migrate); err != nil {
			db.Close()
			return nil, err
		}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	s := &Store{db: db, now: o.Now, logf: o.Logf, readOnly: o.ReadOnly, health: map[engine.SessionID]execute.Health{}, decoded: map[engine.SessionID]decodedOverview{}}
	s.commit = newCommitter(db)
	return s, nil
}

// open opens the bbolt file. The free list is written with each commit, so
// opening does not walk every page to rebuild it; checkStructure has
// already checked that no page it lists is in use, so a damaged free list
// cannot hand out a live page.
func open(path string, timeout time.Duration, readOnly bool) (*bbolt.DB, error) {
	var db *bbolt.DB
	var file *os.File
	keep := func(name string, flag int, perm os.FileMode) (*os.File, error) {
		var err error
		file, err = os.OpenFile(name, flag, perm)
		return file, err
	}
	err := guarded(label("open "+path), func() error {
		var err error
		db, err = bbolt.Open(path, 0o600, &bbolt.Options{Timeout: timeout, ReadOnly: readOnly,
			FreelistType: bbolt.FreelistMapType, OpenFile: keep})
		return err
	})
	if errors.Is(err, ErrDamaged) && file != nil {
		file.Close() // bbolt panicked holding it, and its lock
	}
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return nil, ErrLocked
	case errors.Is(err, ErrDamaged):
		return nil, &DamagedError{Path: path, Problems: []string{unwrapDamage(err)}}
	case err != nil:
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return db, nil
}

// checkStructure reads an existing file's pages before it is opened for
// writing: opening for writing scans every reachable page in a way that
// crashes or loops on damage, and writing into damage spreads it.
func checkStructure(path string, timeout time.Duration) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	// A shared lock: no writer is changing the pages while they are read,
	// and a running daemon is reported as such, not as damage.
	if err := lockShared(f, timeout); err != nil {
		return err
	}
	_, problems, err := pagefile.ReadFile(f, false)
	if err != nil {
		return fmt.Errorf("store: read %s: %w", path, err)
	}
	if len(problems) > 0 {
		return &DamagedError{Path: path, Problems: problems}
	}
	return nil
}

// lockShared takes a shared flock on f, waiting up to timeout while
// another process holds it exclusively (a daemon); closing f releases it.
func lockShared(f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("store: lock %s: %w", f.Name(), err)
		}
		if time.Now().After(deadline) {
			return ErrLocked
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Close stops the writer and closes the file.
func (s *Store) Close() error {
	s.commit.stop()
	return s.db.Close()
}

// Changes counts the write transactions committed since the store was
// opened: a cursor a poller compares to learn that nothing changed.
func (s *Store) Changes() uint64 { return s.commit.changes.Load() }

// Path is the file the store uses.
func (s *Store) Path() string { return s.db.Path() }

func migrate(tx *bbolt.Tx) error {
	for _, name := range [][]byte{bucketMeta, bucketSessions, bucketSnapshots, bucketWorkflows, bucketActivity, bucketUnreferenced, bucketRecent, bucketWritten, bucketStarts, bucketReplaced} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("store: create bucket %s: %w", name, err)
		}
	}
	meta := tx.Bucket(bucketMeta)
	v := meta.Get(keySchema)
	switch {
	case v == nil:
		return meta.Put(keySchema, u64(SchemaVersion))
	case binary.BigEndian.Uint64(v) >= SchemaVersion:
		return nil // checkSchema refused a newer one
	case binary.BigEndian.Uint64(v) < schemaWordCut:
		if binary.BigEndian.Uint64(v) == schemaResume {
			if err := dropResumes(tx); err != nil {
				return err
			}
		}
		if err := addIndexes(tx); err != nil {
			return err
		}
	}
	// From schema 4 there is nothing to fold: unlabelled records are of
	// legacyVersions, and any of another definition are rebuilt.
	if binary.BigEndian.Uint64(v) < schemaRecent {
		if err := fillRecent(tx); err != nil {
			return err
		}
	}
	return meta.Put(keySchema, u64(SchemaVersion))
}

// checkSchema refuses a file whose layout is newer than this build's:
// reading it could misreport it, and writing it could damage it.
func checkSchema(path string, tx *bbolt.Tx) error {
	if tx.Bucket(bucketMeta) == nil {
		return nil // a new file
	}
	if v := schema(tx); v > SchemaVersion {
		return newerSchema(path, v)
	}
	return nil
}

// newerSchema refuses the file at path, of schema v, naming both
// versions and what to do.
func newerSchema(path string, v uint64) error {
	return fmt.Errorf("%w: %s has database schema %d, and this workrail reads schema %d at most. "+
		"Run the newer workrail that wrote it (sessions, tokens and the Console keep working there); "+
		"to go back to this one instead, stop every workrail, move the file aside and put back a copy made before the upgrade. "+
		"The file was not changed", ErrNewerSchema, path, v, SchemaVersion)
}

// schema is the layout version of the open file.
func schema(tx *bbolt.Tx) uint64 {
	if v := tx.Bucket(bucketMeta).Get(keySchema); len(v) == 8 {
		return binary.BigEndian.Uint64(v)
	}
	return 0
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
