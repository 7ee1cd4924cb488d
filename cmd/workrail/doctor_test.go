package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/store/storetest"
)

// damagedHome writes n sessions into a new home's database, closes it and
// overwrites the page header of each page pick names (reading the file
// with bbolt, before the damage).
func damagedHome(t *testing.T, n int, pick func(tx storetest.Tx) []int64) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("WORKRAIL_HOME", home)
	path := filepath.Join(home, "workrail.db")
	now := t0
	st := openAt(t, path, &now)
	executetest.Sessions(t, st, n, 2)
	st.Close()
	var pages []int64
	if err := storetest.View(path, func(tx storetest.Tx) error { pages = pick(tx); return nil }); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range pages {
		if _, err := f.WriteAt(bytes.Repeat([]byte{0xa5}, 16), p*4096); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// On a file with hundreds of damaged sessions doctor's text report is a
// summary of a few KB; --json lists every session and damaged page once,
// each session's reason naming only its own page.
func TestDoctorReportOnADamagedFileIsBounded(t *testing.T) {
	const n = 300
	damagedHome(t, n, func(tx storetest.Tx) (pages []int64) {
		for i := range n {
			if i%3 != 0 {
				b := tx.Session(uint64(i + 1))
				pages = append(pages, int64(b.Root()))
			}
		}
		return pages
	})
	const lost = n - n/3
	var text, stderr bytes.Buffer
	if code := run([]string{"doctor"}, &text, &stderr); code != 1 {
		t.Fatalf("doctor: exit %d\n%s%s", code, &text, &stderr)
	}
	for _, want := range []string{
		"… and 190 more damaged pages", "… and 190 more sessions not healthy",
		"100 of 300 sessions healthy (200 unreadable)", "workrail doctor --salvage",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, &text)
		}
	}
	if text.Len() > 4<<10 {
		t.Errorf("the text report is %d bytes; want a summary of at most 4 KB:\n%s", text.Len(), &text)
	}

	var js bytes.Buffer
	run([]string{"doctor", "--json"}, &js, &stderr)
	var rep struct {
		Structure []string `json:"structure"`
		Sessions  []struct {
			SessionID string `json:"sessionId"`
			Health    struct {
				Status string `json:"status"`
				Reason string `json:"reason"`
			} `json:"health"`
		} `json:"sessions"`
		Count string `json:"count"`
	}
	if err := json.Unmarshal(js.Bytes(), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, &js)
	}
	if len(rep.Sessions) != n || len(rep.Structure) != lost || rep.Count != "exact" {
		t.Fatalf("doctor --json lists %d sessions and %d damaged pages (count %s); want %d and %d", len(rep.Sessions), len(rep.Structure), rep.Count, n, lost)
	}
	for _, s := range rep.Sessions {
		if strings.Contains(s.Health.Reason, "root") || len(s.Health.Reason) > 200 {
			t.Fatalf("%s's reason repeats the path to its page: %q", s.SessionID, s.Health.Reason)
		}
	}
	// Each session and each damaged page costs a bounded number of bytes.
	if limit := 400 * (n + lost); js.Len() > limit {
		t.Errorf("doctor --json printed %d bytes; want at most %d", js.Len(), limit)
	}
	t.Logf("text %d bytes, json %d bytes", text.Len(), js.Len())
}

