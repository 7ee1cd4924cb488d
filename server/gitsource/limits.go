package gitsource

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Limits bound one fetch of one repository: a repository that turns out
// to hold huge or hostile content costs at most these, and the folder
// written from it is then read within the limits of any folder
// (server/sources: 1 MiB a file, 64 MiB a folder, 5 s of compiling a
// call).
type Limits struct {
	// FetchTime bounds a whole fetch: listing the refs, receiving the
	// pack, writing the tree.
	FetchTime time.Duration
	// PackBytes bounds the pack received: the commit's whole tree,
	// compressed, when the fetch is shallow.
	PackBytes int64
	// Entries bounds the tree entries walked under the workflows'
	// folder, files or not.
	Entries int
	// Files bounds the workflow (*.json) files written.
	Files int
	// Depth bounds the folders below the workflows' folder.
	Depth int
	// FileBytes is the largest file written: a workflow file's limit.
	FileBytes int64
	// TreeBytes bounds the bytes of every file written: a folder's budget.
	TreeBytes int64
}

// DefaultLimits are the limits of a daemon's fetches.
func DefaultLimits() Limits {
	return Limits{
		FetchTime: 60 * time.Second,
		PackBytes: 128 << 20,
		Entries:   100_000,
		Files:     2_000,
		Depth:     16,
		FileBytes: 1 << 20,
		TreeBytes: 64 << 20,
	}
}

// errPackTooLarge ends a fetch whose pack passed Limits.PackBytes.
var errPackTooLarge = errors.New("pack too large")

// boundedStorage is a repository's storage whose packs are cut off past
// a number of bytes: go-git writes a fetched pack through the storage's
// PackfileWriter, over any transport.
type boundedStorage struct {
	*filesystem.Storage
	limit int64
}

// PackfileWriter implements storer.PackfileWriter.
func (s boundedStorage) PackfileWriter() (io.WriteCloser, error) {
	w, err := s.Storage.PackfileWriter()
	if err != nil {
		return nil, err
	}
	return &limitedWriter{w: w, left: s.limit}, nil
}

type limitedWriter struct {
	w    io.WriteCloser
	left int64
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.left {
		return 0, errPackTooLarge
	}
	l.left -= int64(len(p))
	return l.w.Write(p)
}

func (l *limitedWriter) Close() error { return l.w.Close() }

// tooLarge words errPackTooLarge for the person reading a source's error.
func tooLarge(limit int64) error {
	return fmt.Errorf("the repository's commit is over %s once packed, the most a workflow repository is fetched with: keep the workflows in a repository of their own", size(limit))
}
