package sources

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// maxFileSize is the largest workflow file read, in bytes.
const maxFileSize = 1 << 20

const mustBe = "workflow files must be regular files of at most 1 MiB"

// stamp is what tells that a file changed: its size and modification
// time, after symlinks.
type stamp struct {
	size    int64
	modTime time.Time
}

func stampOf(info fs.FileInfo) stamp { return stamp{info.Size(), info.ModTime()} }

// fileRead is the outcome of reading one workflow file: its stamp, and
// its bytes unless it has the stamp the caller already knew.
type fileRead struct {
	stamp     stamp
	data      []byte
	unchanged bool
}

// openFile opens path for reading without blocking, so that opening a
// named pipe returns at once instead of waiting for a writer.
func openFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// readFile reads the workflow file at path with open, if, after
// symlinks, it is a regular file of at most maxFileSize bytes. A file
// whose stamp is known (known != nil and equal) is not read again.
func readFile(open func(string) (*os.File, error), path string, known *stamp) (fileRead, error) {
	info, err := os.Stat(path)
	if err != nil {
		return fileRead{}, statError(path, err)
	}
	if err := fit(path, info); err != nil {
		return fileRead{}, err
	}
	if known != nil && *known == stampOf(info) {
		return fileRead{stamp: *known, unchanged: true}, nil
	}
	f, err := open(path)
	if err != nil {
		return fileRead{}, err
	}
	defer f.Close()
	// The path may have been replaced since the Stat: check what was opened.
	if info, err = f.Stat(); err != nil {
		return fileRead{}, err
	}
	if err := fit(path, info); err != nil {
		return fileRead{}, err
	}
	b, err := readAtMost(f, info.Size(), maxFileSize)
	if err != nil {
		return fileRead{}, err
	}
	return fileRead{stamp: stampOf(info), data: b}, nil
}

// readAtMost reads r to its end, failing once it has given more than
// limit bytes; size is how many it is expected to give.
func readAtMost(r io.Reader, size, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(min(max(size, 0), limit)) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(r, limit+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > limit {
		return nil, errors.New("grew past 1 MiB while it was being read; " + mustBe)
	}
	return buf.Bytes(), nil
}

// fit says why a file described by info (after symlinks) is not read.
func fit(path string, info fs.FileInfo) error {
	switch {
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s, not a regular file; %s", describe(path, info.Mode()), mustBe)
	case info.Size() > maxFileSize:
		return fmt.Errorf("is %d bytes, over the limit; %s: shrink or split it", info.Size(), mustBe)
	}
	return nil
}

// describe says what path is: "is a named pipe", "is a symbolic link to
// /dev/zero, a device".
func describe(path string, m fs.FileMode) string {
	if target, err := os.Readlink(path); err == nil {
		return fmt.Sprintf("is a symbolic link to %s, %s", target, kindOf(m))
	}
	return "is " + kindOf(m)
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// statError words the errors of following path's symlinks.
func statError(path string, err error) error {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return errors.New("is a symbolic link that never resolves (a loop); fix or remove the link")
	case errors.Is(err, fs.ErrNotExist):
		if target, lerr := os.Readlink(path); lerr == nil {
			return fmt.Errorf("is a symbolic link to %s, which does not exist; fix or remove the link", target)
		}
		return errors.New("was removed while its folder was being read")
	}
	return err
}
