package home

import (
	"fmt"
	"os"
	"syscall"
)

// CheckPrivate refuses a home folder other users could plant files in:
// keys, tokens and the socket live there, so it must belong to this user
// and be writable by nobody else.
func (d Dir) CheckPrivate() error {
	fi, err := os.Stat(string(d))
	if err != nil {
		return fmt.Errorf("home: %w", err)
	}
	if owner, ok := ownerOf(fi); ok && owner != os.Getuid() {
		return fmt.Errorf("home: %s belongs to user %d, not you (%d): set WORKRAIL_HOME to a folder of your own", d, owner, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("home: other users can write to %s (mode %04o), so they could plant keys or tokens there; "+
			"make it private with `chmod 700 %s` and start WorkRail again", d, perm, d)
	}
	return nil
}

// checkOwner refuses a secret file that belongs to another user.
func checkOwner(fi os.FileInfo, path string) error {
	if owner, ok := ownerOf(fi); ok && owner != os.Getuid() {
		return fmt.Errorf("home: %s belongs to user %d, not you (%d); remove it and start WorkRail again to make a new one", path, owner, os.Getuid())
	}
	return nil
}

func ownerOf(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
