// Package home owns the WorkRail home folder: where it is, what lives in it,
// and daemon.json, the file through which shims and the CLI find a running
// daemon. Both the daemon and the stdio shim import it; of the engine it
// imports only token, for the key ring kept in keys.json.
package home

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Dir is a WorkRail home folder.
type Dir string

// Resolve finds the home folder: $WORKRAIL_HOME, else
// $XDG_DATA_HOME/workrail, else ~/.local/share/workrail. It creates it (0700).
func Resolve() (Dir, error) {
	d := os.Getenv("WORKRAIL_HOME")
	if d == "" {
		var err error
		if d, err = Default(); err != nil {
			return "", err
		}
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(abs, "logs"), 0o700); err != nil {
		return "", fmt.Errorf("home: create %s: %w", abs, err)
	}
	return Dir(abs), nil
}

// Default is the home folder used when WORKRAIL_HOME is not set:
// $XDG_DATA_HOME/workrail, or ~/.local/share/workrail.
func Default() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "workrail"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("home: no home folder: set WORKRAIL_HOME: %w", err)
	}
	return filepath.Join(h, ".local", "share", "workrail"), nil
}

// IsDefault says whether d is the home folder an IDE-launched shim finds
// without WORKRAIL_HOME in its environment.
func (d Dir) IsDefault() bool {
	def, err := Default()
	if err != nil {
		return false
	}
	abs, err := filepath.Abs(def)
	return err == nil && abs == string(d)
}

// Path joins name onto the home folder.
func (d Dir) Path(name string) string { return filepath.Join(string(d), name) }

// DB is the bbolt database file.
func (d Dir) DB() string { return d.Path("workrail.db") }

// Socket is the unix socket shims connect to.
func (d Dir) Socket() string { return d.Path("daemon.sock") }

// DaemonLog is where a detached daemon's stdout and stderr go: its
// banner, and why it could not start.
func (d Dir) DaemonLog() string { return filepath.Join(string(d), "logs", "daemon.log") }

// Log is the log the daemon and its shims write (JSON lines, rotated by
// size): a line per tool call, and every error.
func (d Dir) Log() string { return filepath.Join(string(d), "logs", "workrail.log") }

// WorkdirHeader is the header in which a shim sends the daemon the folder
// its IDE started it in.
const WorkdirHeader = "X-Workrail-Workdir"

// SessionHeader names the MCP client a request comes from (streamable
// HTTP's session id): the daemon mints one in its answer to initialize,
// and a client sends it with every request after, as a shim does.
const SessionHeader = "Mcp-Session-Id"

// RetryKeyHeader is the header in which a shim sends the key it minted for
// the message it forwards, the same again when it sends that message
// again (protocol.WithRetryKey).
const RetryKeyHeader = "X-Workrail-Retry-Key"

// Info is the content of daemon.json.
type Info struct {
	PID       int    `json:"pid"`
	URL       string `json:"url"`
	Socket    string `json:"socket"`
	Version   string `json:"version"`
	StartedAt string `json:"startedAt"`
	// AppliedConfigHash identifies the configuration in effect: sha256 of
	// its canonical JSON, rewritten when a runtime-safe change is applied.
	AppliedConfigHash string `json:"appliedConfigHash"`
}

// WriteInfo writes daemon.json atomically (temp file, fsync, rename).
func (d Dir) WriteInfo(i Info) error {
	b, err := json.MarshalIndent(i, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(d.Path("daemon.json"), append(b, '\n'), 0o600)
}

// ReadInfo reads daemon.json; os.ErrNotExist when no daemon wrote one.
func (d Dir) ReadInfo() (Info, error) {
	var i Info
	b, err := os.ReadFile(d.Path("daemon.json"))
	if err != nil {
		return i, err
	}
	if err := json.Unmarshal(b, &i); err != nil {
		return i, fmt.Errorf("home: daemon.json is malformed: %w", err)
	}
	return i, nil
}

// RemoveInfo deletes daemon.json if it still names pid.
func (d Dir) RemoveInfo(pid int) error {
	i, err := d.ReadInfo()
	if errors.Is(err, os.ErrNotExist) || (err == nil && i.PID != pid) {
		return nil
	}
	return os.Remove(d.Path("daemon.json"))
}

// Alive reports whether the process named in i still runs. A zombie (a
// killed daemon its parent has not reaped yet) is not alive.
func (i Info) Alive() bool {
	if i.PID <= 0 {
		return false
	}
	if err := syscall.Kill(i.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", i.PID))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	// The state follows the parenthesised command name: "pid (comm) S …".
	if j := bytes.LastIndexByte(stat, ')'); j >= 0 && j+2 < len(stat) {
		return stat[j+2] != 'Z'
	}
	return true
}

// WriteFileAtomic writes b to path so that readers see the old or the new
// content, never a torn file.
func WriteFileAtomic(path string, b []byte, mode os.FileMode) error {
	return Publish(path, b, mode, os.Rename)
}

// CreateFileAtomic is WriteFileAtomic for a file that must not be replaced:
// when path already exists it leaves it alone and reports created false,
// so concurrent creators agree on the first one's content.
func CreateFileAtomic(path string, b []byte, mode os.FileMode) (created bool, err error) {
	err = Publish(path, b, mode, os.Link)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	return err == nil, err
}

// Publish writes b to a synced temporary file beside path, moves it into
// place with place(tmp, path) (a rename, a link for no-overwrite, or a
// caller's check then one of those), and syncs the folder so the move
// survives a crash.
func Publish(path string, b []byte, mode os.FileMode, place func(tmp, path string) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = tmp.Chmod(mode)
	if err == nil {
		_, err = tmp.Write(b)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = place(tmp.Name(), path)
	}
	if err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// Lock takes an exclusive advisory lock on the named file in the home
// folder, waiting at most timeout. Unlock by calling the returned func.
func (d Dir) Lock(name string, timeout time.Duration) (func(), error) {
	f, err := os.OpenFile(d.Path(name), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("home: %s is held by another process", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
