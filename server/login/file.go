package login

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/workrail/workrail/server/home"
)

// fileVersion is the only logins.json format this code reads and writes.
const fileVersion = 1

// maxFile bounds what is read of logins.json: maxLogins entries take
// about 12 KiB.
const maxFile = 64 << 10

// file is logins.json.
type file struct {
	Version int     `json:"version"`
	Logins  []entry `json:"logins"`
}

// entry is one login in the file: its id's SHA-256, never the id.
type entry struct {
	digest digest
	At     time.Time `json:"at"`
	Used   time.Time `json:"used"`
}

type entryJSON struct {
	SHA256 string    `json:"sha256"`
	At     time.Time `json:"at"`
	Used   time.Time `json:"used"`
}

func (e entry) MarshalJSON() ([]byte, error) {
	return json.Marshal(entryJSON{SHA256: hexDigest(e.digest), At: e.At.UTC(), Used: e.Used.UTC()})
}

func (e *entry) UnmarshalJSON(b []byte) error {
	var j entryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	d, err := hex.DecodeString(j.SHA256)
	if err != nil || len(d) != len(e.digest) {
		return fmt.Errorf("sha256 %q is not 64 hex digits", j.SHA256)
	}
	copy(e.digest[:], d)
	e.At, e.Used = j.At, j.Used
	return nil
}

// readFile reads logins.json: none when it does not exist. A file other
// users could have written (and so planted a login in) is refused.
func readFile(path string) ([]entry, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	if err := checkPrivate(f, path); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("%s is longer than %d bytes", path, maxFile)
	}
	var v file
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s is malformed: %w", path, err)
	}
	if v.Version != fileVersion {
		return nil, fmt.Errorf("%s is version %d; this WorkRail reads version %d", path, v.Version, fileVersion)
	}
	return v.Logins, nil
}

// checkPrivate refuses a file that is not a regular file of this user's
// that only this user can read and write.
func checkPrivate(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("other users can access %s (mode %04o)", path, perm)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to user %d, not %d", path, st.Uid, os.Getuid())
	}
	return nil
}

// writeFile replaces logins.json atomically, private to this user.
func writeFile(path string, entries []entry) error {
	b, err := json.MarshalIndent(file{Version: fileVersion, Logins: entries}, "", "  ")
	if err != nil {
		return err
	}
	if err := home.WriteFileAtomic(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}
