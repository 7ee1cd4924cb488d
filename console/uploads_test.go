package console

import (
	"bytes"
	"testing"
	"time"

	"github.com/workrail/workrail/engine/bundle"
)

// dry is the report of a dry run, as a preview holds it.
var dry = bundle.ImportReport{DryRun: true}

// Uploads are held under the digest of their bytes, with their dry run's
// report, until they expire or the oldest give way to keep what is held
// within maxHeld; an imported one keeps its report, not its bytes.
func TestUploadSlots(t *testing.T) {
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	var u uploads
	a := u.put("a.json", []byte("a"), bundle.ImportReport{DryRun: true, Runs: 3}, t0)
	if a != "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb" {
		t.Fatalf("digest %s, want the sha256 of the bytes", a)
	}
	if got, ok := u.get(a, t0.Add(uploadTTL)); !ok || got.name != "a.json" || string(got.bundle) != "a" || got.report.Runs != 3 {
		t.Fatalf("a slot at its last moment: %+v %v", got, ok)
	}
	if _, ok := u.get(a, t0.Add(uploadTTL+time.Second)); ok {
		t.Fatal("a slot outlived uploadTTL")
	}

	big := bytes.Repeat([]byte("x"), maxUpload)
	first := u.put("1.json", big, dry, t0)
	second := u.put("2.json", append(big[:maxUpload-1:maxUpload-1], 'y'), dry, t0)
	if _, ok := u.get(first, t0); !ok {
		t.Fatal("two full uploads fit in maxHeld")
	}
	third := u.put("3.json", []byte("small"), dry, t0)
	if _, ok := u.get(first, t0); ok {
		t.Fatal("the oldest upload did not give way")
	}
	for _, d := range []string{second, third} {
		if _, ok := u.get(d, t0); !ok {
			t.Fatalf("slot %s was dropped", d)
		}
	}

	slot, _ := u.get(third, t0)
	u.imported(slot, bundle.ImportReport{Session: 7}, t0)
	got, ok := u.get(third, t0)
	if !ok || got.report.DryRun || got.report.Session != 7 || got.bundle != nil {
		t.Fatalf("an imported slot: %+v", got)
	}
	if again := u.put("3.json", []byte("small"), dry, t0); again != third {
		t.Fatal("the same bytes took another digest")
	}
	if got, _ := u.get(third, t0); !got.report.DryRun {
		t.Fatal("previewing the same bytes again kept the old import: confirming it would import nothing")
	}
}

// An imported slot holds no bundle, so it never gives way for one; and
// an import whose slot gave way while it ran is held again, so its
// confirmation lands on what it created.
func TestImportedSlotsStay(t *testing.T) {
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	var u uploads
	small := u.put("s.json", []byte("small"), dry, t0)
	slot, _ := u.get(small, t0)
	u.imported(slot, bundle.ImportReport{Session: 4}, t0)

	big := bytes.Repeat([]byte("x"), maxUpload)
	first := u.put("1.json", big, dry, t0)
	pending, _ := u.get(first, t0)
	u.put("2.json", append(big[:maxUpload-1:maxUpload-1], 'y'), dry, t0)
	u.put("3.json", []byte("more"), dry, t0)
	if got, ok := u.get(small, t0); !ok || got.report.Session != 4 {
		t.Fatalf("an imported slot gave way for a bundle: %+v %v", got, ok)
	}
	if _, ok := u.get(first, t0); ok {
		t.Fatal("the oldest slot holding a bundle did not give way")
	}

	// first was being imported when it gave way.
	u.imported(pending, bundle.ImportReport{Session: 5}, t0)
	if got, ok := u.get(first, t0); !ok || got.name != "1.json" || got.report.Session != 5 || got.bundle != nil {
		t.Fatalf("an import whose slot gave way: %+v %v", got, ok)
	}
}
