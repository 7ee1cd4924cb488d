package sources

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"syscall"

	"github.com/workrail/workrail/engine/catalog"
)

// stamps lists what tells that the catalog workspace sees may have
// changed: whether workspace is a folder, and the name, size,
// modification time and mode of every *.json file of every folder the
// catalog is read from, subfolders included (listTree): the stamps by
// which readDir already decides to re-read a file. Taking them costs a listing and a stat per file, on one
// goroutine with one deadline; ok is false when they could not all be
// taken, and the caller then reads the folders as before.
func (r *Registry) stamps(workspace string, repos []Repository) (stamps string, ok bool) {
	s, err := within(&r.stuck, "\x00stamps "+workspace, r.timeout, func() (string, error) { return r.takeStamps(workspace, repos) })
	return s, err == nil
}

func (r *Registry) takeStamps(workspace string, repos []Repository) (string, error) {
	var b []byte
	if workspace != "" {
		if info, err := os.Stat(workspace); err != nil || !info.IsDir() {
			// assemble reads no project folder then, and says so the same
			// way whatever the cause.
			workspace, b = "", append(b, "no workspace\n"...)
		}
	}
	for _, src := range r.sources(workspace, repos) {
		b = append(append(b, src.Path...), '\n')
		t, err := listTree(src.Path)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if err != nil {
			return "", err
		}
		for _, name := range t.files {
			info, err := os.Stat(name)
			if err != nil {
				return "", err
			}
			b = append(append(b, '\t'), name...)
			b = strconv.AppendInt(append(b, ' '), info.Size(), 10)
			b = strconv.AppendInt(append(b, ' '), info.ModTime().UnixNano(), 10)
			b = strconv.AppendUint(append(b, ' '), uint64(info.Mode()), 10)
			b = append(b, '\n')
		}
	}
	return string(b), nil
}

// maxAssembled bounds how many workspaces' catalogs are kept.
const maxAssembled = 64

// assembled keeps, per workspace, the catalog last assembled for it and
// the stamps its files had just before. A catalog is never changed once
// assembled, so callers share it.
type assembled struct {
	mu sync.Mutex
	m  map[string]assembly
}

type assembly struct {
	stamps  string
	catalog *catalog.Catalog
}

// get returns the catalog kept for workspace if it was assembled from
// files with these stamps, else nil.
func (a *assembled) get(workspace, stamps string) *catalog.Catalog {
	a.mu.Lock()
	defer a.mu.Unlock()
	if k, ok := a.m[workspace]; ok && k.stamps == stamps {
		return k.catalog
	}
	return nil
}

func (a *assembled) put(workspace, stamps string, c *catalog.Catalog) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[string]assembly{}
	}
	if _, ok := a.m[workspace]; !ok && len(a.m) >= maxAssembled {
		for w := range a.m { // forget any one: it is assembled again when asked for
			delete(a.m, w)
			break
		}
	}
	a.m[workspace] = assembly{stamps, c}
}
