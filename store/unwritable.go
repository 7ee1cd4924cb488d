package store

import (
	"errors"
	"path/filepath"
	"syscall"

	"github.com/workrail/workrail/engine"
)

// unwritable turns a write that failed because the disk is full or
// read-only into the error the caller can act on: nothing was recorded,
// what was stored before is intact, and the same call succeeds once the
// disk takes writes again. Other errors pass through.
func unwritable(path string, err error) error {
	dir := filepath.Dir(path)
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT), errors.Is(err, syscall.EFBIG):
		return engine.Errorf(engine.CodeStorageUnwritable,
			"the disk holding %s is full (%v), so nothing was recorded; everything stored before is intact. "+
				"Free space on that disk (old files in %s, other large files on it), then send the same call again.", path, rootCause(err), filepath.Join(dir, "logs")).
			With("reason", "disk_full").With("path", path)
	case errors.Is(err, syscall.EROFS):
		return engine.Errorf(engine.CodeStorageUnwritable,
			"%s is on a read-only file system, so nothing was recorded; everything stored before is intact. "+
				"Make that disk writable again (or move the WorkRail home with WORKRAIL_HOME), then send the same call again.", path).
			With("reason", "read_only").With("path", path)
	}
	return err
}

func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
