package console_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

// sharing is a Console with export and import over an in-memory store
// holding ses_1, a run of wr.hello driven to completion.
type sharing struct {
	h       http.Handler
	st      *memstore.Store
	x       *execute.Service
	bundles *counted
	csrf    string
}

// counted is the use cases as the Console calls them, counting its
// imports (dry runs included).
type counted struct {
	console.Bundles
	imports int
}

func (c *counted) Import(b []byte, dryRun bool) (bundle.ImportReport, error) {
	c.imports++
	return c.Bundles.Import(b, dryRun)
}

func newSharing(t *testing.T) *sharing {
	t.Helper()
	s := &sharing{st: memstore.New()}
	wf := executetest.Catalog(t, workflows.FS)
	s.x = execute.New(s.st, executetest.Ring(t), wf, workflow.Preferences{}, executetest.Clock, t.Logf)
	s.bundles = &counted{Bundles: s.x}
	executetest.Drive(t, s.x, "wr.hello", "")
	clock := func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }
	r := chi.NewRouter()
	console.New(console.Config{Store: s.st, Workflows: wf, Runs: s.x, Bundles: s.bundles, About: console.About{Version: "test", StartedAt: clock()},
		Secret: []byte("test secret"), Now: clock, Logf: t.Logf}).Routes(r)
	s.h = r
	_, page := getPath(t, s.h, "/import")
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]{64})"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no CSRF field on the import page")
	}
	s.csrf = m[1]
	return s
}

