package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what a check reports.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Errorf(f string, args ...any) { r.failed = append(r.failed, f) }
func (r *recorder) Fatalf(f string, args ...any) { r.failed = append(r.failed, f) }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, got, where string
	}{
		{"same", "one\ntwo\n", ""},
		{"a line changed", "one\nthree\n", `line 2 (of 3, want 3)`},
		{"a line added", "one\ntwo\nthree\n", `line 3 (of 4, want 3)`},
		{"the newline lost", "one\ntwo", `line 3 (of 2, want 3)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Check(r, path, []byte(tc.got))
			switch {
			case tc.where == "" && len(r.failed) > 0:
				t.Errorf("failed on equal bytes: %v", r.failed)
			case tc.where != "" && len(r.failed) == 0:
				t.Errorf("passed on %q", tc.got)
			}
			if tc.where != "" && len(r.failed) > 0 {
				if d := firstDifference([]byte("one\ntwo\n"), []byte(tc.got)); !strings.HasPrefix(d, tc.where) {
					t.Errorf("difference %q, want it to start %q", d, tc.where)
				}
			}
		})
	}
	r := &recorder{TB: t}
	Check(r, filepath.Join(t.TempDir(), "missing.golden"), []byte("x"))
	if len(r.failed) != 1 {
		t.Errorf("a missing file reported %d failures, want 1", len(r.failed))
	}
}
