// Package logfile is WorkRail's log on disk: one file in the home folder,
// rotated by size, written by the daemon and the shims of that home at
// once, and read back for the Console's list of recent errors. Logging is
// never worth a failed call: a write that fails is reported once and
// dropped. It adapts slog to a shared, rotated file, and the file back
// to the Console's list of errors.
package logfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// Defaults of Options.
const (
	DefaultMaxBytes = 10 << 20
	DefaultKeep     = 3
)

// Options say when the file rotates and how many old files are kept.
type Options struct {
	// MaxBytes: the file is rotated before a write would take it past
	// this size (default DefaultMaxBytes).
	MaxBytes int64
	// Keep is how many rotated files are kept, path.1 (the newest) to
	// path.Keep (default DefaultKeep).
	Keep int
	// Broken is told when writing starts to fail (once, until a write
	// succeeds again); nil for nobody.
	Broken func(error)
}

// File is an io.Writer appending to the log at its path. Each Write is one
// write(2) on a file opened with O_APPEND, so whole lines from several
// goroutines or processes never interleave. Before each write it follows
// the path, so a rotation made by another process is picked up at once.
type File struct {
	path   string
	opts   Options
	mu     sync.Mutex
	f      *os.File // nil until the first write, and after a failure
	broken bool     // the last write failed and was reported
}

// New returns the log at path. Nothing is opened until the first write.
func New(path string, opts Options) *File {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Keep <= 0 {
		opts.Keep = DefaultKeep
	}
	return &File{path: path, opts: opts}
}

// Write appends p, rotating first when p would take the file past
// MaxBytes.
func (l *File) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.write(p)
	switch {
	case err != nil && !l.broken:
		l.broken = true
		if l.opts.Broken != nil {
			l.opts.Broken(fmt.Errorf("log file %s: %w; log lines are dropped until it can be written", l.path, err))
		}
	case err == nil:
		l.broken = false
	}
	return n, err
}

func (l *File) write(p []byte) (int, error) {
	size, err := l.current()
	if err != nil {
		return 0, err
	}
	if size > 0 && size+int64(len(p)) > l.opts.MaxBytes {
		if err := l.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	if err != nil {
		l.reset()
	}
	return n, err
}

// current makes l.f the file at the path now, opening it when it is not
// open or when the path names another file since (another process rotated
// it, or someone removed it), and returns its size.
func (l *File) current() (int64, error) {
	if l.f != nil {
		open, err1 := l.f.Stat()
		now, err2 := os.Stat(l.path)
		if err1 == nil && err2 == nil && os.SameFile(open, now) {
			return open.Size(), nil
		}
		l.reset()
	}
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	// A file made by someone else keeps its mode on open: tighten it.
	info, err := f.Stat()
	if err == nil && info.Mode().Perm() != 0o600 {
		err = f.Chmod(0o600)
	}
	if err != nil {
		f.Close()
		return 0, err
	}
	l.f = f
	return info.Size(), nil
}

// rotate shifts path.i to path.i+1 (dropping the oldest) and path to
// path.1, then opens a fresh file. A lock on the full file makes one
// process rotate it; another that finds it locked writes this line to the
// full file, which ends up in path.1, and follows the path next time.
func (l *File) rotate() error {
	fd := int(l.f.Fd())
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil
		}
		return err
	}
	err := l.shift()
	syscall.Flock(fd, syscall.LOCK_UN)
	if err != nil {
		return err
	}
	_, err = l.current()
	return err
}

// shift renames the files, unless another process rotated the full file
// between this one's look at it and its lock.
func (l *File) shift() error {
	open, err := l.f.Stat()
	if err != nil {
		return err
	}
	if now, err := os.Stat(l.path); err != nil || !os.SameFile(open, now) {
		return nil
	}
	for i := l.opts.Keep - 1; i >= 1; i-- {
		err := os.Rename(l.rotated(i), l.rotated(i+1))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return os.Rename(l.path, l.rotated(1))
}

// rotated is the name of the i-th newest rotated file.
func (l *File) rotated(i int) string { return l.path + "." + strconv.Itoa(i) }

func (l *File) reset() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// Close closes the open file; a later write opens it again.
func (l *File) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
