// Package golden holds tests to the files under testdata that pin their
// output byte for byte. Every package's golden files are rewritten by the
// one flag it declares: go test ./PKG -update, then read the diff line by
// line before committing it.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata with what the tests produce")

// Update reports whether -update was given, for a test that writes its
// golden files its own way.
func Update() bool { return *update }

// Check fails t unless got equals the file at path. With -update it first
// writes got there, creating its folder.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it; review it before committing)", err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it; review the diff): %s", path, firstDifference(want, got))
	}
}

// firstDifference says where got first leaves want, by line, with the
// two lines side by side.
func firstDifference(want, got []byte) string {
	wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		w, g := line(wl, i), line(gl, i)
		if w != g {
			return fmt.Sprintf("line %d (of %d, want %d)\n  want: %s\n  got:  %s", i+1, len(gl), len(wl), w, g)
		}
	}
	return "same lines, different bytes"
}

func line(lines [][]byte, i int) string {
	if i >= len(lines) {
		return "(end of file)"
	}
	return fmt.Sprintf("%q", lines[i])
}
