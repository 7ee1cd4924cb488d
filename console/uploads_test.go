package console

import (
	"bytes"
	"testing"
	"time"

	"github.com/workrail/workrail/engine/bundle"
)

// Uploads are held under the digest of their bytes until they expire or
// the oldest give way to keep what is held within maxHeld; an imported
// one keeps its report, not its bytes.
func TestUploadSlots(t *testing.T) {
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	var u uploads
	a := u.put("a.json", []byte("a"), t0)
	if a != "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb" {
		t.Fatalf("digest %s, want the sha256 of the bytes", a)
	}
	if got, ok := u.get(a, t0.Add(uploadTTL)); !ok || got.name != "a.json" || string(got.bundle) != "a" {
		t.Fatalf("a slot at its last moment: %+v %v", got, ok)
	}
	if _, ok := u.get(a, t0.Add(uploadTTL+time.Second)); ok {
		t.Fatal("a slot outlived uploadTTL")
	}

	big := bytes.Repeat([]byte("x"), maxUpload)
	first := u.put("1.json", big, t0)
	second := u.put("2.json", append(big[:maxUpload-1:maxUpload-1], 'y'), t0)
	if _, ok := u.get(first, t0); !ok {
		t.Fatal("two full uploads fit in maxHeld")
	}
	third := u.put("3.json", []byte("small"), t0)
	if _, ok := u.get(first, t0); ok {
		t.Fatal("the oldest upload did not give way")
	}
	for _, d := range []string{second, third} {
		if _, ok := u.get(d, t0); !ok {
			t.Fatalf("slot %s was dropped", d)
		}
	}

	u.imported(third, bundle.ImportReport{Session: 7})
	got, ok := u.get(third, t0)
	if !ok || got.report == nil || got.report.Session != 7 || got.bundle != nil {
		t.Fatalf("an imported slot: %+v", got)
	}
	if again := u.put("3.json", []byte("small"), t0); again != third {
		t.Fatal("the same bytes took another digest")
	}
	if got, _ := u.get(third, t0); got.report != nil {
		t.Fatal("previewing the same bytes again kept the old import: confirming it would import nothing")
	}
}
