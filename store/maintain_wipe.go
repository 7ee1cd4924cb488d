package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.etcd.io/bbolt"
)

// bbolt never writes over a page in place: a write copies the pages it
// changes to free ones and frees the old, which keep their bytes until
// they are handed out again. Deleting a session therefore leaves its
// events in the file's free pages, and in the older copies of every
// page it shared with other records. Wipe overwrites them.

// Wiped is what Wipe did.
type Wiped struct {
	// Pages counts the free pages (and pages past the last one in use)
	// that held bytes and were overwritten with zeros; Bytes is their size.
	Pages int   `json:"pages"`
	Bytes int64 `json:"bytes"`
	// Held is set when readers kept the file busy until the wait ran out:
	// nothing was overwritten, and `workrail compact` (daemon stopped)
	// leaves the old pages behind instead.
	Held bool `json:"held,omitempty"`
	// Deferred says why snapshots or pins a deleted session named could
	// not be collected (a damaged session whose references are unknown):
	// they are still in the file, in use.
	Deferred string `json:"deferred,omitempty"`
}

// errReaders rolls back a wipe's transaction while readers are open.
var errReaders = errors.New("store: readers are open")

// Wipe collects the snapshots and pins that deleted sessions alone named,
// then overwrites with zeros every page of the file that holds nothing in
// use: the free pages, and those past the last page in use. It runs in a
// write transaction of its own, so no write hands a free page out
// meanwhile, and only while no read transaction is open: a reader that
// began before the last write may still read a page that write freed. It
// waits up to wait for the readers to finish.
func (s *Store) Wipe(ctx context.Context, wait time.Duration) (Wiped, error) {
	var w Wiped
	var err error
	if _, _, w.Deferred, err = s.collect(ctx); err != nil {
		return w, err
	}
	f, err := os.OpenFile(s.db.Path(), os.O_RDWR, 0)
	if err != nil {
		return w, unwritable(s.db.Path(), fmt.Errorf("store: wipe: %w", err))
	}
	defer f.Close()
	deadline := time.Now().Add(wait)
	for {
		var pages int
		var size int64
		err := guarded(label("wipe free pages"), func() error {
			return s.db.Update(func(tx *bbolt.Tx) error {
				if s.db.Stats().OpenTxN > 0 {
					return errReaders
				}
				var err error
				pages, size, err = wipeFree(tx, f)
				return err
			})
		})
		switch {
		case err == nil:
			w.Pages, w.Bytes = pages, size
			return w, unwritable(s.db.Path(), f.Sync())
		case !errors.Is(err, errReaders):
			return w, unwritable(s.db.Path(), err)
		case time.Now().After(deadline):
			w.Held = true
			return w, nil
		}
		select {
		case <-ctx.Done():
			return w, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// wipeFree zeroes, through f, each page tx's file does not use that is
// not zero already.
func wipeFree(tx *bbolt.Tx, f *os.File) (int, int64, error) {
	ps := int64(tx.DB().Info().PageSize)
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	used := tx.Size() / ps // pages below are free or in use; from here on, unused
	buf, zero := make([]byte, ps), make([]byte, ps)
	var pages int
	for id := int64(2); id < fi.Size()/ps; id++ {
		if id < used {
			info, err := tx.Page(int(id))
			if err != nil {
				return 0, 0, err
			}
			if info == nil || info.Type != "free" {
				continue
			}
		}
		if _, err := f.ReadAt(buf, id*ps); err != nil {
			return 0, 0, err
		}
		if bytes.Equal(buf, zero) {
			continue
		}
		if _, err := f.WriteAt(zero, id*ps); err != nil {
			return 0, 0, err
		}
		pages++
	}
	return pages, int64(pages) * ps, nil
}
