package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// smallDiskHome is a WorkRail home on a tmpfs of the given size ("4m"): a
// real file system that really runs out of space. Mounting needs root, as
// the project's machines and CI run tests.
func smallDiskHome(t *testing.T, size string) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "wr-disk-")
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		os.Remove(dir)
		t.Fatalf("mounting a tmpfs needs root: %v", err)
	}
	t.Cleanup(func() {
		killHomeDaemons(t, dir)
		syscall.Unmount(dir, syscall.MNT_DETACH)
		os.Remove(dir)
	})
	return dir
}

// fillDisk writes to a file in dir until its file system is full and
// returns the function that frees the space again.
func fillDisk(t *testing.T, dir string) (free func()) {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling %s: %v", dir, err)
			}
			return func() { os.Remove(path) }
		}
	}
}