// A salvage says how many sessions it copied of how many, and when the
// damage hides how many the file held, says that instead of a count.
func TestSalvageSaysWhatItCouldNotReach(t *testing.T) {
	const n = 120
	for _, tc := range []struct {
		name  string
		pages func(tx storetest.Tx) []int64
		cut   bool
		count store.Count
		code  int      // salvage's exit: 0 when the copy is offered to replace the file
		want  []string // in salvage's report
		doc   string   // in doctor's
	}{
		{"sessions branch", func(tx storetest.Tx) []int64 { return []int64{int64(tx.Sessions().Root())} }, false, store.CountCounter, 0,
			[]string{"Salvaged 120 of 120 sessions", "The list of sessions is damaged: 0 more of the 120 session ids handed out were not found", "1 page was found damaged", "mv "},
			"120 of 120 sessions found healthy"},
		{"cut short", nil, true, store.CountAtLeast, 1,
			[]string{"sessions into", "Salvaged ", " of at least ", "pages in use are missing past the end of the file", "is not offered to replace the database", "--accept-loss"},
			"how many sessions it held is unknown: at least"},
		{"every page", func(tx storetest.Tx) []int64 {
			var all []int64
			for p := int64(2); p < tx.Size()/4096; p++ {
				all = append(all, p)
			}
			return all
		}, false, store.CountUnknown, 1, []string{"Found 0 intact sessions", "so how many sessions it held is unknown", "pages were found damaged",
			"how many sessions the file held is unknown", "--accept-loss"},
			"Found 0 intact sessions."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pick := tc.pages
			if pick == nil {
				pick = func(storetest.Tx) []int64 { return nil }
			}
			home := damagedHome(t, n, pick)
			if tc.cut {
				cut(t, filepath.Join(home, "workrail.db"))
			}
			var out, stderr bytes.Buffer
			if code := run([]string{"doctor", "--salvage", filepath.Join(home, "new.db")}, &out, &stderr); code != tc.code {
				t.Fatalf("salvage: exit %d; want %d\n%s%s", code, tc.code, &out, &stderr)
			}
			for _, want := range tc.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("salvage does not say %q:\n%s", want, &out)
				}
			}
			// A copy that lacks sessions is never offered with a command
			// that puts it in place.
			if offered := strings.Contains(out.String(), "mv "); offered != (tc.code == 0) {
				t.Errorf("salvage offers to put the copy in place: %v; want %v\n%s", offered, tc.code == 0, &out)
			}
			if strings.Contains(out.String(), " 0 of 0 ") {
				t.Errorf("salvage says 0 of 0 of a file that held %d sessions:\n%s", n, &out)
			}
			// Nor does doctor, which also says what the damage hides.
			var doc bytes.Buffer
			if code := run([]string{"doctor"}, &doc, &stderr); code != 1 || strings.Contains(doc.String(), " 0 of 0 ") || !strings.Contains(doc.String(), tc.doc) {
				t.Errorf("doctor: exit %d; want 1, no 0 of 0, and %q:\n%s", code, tc.doc, &doc)
			}
			// --json prints the whole report.
			var js bytes.Buffer
			if code := run([]string{"doctor", "--json", "--salvage", filepath.Join(home, "again.db")}, &js, &stderr); code != tc.code {
				t.Fatalf("salvage --json: exit %d; want %d\n%s%s", code, tc.code, &js, &stderr)
			}
			var rep store.SalvageReport
			if err := json.Unmarshal(js.Bytes(), &rep); err != nil || rep.Count != tc.count || !rep.Scanned || rep.Complete != (tc.code == 0) {
				t.Fatalf("salvage --json: %v, count %s, complete %v; want %s, %v\n%s", err, rep.Count, rep.Complete, tc.count, tc.code == 0, &js)
			}
			// Giving up what it lacks is the user's choice to make.
			if tc.code != 0 {
				var accepted bytes.Buffer
				if code := run([]string{"doctor", "--salvage", filepath.Join(home, "accepted.db"), "--accept-loss"}, &accepted, &stderr); code != 0 || !strings.Contains(accepted.String(), "mv ") {
					t.Errorf("salvage --accept-loss: exit %d; want 0 and how to put the copy in place\n%s%s", code, &accepted, &stderr)
				}
			}
		})
	}
}

// cut truncates the file at path to 60 % of its pages in use.
func cut(t *testing.T, path string) {
	t.Helper()
	var used int64
	if err := storetest.View(path, func(tx storetest.Tx) error { used = tx.Size(); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, used*6/10); err != nil {
		t.Fatal(err)
	}
}

// A file a newer workrail wrote is refused by salvage as a daemon
// refuses it, naming both versions; no copy is made, so none is offered.
func TestSalvageRefusesANewerSchema(t *testing.T) {
	home := damagedHome(t, 3, func(storetest.Tx) []int64 { return nil })
	path := filepath.Join(home, "workrail.db")
	newer := store.SchemaVersion + 1
	err := storetest.Update(path, func(tx storetest.Tx) error { return tx.SetSchema(uint64(newer)) })
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(home, "new.db")
	var stdout, stderr bytes.Buffer
	code := run([]string{"doctor", "--salvage", out}, &stdout, &stderr)
	want := fmt.Sprintf("has database schema %d, and this workrail reads schema %d at most", newer, store.SchemaVersion)
	if code != 1 || !strings.Contains(stderr.String(), want) || strings.Contains(stdout.String(), "mv ") {
		t.Fatalf("salvage of a schema %d file: exit %d\n%s%s\nwant exit 1 and %q", newer, code, &stdout, &stderr, want)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused salvage left %s (%v)", out, err)
	}
}
