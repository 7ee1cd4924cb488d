package gitsource

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync/atomic"
	"time"
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

// packPoll is how often a fetch's pack is measured as it arrives.
const packPoll = 50 * time.Millisecond

// fetchPack runs `git fetch` (args) in g's scratch repository and kills
// it once the objects received pass limit bytes: git has no bound of its
// own, but with unpackLimit 1 the pack received is written as one file
// as it arrives, and the objects are that pack and its index.
func fetchPack(ctx context.Context, g gitRun, limit int64, args ...string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var over atomic.Bool
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(packPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if sizeOf(filepath.Join(g.gitDir, "objects")) > limit {
					over.Store(true)
					cancel()
					return
				}
			}
		}
	}()
	_, err := g.run(ctx, args...)
	close(done)
	if over.Load() || sizeOf(filepath.Join(g.gitDir, "objects")) > limit {
		return errPackTooLarge
	}
	return err
}

// sizeOf is the bytes of the files under dir.
func sizeOf(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// tooLarge words errPackTooLarge for the person reading a source's error.
func tooLarge(limit int64) error {
	return fmt.Errorf("the repository's commit is over %s once packed, the most a workflow repository is fetched with: keep the workflows in a repository of their own", size(limit))
}
