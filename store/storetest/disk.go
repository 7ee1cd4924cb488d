// Package storetest holds what tests of the store's behaviour on a real
// disk share: a small file system that really fills up, and access to a
// closed store file behind the store's back (Update, View) by the names
// the store gives its buckets, for tests that damage or inspect it.
package storetest

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// SmallDisk mounts a tmpfs of the given size ("4m") at a new folder and
// unmounts it when the test ends. Mounting needs root, as this project's
// machines and CI run tests; elsewhere the test fails, saying so.
func SmallDisk(t *testing.T, size string) string {
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
		syscall.Unmount(dir, syscall.MNT_DETACH)
		os.Remove(dir)
	})
	return dir
}

// Fill writes to a file in dir until its file system is full and returns
// the function that frees the space again.
func Fill(t *testing.T, dir string) (free func()) {
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
