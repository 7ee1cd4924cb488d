package logfile_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/workrail/workrail/server/logfile"
)

// line is the i-th test line: 30 bytes with its newline.
func line(i int) string { return fmt.Sprintf("line %04d %19s\n", i, "x") }

func lines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		b.WriteString(line(i))
	}
	return b.String()
}

func read(t *testing.T, path string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// A write that would take the file past the limit rotates it first; the
// newest Keep rotated files are kept, the oldest dropped.
func TestRotatesAtTheLimit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		max      int64
		keep, n  int
		want     []string // path, path.1, path.2, …: the files that exist
		overflow string   // a line longer than max written last, if any
	}{
		{name: "below the limit", max: 100, keep: 2, n: 3, want: []string{lines(1, 3)}},
		{name: "one rotation", max: 100, keep: 2, n: 4, want: []string{lines(4, 4), lines(1, 3)}},
		{name: "oldest dropped", max: 100, keep: 2, n: 10, want: []string{lines(10, 10), lines(7, 9), lines(4, 6)}},
		{name: "exactly full", max: 90, keep: 1, n: 6, want: []string{lines(4, 6), lines(1, 3)}},
		{name: "line longer than the limit", max: 100, keep: 3, n: 2,
			overflow: strings.Repeat("y", 150) + "\n",
			want:     []string{strings.Repeat("y", 150) + "\n", lines(1, 2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "workrail.log")
			l := logfile.New(path, logfile.Options{MaxBytes: tc.max, Keep: tc.keep})
			defer l.Close()
			for i := 1; i <= tc.n; i++ {
				if _, err := l.Write([]byte(line(i))); err != nil {
					t.Fatal(err)
				}
				if got, _ := read(t, path); int64(len(got)) > tc.max {
					t.Fatalf("after line %d the file holds %d bytes; the limit is %d", i, len(got), tc.max)
				}
			}
			if tc.overflow != "" {
				if _, err := l.Write([]byte(tc.overflow)); err != nil {
					t.Fatal(err)
				}
			}
			for i := 0; i <= tc.keep+1; i++ {
				name := path
				if i > 0 {
					name = fmt.Sprintf("%s.%d", path, i)
				}
				got, ok := read(t, name)
				switch {
				case i < len(tc.want) && (!ok || got != tc.want[i]):
					t.Errorf("%s = %q (exists %v); want %q", filepath.Base(name), got, ok, tc.want[i])
				case i >= len(tc.want) && ok:
					t.Errorf("%s exists: %q", filepath.Base(name), got)
				}
			}
		})
	}
}

// The log and every rotated file are 0600, also when the file was there
// before with a looser mode.
func TestFilesArePrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "workrail.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(line(0)), 0o644); err != nil {
		t.Fatal(err)
	}
	l := logfile.New(path, logfile.Options{MaxBytes: 100, Keep: 2})
	defer l.Close()
	for i := 1; i <= 8; i++ {
		if _, err := l.Write([]byte(line(i))); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{path, path + ".1", path + ".2"} {
		info, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v; want 0600", filepath.Base(name), info.Mode().Perm())
		}
	}
}

// Goroutines writing through one File, and two Files on one path (as the
// daemon and a shim do), lose no line and split none, across rotations;
// through one File no rotated file passes the limit.
func TestConcurrentWriters(t *testing.T) {
	const writers, each, max = 8, 300, 4096
	for _, files := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d files", files), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "workrail.log")
			var ls []*logfile.File
			for range files {
				l := logfile.New(path, logfile.Options{MaxBytes: max, Keep: 1000})
				defer l.Close()
				ls = append(ls, l)
			}
			var wg sync.WaitGroup
			for w := range writers {
				wg.Go(func() {
					for i := range each {
						if _, err := ls[w%files].Write(fmt.Appendf(nil, "writer %d line %04d %9s\n", w, i, "x")); err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			names, err := filepath.Glob(path + "*")
			if err != nil {
				t.Fatal(err)
			}
			whole := regexp.MustCompile(`^writer \d line \d{4} {9}x$`)
			var got []string
			for _, name := range names {
				b, _ := read(t, name)
				if files == 1 && len(b) > max {
					t.Errorf("%s holds %d bytes; the limit is %d", filepath.Base(name), len(b), max)
				}
				for _, ln := range strings.Split(strings.TrimSuffix(b, "\n"), "\n") {
					if !whole.MatchString(ln) {
						t.Fatalf("%s holds a damaged line %q", filepath.Base(name), ln)
					}
					got = append(got, ln)
				}
			}
			var want []string
			for w := range writers {
				for i := range each {
					want = append(want, fmt.Sprintf("writer %d line %04d %9s", w, i, "x"))
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%d lines in %d files; want each of %d once", len(got), len(names), len(want))
			}
		})
	}
}

// A log that cannot be written costs the writer an error, reported once
// until a write succeeds again; it never panics or blocks.
func TestWriteFailureIsReportedOnce(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "logs")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var reports []string
	l := logfile.New(filepath.Join(blocker, "workrail.log"), logfile.Options{Broken: func(err error) { reports = append(reports, err.Error()) }})
	defer l.Close()
	write := func() error { _, err := l.Write([]byte(line(1))); return err }
	for range 3 {
		if write() == nil {
			t.Fatal("a write under a regular file succeeded")
		}
	}
	if len(reports) != 1 || !strings.Contains(reports[0], "log lines are dropped") {
		t.Fatalf("reports %q; want one", reports)
	}
	os.Remove(blocker)
	if err := write(); err != nil {
		t.Fatalf("the log did not recover once its folder could be made: %v", err)
	}
	os.RemoveAll(blocker)
	os.WriteFile(blocker, nil, 0o600)
	if write() == nil || len(reports) != 2 {
		t.Fatalf("a failure after a recovery was not reported again: %q", reports)
	}
}
