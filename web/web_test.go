package web_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/workrail/workrail/web"
)

// TestVendoredFilesMatchTheirChecksums: the vendored libraries are the
// published builds, byte for byte (SHA256SUMS was written from the npm
// packages htmx.org@2.0.11 and idiomorph@0.8.0).
func TestVendoredFilesMatchTheirChecksums(t *testing.T) {
	f, err := os.Open("SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: malformed line %q", sc.Text())
		}
		b, err := fs.ReadFile(web.Static, name)
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, SHA256SUMS says %s", name, got, sum)
		}
	}
	if n != 2 {
		t.Errorf("SHA256SUMS lists %d files, want the 2 vendored ones", n)
	}
}

// TestPagesLoadFilesThatExist: every path a page links is embedded.
func TestPagesLoadFilesThatExist(t *testing.T) {
	for _, p := range []string{web.HTMX, web.Idiomorph, web.Script, web.CSS} {
		if _, err := fs.Stat(web.Static, strings.TrimPrefix(p, "/")); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
