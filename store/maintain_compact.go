package store

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.etcd.io/bbolt"
)

// CompactResult is what Compact did.
type CompactResult struct {
	Path        string `json:"path"`
	BytesBefore int64  `json:"bytesBefore"`
	BytesAfter  int64  `json:"bytesAfter"`
	// Sessions counts the sessions verified in the copy.
	Sessions int `json:"sessions"`
}

// compactTxSize bounds how much of the copy one transaction holds.
const compactTxSize = 16 << 20

// Compact rewrites the database at path into a new file of only its live
// records, every page filled (bbolt's compaction), synced, checked
// against the original (the same sessions, each ending on the same chain
// digest and verifying as doctor verifies it in the original), and then
// renamed over it. Until then the original is untouched, so a failure
// leaves it as it was.
//
// It needs the file to itself: while a daemon holds it, it returns
// ErrLocked, and a damaged file is refused with a *DamagedError. The
// original is opened for writing, so it is locked exclusively until
// after the rename: a daemon starting meanwhile waits for the lock in
// the page check that precedes bbolt's open (and gives up after its
// timeout), so bbolt opens the file by its path afterwards, the new one,
// never the replaced one.
func Compact(path string, timeout time.Duration) (CompactResult, error) {
	res := CompactResult{Path: path}
	src, err := Open(path, Options{LockTimeout: timeout})
	if err != nil {
		return res, err
	}
	defer src.Close()
	if res.BytesBefore, err = fileSize(path); err != nil {
		return res, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".compact-*")
	if err != nil {
		return res, unwritable(path, fmt.Errorf("store: compact: %w", err))
	}
	tmp := f.Name()
	f.Close()
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmp)
		}
	}()
	if err := copyCompacted(src, tmp, timeout); err != nil {
		return res, err
	}
	if res.Sessions, err = checkCopy(src, tmp); err != nil {
		return res, fmt.Errorf("store: compact: the copy differs from %s, which is unchanged: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return res, fmt.Errorf("store: compact: %w", err)
	}
	renamed = true
	if err := syncPath(filepath.Dir(path)); err != nil {
		return res, err
	}
	res.BytesAfter, err = fileSize(path)
	return res, err
}

// copyCompacted copies src's records into the new file at dst and syncs it.
func copyCompacted(src *Store, dst string, timeout time.Duration) error {
	db, err := open(dst, timeout, false)
	if err != nil {
		return err
	}
	err = guarded(label("compact"), func() error { return bbolt.Compact(db, src.db, compactTxSize) })
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncPath(dst)
	}
	if err != nil {
		return unwritable(dst, fmt.Errorf("store: compact: %w", err))
	}
	return nil
}

// checkCopy checks the copy at path against src: the same sessions and
// session sequence, each session ending on the same chain digest, and
// each verifying in full as it does in src (a session damaged there is
// copied as it is). It returns how many sessions it checked.
func checkCopy(src *Store, path string) (int, error) {
	cp, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		return 0, err
	}
	defer cp.Close()
	reports, err := cp.Doctor()
	if err != nil {
		return 0, err
	}
	want, err := src.SessionIDs()
	if err != nil {
		return 0, err
	}
	if len(reports) != len(want) {
		return 0, fmt.Errorf("%d sessions copied of %d", len(reports), len(want))
	}
	for i, r := range reports {
		id := want[i]
		if r.Session != id {
			return 0, fmt.Errorf("session %s copied as %s", id, r.Session)
		}
		a, err := src.Digest(id)
		if err != nil {
			return 0, err
		}
		if b, err := cp.Digest(id); err != nil || a != b {
			return 0, fmt.Errorf("session %s does not end on the same event (%v)", id, err)
		}
		if r.OK() {
			continue
		}
		if orig, err := src.Verify(id); err != nil || orig.Health != r.Health || orig.IndexProblem != r.IndexProblem {
			return 0, fmt.Errorf("session %s verifies differently: %+v in the copy, %+v before (%v)", id, r, orig, err)
		}
	}
	a, err := src.topSessionID()
	if err != nil {
		return 0, err
	}
	if b, err := cp.topSessionID(); err != nil || a != b {
		return 0, fmt.Errorf("the session sequence is %d in the copy, %d before (%v)", b, a, err)
	}
	return len(reports), nil
}

func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	return fi.Size(), nil
}

// syncPath fsyncs a file, or a folder's entries.
func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("store: sync %s: %w", path, err)
	}
	return nil
}