func (s *sharing) export(t *testing.T, o bundle.ExportOptions) []byte {
	t.Helper()
	b, err := s.x.Export(1, o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (s *sharing) sessions(t *testing.T) int {
	t.Helper()
	ids, err := s.st.SessionIDs()
	if err != nil {
		t.Fatal(err)
	}
	return len(ids)
}

// upload posts the import form: the csrf field (first unless late, none
// when csrf is ""), then the file.
func (s *sharing) upload(t *testing.T, csrf, name string, data []byte, late bool) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	token := func() {
		if csrf != "" {
			w.WriteField("csrf", csrf)
		}
	}
	if !late {
		token()
	}
	f, _ := w.CreateFormFile("bundle", name)
	f.Write(data)
	if late {
		token()
	}
	w.Close()
	req := httptest.NewRequest(http.MethodPost, "/import", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// confirm posts the preview's Confirm form.
func (s *sharing) confirm(t *testing.T, action string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, action, strings.NewReader(url.Values{"csrf": {s.csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

func gz(b []byte) []byte {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	w.Close()
	return z.Bytes()
}

// gzZeros is a gzip file that unpacks to n zero bytes: one member of
// 1 MiB repeated (a gzip reader reads every member), so a test's bomb
// costs no compression of n bytes.
func gzZeros(n int) []byte {
	const member = 1 << 20
	one := gz(make([]byte, member))
	z := bytes.Repeat(one, n/member)
	return append(z, gz(make([]byte, n%member))...)
}

// The session page offers its bundle and its Markdown as downloads named
// for the session; the bundle is the use case's bytes, redacted or
// packed on request.
func TestExportDownloads(t *testing.T) {
	s := newSharing(t)
	code, page := getPath(t, s.h, "/sessions/ses_1")
	if code != http.StatusOK || !strings.Contains(page, `data-testid="export-bundle"`) || !strings.Contains(page, `formaction="/sessions/ses_1/markdown"`) ||
		!strings.Contains(page, `name="redact"`) ||
		!strings.Contains(page, `<a href="/import">Import</a>`) {
		t.Fatalf("the session page offers no export or no import link (%d):\n%s", code, page)
	}
	md, err := s.x.ExportMarkdown(1, bundle.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	redactedMD, err := s.x.ExportMarkdown(1, bundle.ExportOptions{Redact: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, kind, name string
		want             []byte
	}{
		{"/sessions/ses_1/bundle", "application/json", "ses_1.json", s.export(t, bundle.ExportOptions{})},
		{"/sessions/ses_1/bundle?redactNotes=1", "application/json", "ses_1.json", s.export(t, bundle.ExportOptions{RedactNotes: true})},
		{"/sessions/ses_1/bundle?redactNotes=1&gzip=1", "application/gzip", "ses_1.json.gz", gz(s.export(t, bundle.ExportOptions{RedactNotes: true}))},
		{"/sessions/ses_1/bundle?redact=1", "application/json", "ses_1.json", s.export(t, bundle.ExportOptions{Redact: true})},
		{"/sessions/ses_1/markdown", "text/markdown; charset=utf-8", "ses_1.md", []byte(md)},
		{"/sessions/ses_1/markdown?redact=1&gzip=1", "text/markdown; charset=utf-8", "ses_1.md", []byte(redactedMD)},
	} {
		req := httptest.NewRequest(http.MethodGet, tc.path, nil)
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != tc.kind ||
			rec.Header().Get("Content-Disposition") != `attachment; filename="`+tc.name+`"` || !bytes.Equal(rec.Body.Bytes(), tc.want) {
			t.Errorf("GET %s: %d %q %q, %d bytes (want %d)", tc.path, rec.Code, rec.Header().Get("Content-Type"),
				rec.Header().Get("Content-Disposition"), rec.Body.Len(), len(tc.want))
		}
	}
	for _, p := range []string{"/sessions/ses_9/bundle", "/sessions/ses_9/markdown", "/sessions/x/bundle"} {
		if code, _ := getPath(t, s.h, p); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, code)
		}
	}
}

// A session that goes between the check of its URL and its export is
// not found, as the use case says, not an export refused.
func TestExportOfAVanishedSession(t *testing.T) {
	s := newSharing(t)
	s.bundles.Bundles = execute.New(memstore.New(), executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	for _, p := range []string{"/sessions/ses_1/bundle", "/sessions/ses_1/markdown"} {
		if code, page := getPath(t, s.h, p); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404:\n%s", p, code, page)
		}
	}
}

// Without the use cases the Console offers no export and no import.
func TestNoSharingWithoutBundles(t *testing.T) {
	h := consoleWith(t, memstore.New(), 1)
	_, page := getPath(t, h, "/sessions/ses_1")
	if strings.Contains(page, "export-bundle") || strings.Contains(page, `href="/import"`) {
		t.Error("the session page offers sharing without the use cases")
	}
	if code, _ := getPath(t, h, "/import"); code != http.StatusNotFound {
		t.Errorf("GET /import = %d, want 404", code)
	}
}

// An upload is previewed by a dry run (nothing written), held under its
// digest, and imported once on Confirm: a second Confirm lands on the
// same new session.
func TestImportPreviewThenConfirm(t *testing.T) {
	s := newSharing(t)
	b := s.export(t, bundle.ExportOptions{})
	imported := "" // the session the last subtest imported
	for _, tc := range []struct {
		name string
		data []byte
	}{{"ses_1.json", b}, {"ses_1.json.gz", gz(b)}} {
		t.Run(tc.name, func(t *testing.T) {
			before := s.sessions(t)
			rec := s.upload(t, s.csrf, tc.name, tc.data, false)
			page := rec.Body.String()
			action := regexp.MustCompile(`action="(/import/[0-9a-f]{64})"`).FindStringSubmatch(page)
			if rec.Code != http.StatusOK || action == nil || !strings.Contains(page, `data-testid="import-preview"`) ||
				!strings.Contains(page, "Checked: "+tc.name) || !strings.Contains(page, `<dd data-testid="report-runs">1</dd>`) {
				t.Fatalf("preview (%d):\n%s", rec.Code, page)
			}
			if s.sessions(t) != before {
				t.Fatal("the preview wrote a session")
			}
			if !strings.Contains(page, `<li>run_1: Hello, WorkRail <code>wr.hello</code> version 1.1.0</li>`) {
				t.Errorf("the preview does not name the run's workflow:\n%s", page)
			}
			// The second upload is the same session at the same head,
			// which the first confirmed: the preview says so.
			already := regexp.MustCompile(`data-testid="import-already">.*?<a href="/sessions/(ses_\d+)">`).FindStringSubmatch(page)
			if (already != nil) != (imported != "") || (already != nil && already[1] != imported) {
				t.Errorf("the preview says already imported as %v; imported before: %q", already, imported)
			}
			imports := s.bundles.imports
			if code, held := getPath(t, s.h, action[1]); code != http.StatusOK || !strings.Contains(held, `data-testid="import-confirm"`) ||
				!strings.Contains(held, `<dd data-testid="report-runs">1</dd>`) {
				t.Fatalf("the held preview (%d):\n%s", code, held)
			}
			if s.bundles.imports != imports {
				t.Fatal("showing a held preview checked the bundle again")
			}
			var landed string
			for range 2 {
				rec = s.confirm(t, action[1])
				if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != action[1] {
					t.Fatalf("confirm: %d %q:\n%s", rec.Code, rec.Header().Get("Location"), rec.Body)
				}
				_, done := getPath(t, s.h, action[1])
				m := regexp.MustCompile(`href="/sessions/(ses_\d+)" data-testid="imported-session"`).FindStringSubmatch(done)
				if m == nil || (landed != "" && m[1] != landed) {
					t.Fatalf("the result page links no new session, or another one than %q:\n%s", landed, done)
				}
				landed = m[1]
			}
			if s.sessions(t) != before+1 {
				t.Fatalf("%d sessions after confirming twice; want %d", s.sessions(t), before+1)
			}
			imported = landed
			if code, page := getPath(t, s.h, "/sessions/"+landed); code != http.StatusOK || !strings.Contains(page, "wr.hello") {
				t.Errorf("the imported session's page (%d)", code)
			}
		})
	}
}

// A refused upload says why in words, with the envelope's details, and
// writes nothing; an upload without the form token (or with it after the
// file) is refused before the file is read; a confirmation whose upload
// is no longer held says so.
func TestImportRefusals(t *testing.T) {
	s := newSharing(t)
	b := s.export(t, bundle.ExportOptions{})
	tampered := bytes.Replace(b, []byte("Did greet."), []byte("Did greeT."), 1)
	for _, tc := range []struct {
		name, file string
		data       []byte
		csrf       string
		late       bool
		code       int
		want       []string
	}{
		{"no form token", "s.json", b, "", false, http.StatusForbidden, []string{"form token, so nothing was changed"}},
		{"a wrong form token", "s.json", b, strings.Repeat("0", 64), false, http.StatusForbidden, []string{"form token"}},
		{"the token after the file", "s.json", b, "", true, http.StatusForbidden, []string{"form token"}},
		{"a changed note", "s.json", tampered, "ok", false, http.StatusUnprocessableEntity,
			[]string{`data-testid="import-refused"`, "s.json was refused; nothing was written.", "<dt>problem</dt><dd><code>digest_mismatch</code>", "BUNDLE_INVALID"}},
		{"named .json.gz, not gzip", "s.json.gz", b, "ok", false, http.StatusUnprocessableEntity, []string{"is named .json.gz but is not gzip data"}},
		{"too large as sent", "big.json", make([]byte, 32<<20+1), "ok", false, http.StatusRequestEntityTooLarge, []string{"larger than 32 MiB"}},
		{"too large unpacked", "big.json.gz", gzZeros(32<<20 + 1), "ok", false, http.StatusRequestEntityTooLarge,
			[]string{"larger than 32 MiB", "PAYLOAD_TOO_LARGE"}},
		{"no file chosen", "", nil, "ok", false, http.StatusUnprocessableEntity, []string{"choose a bundle file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			csrf := tc.csrf
			if csrf == "ok" || tc.late {
				csrf = s.csrf
			}
			rec := s.upload(t, csrf, tc.file, tc.data, tc.late)
			if rec.Code != tc.code {
				t.Fatalf("%d, want %d:\n%s", rec.Code, tc.code, rec.Body)
			}
			for _, w := range tc.want {
				if !strings.Contains(rec.Body.String(), w) {
					t.Errorf("the page lacks %q:\n%s", w, rec.Body)
				}
			}
			if strings.Contains(rec.Body.String(), `data-testid="import-confirm"`) {
				t.Error("a refused upload offers Confirm")
			}
		})
	}
	if s.sessions(t) != 1 {
		t.Errorf("%d sessions after refusals", s.sessions(t))
	}
	gone := "/import/" + strings.Repeat("ab", 32)
	if rec := s.confirm(t, gone); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), `data-testid="import-gone"`) {
		t.Errorf("confirming an upload not held: %d\n%s", rec.Code, rec.Body)
	}
	if rec := s.confirm(t, "/import/"); rec.Code != http.StatusNotFound {
		t.Errorf("POST /import/ = %d, want 404", rec.Code)
	}
}

// An htmx upload carries the token as a header; its body is read whole.
func TestImportTokenInAHeader(t *testing.T) {
	s := newSharing(t)
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	f, _ := w.CreateFormFile("bundle", "s.json")
	f.Write(s.export(t, bundle.ExportOptions{}))
	w.Close()
	req := httptest.NewRequest(http.MethodPost, "/import", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("X-CSRF-Token", s.csrf)
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	if page, _ := io.ReadAll(rec.Body); rec.Code != http.StatusOK || !bytes.Contains(page, []byte(`data-testid="import-confirm"`)) {
		t.Fatalf("%d:\n%s", rec.Code, page)
	}
}
