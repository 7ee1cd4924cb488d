package console_test

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/sources"
	"github.com/workrail/workrail/workflows"
)

// desk is the Console over real workflow folders: a user folder holding
// user.greet, and a workspace a session was started in.
type desk struct {
	h          http.Handler
	root       string
	user, ws   string
	token      string
	greetBytes string
}

func greetFile(version string) string {
	return "{\n  \"id\": \"user.greet\",\n  \"name\": \"Greet\",\n  \"description\": \"Say hi.\",\n  \"version\": \"" + version + "\",\n" +
		"  \"steps\": [\n    { \"id\": \"hi\", \"title\": \"Say hi\", \"prompt\": \"Say hi.\" }\n  ]\n}\n"
}

func newDesk(t *testing.T) desk {
	t.Helper()
	root := t.TempDir()
	d := desk{root: root, user: filepath.Join(root, "user"), ws: filepath.Join(root, "ws"), greetBytes: greetFile("1")}
	for _, dir := range []string{d.user, d.ws} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(d.user, "greet.json"), []byte(d.greetBytes), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := sources.New(workflows.FS, []catalog.Source{{Kind: catalog.User, Path: d.user}})
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New()
	x := execute.New(st, executetest.Ring(t), reg, workflow.Preferences{}, executetest.Clock, t.Logf)
	if _, ok := x.Start(context.Background(), []byte(`{"workflowId":"wr.hello","workspacePath":`+strconv.Quote(d.ws)+`}`)).(protocol.StepResult); !ok {
		t.Fatal("start failed")
	}
	clock := func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }
	r := chi.NewRouter()
	console.New(console.Config{Store: st, Workflows: reg, Files: reg, Secret: []byte("test secret"), Now: clock, Logf: t.Logf,
		About: console.About{Version: "test", StartedAt: clock()}}).Routes(r)
	d.h = r
	_, page := getPath(t, r, "/workflows")
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]{64})"|X-CSRF-Token&#34;:&#34;([0-9a-f]{64})`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no CSRF token on the workflows page")
	}
	d.token = m[1] + m[2]
	return d
}

// post sends a form as a browser without scripts would, with the token
// unless form sets csrf itself.
func (d desk) post(t *testing.T, path string, form url.Values) *httptest.ResponseRecorder {
	t.Helper()
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", d.token)
	}
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	d.h.ServeHTTP(rec, req)
	return rec
}

// files is every file under the desk's folders and its bytes.
func (d desk) files(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(d.root, func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			b, _ := os.ReadFile(path)
			out[strings.TrimPrefix(path, d.root)] = string(b)
		}
		return nil
	})
	return out
}

// scrub replaces the desk's temp folder in a page, for goldens.
func (d desk) scrub(page string) string { return strings.ReplaceAll(page, d.root, "/tmp/desk") }

// editForm is the editor's form as the editor page filled it in, with
// text in the textarea.
func editForm(t *testing.T, page, text string) url.Values {
	t.Helper()
	form := url.Values{}
	for _, name := range []string{"base", "eol", "kind", "folder", "file"} {
		m := regexp.MustCompile(`name="` + name + `" value="([^"]*)"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("the editor has no %s field", name)
		}
		form.Set(name, unescape(m[1]))
	}
	form.Set("text", text)
	form.Set("action", "save")
	return form
}

func unescape(s string) string {
	return strings.NewReplacer("&#34;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#39;", "'").Replace(s)
}

func TestEditorPage(t *testing.T) {
	d := newDesk(t)
	code, page := getPath(t, d.h, "/workflows/user.greet/edit")
	if code != http.StatusOK {
		t.Fatalf("GET the editor = %d", code)
	}
	golden.Check(t, filepath.Join("testdata", "editor.html"), []byte(d.scrub(page)))
	for _, want := range []string{
		`name="base" value="` + catalog.HashFile([]byte(d.greetBytes)).String() + `"`,
		`name="csrf" value="` + d.token + `"`,
		"<textarea id=\"text\" name=\"text\"",
		`hx-post="/workflows/check"`, `hx-trigger="input changed delay:300ms"`,
		"No problems: user.greet version 1 loads",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the editor lacks %s", want)
		}
	}
	if text := between(page, "hx-sync=\"this:replace\">\n", "</textarea>"); unescape(text) != d.greetBytes {
		t.Errorf("the textarea holds %q; want the file", text)
	}
}

// TestBuiltinsPanelListsEveryRegistryEntry: every name of every registry
// the reader and compiler know has its entry, with a snippet, in the
// editor's side panel.
func TestBuiltinsPanelListsEveryRegistryEntry(t *testing.T) {
	_, page := getPath(t, newDesk(t).h, "/workflows/user.greet/edit")
	var names []string
	for _, f := range workflow.Features() {
		names = append(names, string(f))
	}
	names = append(names, workflow.Templates()...)
	for _, c := range workflow.Contracts() {
		names = append(names, string(c))
	}
	for _, c := range workflow.Capabilities() {
		names = append(names, string(c))
	}
	for _, op := range workflow.Operators() {
		names = append(names, string(op))
	}
	for _, k := range workflow.LoopKinds() {
		names = append(names, string(k))
	}
	for _, c := range workflow.CriterionTypes() {
		names = append(names, string(c))
	}
	names = append(names, workflow.LoopVariables()...)
	for _, name := range names {
		i := strings.Index(page, `data-builtin="`+name+`"`)
		if i < 0 {
			t.Errorf("the builtins panel lacks %s", name)
			continue
		}
		if entry := page[i:]; !strings.Contains(entry[:strings.Index(entry, "</li>")], `class="insert" data-snippet="`) {
			t.Errorf("%s has no snippet to insert", name)
		}
	}
}

func TestEditorOffersAForkOfABundledWorkflow(t *testing.T) {
	d := newDesk(t)
	code, page := getPath(t, d.h, "/workflows/wr.hello/edit")
	if code != http.StatusOK || strings.Contains(page, "<textarea") ||
		!strings.Contains(page, `action="/workflows/wr.hello/fork"`) || !strings.Contains(page, `name="name" value="hello"`) ||
		!strings.Contains(page, `name="title" value="Hello, WorkRail (fork)"`) {
		t.Fatalf("GET /workflows/wr.hello/edit = %d; want the fork offer, no editor:\n%s", code, page)
	}
	for path, want := range map[string]string{
		"/workflows/wr.hello":               `data-testid="fork">Fork to my namespace`,
		"/workflows/wr.hello?view=compiled": `<span class="read-only" data-testid="read-only">Read-only: bundled with WorkRail`,
		"/workflows/user.greet":             `href="/workflows/user.greet/edit" data-testid="edit">Edit`,
		"/workflows":                        `href="/workflows/new" data-testid="new-workflow">New workflow`,
	} {
		if _, page := getPath(t, d.h, path); !strings.Contains(page, want) {
			t.Errorf("%s lacks %s", path, want)
		}
	}
	for _, path := range []string{"/workflows/user.nope/edit", "/workflows/user.greet/edit?workspace=/not/seen"} {
		if code, _ := getPath(t, d.h, path); code != http.StatusNotFound {
			t.Errorf("GET %s = %d; want 404", path, code)
		}
	}
}

// A file that does not load opens in the editor by the id it names, with
// its problems marked, so it can be fixed where it is.
func TestEditorOpensAFileThatDoesNotLoad(t *testing.T) {
	d := newDesk(t)
	broken := strings.Replace(d.greetBytes, `"prompt"`, `"promt"`, 1)
	os.WriteFile(filepath.Join(d.user, "greet.json"), []byte(broken), 0o644)
	code, page := getPath(t, d.h, "/workflows/user.greet/edit")
	if code != http.StatusOK || !strings.Contains(page, `data-line="7" data-col="38"`) || !strings.Contains(unescape(page), broken) {
		t.Fatalf("GET the editor of a broken file = %d:\n%s", code, page)
	}
	fixed := greetFile("2")
	if rec := d.post(t, "/workflows/user.greet/edit", editForm(t, page, fixed)); rec.Code != http.StatusSeeOther {
		t.Fatalf("saving the fix = %d:\n%s", rec.Code, rec.Body.String())
	}
	if b, _ := os.ReadFile(filepath.Join(d.user, "greet.json")); string(b) != fixed {
		t.Fatalf("the file holds %s", b)
	}
}

// TestCheck: the fragment the editor swaps in as the reader types puts
// each problem at its line and column, marks the line, and says what was
// meant where the validator knows.
func TestCheck(t *testing.T) {
	d := newDesk(t)
	valid := greetFile("2")
	for _, tc := range []struct {
		name, text, kind string
		line, col        int
		want             []string
	}{
		{name: "typo in a key", text: strings.Replace(valid, `"prompt"`, `"promt"`, 1), kind: "user", line: 7, col: 38,
			want: []string{`Did you mean <code>prompt</code>?`, "    7 │ </span>    { &#34;id&#34;: &#34;hi&#34;"}},
		{name: "syntax", text: strings.Replace(valid, `"version": "2",`, `"version": "2"`, 1), kind: "user", line: 6, col: 3,
			want: []string{"invalid JSON"}},
		{name: "wrong type", text: strings.Replace(valid, `"Say hi."`, `7`, 1), kind: "project", line: 4, col: 3,
			want: []string{"/description"}},
		{name: "reserved", text: strings.Replace(valid, "user.greet", "wr.greet", 1), kind: "config", line: 2, col: 3,
			want: []string{"reserved for workflows bundled with WorkRail", "repo.greet"}},
		{name: "valid", text: valid, kind: "user",
			want: []string{"No problems: user.greet version 2 loads", `<code>hi</code> Say hi`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := d.post(t, "/workflows/check", url.Values{"text": {tc.text}, "kind": {tc.kind}})
			page := rec.Body.String()
			if rec.Code != http.StatusOK || !strings.HasPrefix(page, `<section id="check"`) {
				t.Fatalf("POST /workflows/check = %d:\n%s", rec.Code, page)
			}
			if tc.line > 0 {
				at := `data-line="` + strconv.Itoa(tc.line) + `" data-col="` + strconv.Itoa(tc.col) + `"><code>` +
					strconv.Itoa(tc.line) + ":" + strconv.Itoa(tc.col) + "</code></a>"
				if !strings.Contains(page, at) {
					t.Errorf("the problem is not at %d:%d:\n%s", tc.line, tc.col, page)
				}
				caret := strings.Repeat(" ", tc.col-1) + "^"
				if !strings.Contains(page, `<span class="caret">`+caret+"</span>") {
					t.Errorf("no caret under column %d:\n%s", tc.col, page)
				}
			}
			for _, want := range tc.want {
				if !strings.Contains(page, want) {
					t.Errorf("the check lacks %s:\n%s", want, page)
				}
			}
			if tc.name == "typo in a key" {
				golden.Check(t, filepath.Join("testdata", "editor_check.html"), []byte(page))
			}
		})
	}
	if rec := d.post(t, "/workflows/check", url.Values{"text": {valid}, "kind": {"bundled"}}); rec.Code != http.StatusNotFound {
		t.Errorf("a check as a bundled file = %d; want 404", rec.Code)
	}
}

// TestSave: a save with the base it loaded replaces the file and goes to
// the workflow; a stale base is a 409 beside the file on disk with the
// reader's text kept; invalid text is a 422 with its problems; either
// way the file is untouched.
func TestSave(t *testing.T) {
	v2 := greetFile("2")
	for _, tc := range []struct {
		name   string
		text   string
		before func(d desk) // between loading the editor and saving
		form   func(url.Values)
		code   int
		want   []string
		onDisk string // greet.json after the post: "" unchanged, "-" gone
		lost   bool   // the page does not keep the reader's text (a form that was tampered with)
	}{
		{name: "saved", text: v2, code: http.StatusSeeOther, onDisk: v2},
		{name: "id renamed", text: strings.Replace(v2, "user.greet", "user.hello_there", 1), code: http.StatusSeeOther,
			onDisk: strings.Replace(v2, "user.greet", "user.hello_there", 1)},
		{name: "changed on disk", text: v2, code: http.StatusConflict,
			before: func(d desk) { os.WriteFile(filepath.Join(d.user, "greet.json"), []byte(greetFile("theirs")), 0o644) },
			want: []string{"was changed on disk after you opened it", `data-testid="disk-version"`, "&#34;version&#34;: &#34;theirs&#34;",
				`<span class="del">-  &#34;version&#34;: &#34;theirs&#34;,</span>`, `<span class="add">+  &#34;version&#34;: &#34;2&#34;,</span>`,
				`name="base" value="` + catalog.HashFile([]byte(greetFile("theirs"))).String() + `"`},
		},
		{name: "removed on disk", text: v2, code: http.StatusConflict,
			before: func(d desk) { os.Remove(filepath.Join(d.user, "greet.json")) },
			want:   []string{"was removed from disk after you opened it", "The file is gone."}, onDisk: "-"},
		{name: "invalid", text: strings.Replace(v2, `"prompt"`, `"promt"`, 1), code: http.StatusUnprocessableEntity,
			want: []string{"Not saved: the workflow does not load.", `data-line="7" data-col="38"`, "Did you mean <code>prompt</code>?"}},
		{name: "wr namespace", text: strings.Replace(v2, "user.greet", "wr.greet", 1), code: http.StatusUnprocessableEntity,
			want: []string{"reserved for workflows bundled with WorkRail"}},
		{name: "legacy id", text: strings.Replace(v2, "user.greet", "greet_old", 1), code: http.StatusUnprocessableEntity,
			want: []string{`Not saved: the id &#34;greet_old&#34; has no namespace, and the Console saves only namespaced ids: change it to &#34;user.greet_old&#34;.`,
				"Files already on disk with a legacy id keep loading and running as they are.", `class="summary bad"`}},
		{name: "check only", text: v2, form: func(f url.Values) { f.Set("action", "check") }, code: http.StatusOK,
			want: []string{"No problems: user.greet version 2 loads"}},
		{name: "bundled", text: v2, form: func(f url.Values) { f.Set("kind", "bundled") }, code: http.StatusUnprocessableEntity,
			want: []string{"nothing was saved"}, lost: true},
		{name: "outside the folders", text: v2, form: func(f url.Values) { f.Set("folder", "/etc") }, code: http.StatusForbidden,
			want: []string{"is not a user workflow folder WorkRail reads"}},
		{name: "traversal", text: v2, form: func(f url.Values) { f.Set("file", "../greet.json") }, code: http.StatusUnprocessableEntity,
			want: []string{"a workflow file is named like my_review.json"}},
		{name: "no base", text: v2, form: func(f url.Values) { f.Del("base") }, code: http.StatusUnprocessableEntity, lost: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDesk(t)
			_, editor := getPath(t, d.h, "/workflows/user.greet/edit")
			if tc.before != nil {
				tc.before(d)
			}
			before := d.files(t)
			form := editForm(t, editor, tc.text)
			if tc.form != nil {
				tc.form(form)
			}
			rec := d.post(t, "/workflows/user.greet/edit", form)
			page := rec.Body.String()
			if rec.Code != tc.code {
				t.Fatalf("POST = %d; want %d:\n%s", rec.Code, tc.code, page)
			}
			for _, want := range tc.want {
				if !strings.Contains(page, want) {
					t.Errorf("the page lacks %s:\n%s", want, page)
				}
			}
			if tc.code != http.StatusSeeOther && !tc.lost {
				// The reader's text is on the page, to save again.
				if !strings.Contains(page, `<textarea id="text" name="text"`) || !strings.Contains(unescape(page), tc.text) {
					t.Errorf("the refusal does not keep the reader's text")
				}
			}
			after := d.files(t)
			switch tc.onDisk {
			case "":
				if !equalFiles(before, after) {
					t.Errorf("the folders changed:\nbefore %v\nafter  %v", before, after)
				}
			case "-":
				if _, ok := after["/user/greet.json"]; ok || len(after) != len(before) {
					t.Errorf("a refused save wrote %v", after)
				}
			default:
				if after["/user/greet.json"] != tc.onDisk || len(after) != len(before) {
					t.Errorf("after the save the folders hold %v", after)
				}
				id := catalog.IDOf([]byte(tc.onDisk))
				if got := rec.Header().Get("Location"); got != "/workflows/"+string(id)+"?view=source" {
					t.Errorf("the save goes to %s", got)
				}
			}
		})
	}
}

func equalFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A conflict's second save, from the page that showed it, replaces the
// file on disk with the reader's text: nothing typed was lost.
func TestSaveAfterConflict(t *testing.T) {
	d := newDesk(t)
	_, editor := getPath(t, d.h, "/workflows/user.greet/edit")
	os.WriteFile(filepath.Join(d.user, "greet.json"), []byte(greetFile("theirs")), 0o644)
	conflict := d.post(t, "/workflows/user.greet/edit", editForm(t, editor, greetFile("mine")))
	if conflict.Code != http.StatusConflict {
		t.Fatalf("first save = %d", conflict.Code)
	}
	page := conflict.Body.String()
	text := unescape(between(page, "wrap=\"off\">\n", "</textarea>"))
	if rec := d.post(t, "/workflows/user.greet/edit", editForm(t, page, text)); rec.Code != http.StatusSeeOther {
		t.Fatalf("save from the conflict page = %d:\n%s", rec.Code, rec.Body.String())
	}
	if b, _ := os.ReadFile(filepath.Join(d.user, "greet.json")); string(b) != greetFile("mine") {
		t.Fatalf("the file holds %s", b)
	}
}

// A file whose lines end in CRLF keeps them: a browser sends CRLF
// whatever the file had, and the editor saves what the file had.
func TestSaveKeepsLineEnds(t *testing.T) {
	d := newDesk(t)
	crlf := strings.ReplaceAll(greetFile("1"), "\n", "\r\n")
	os.WriteFile(filepath.Join(d.user, "greet.json"), []byte(crlf), 0o644)
	_, editor := getPath(t, d.h, "/workflows/user.greet/edit")
	if rec := d.post(t, "/workflows/user.greet/edit", editForm(t, editor, strings.ReplaceAll(greetFile("2"), "\n", "\r\n"))); rec.Code != http.StatusSeeOther {
		t.Fatalf("save = %d:\n%s", rec.Code, rec.Body.String())
	}
	if b, _ := os.ReadFile(filepath.Join(d.user, "greet.json")); string(b) != strings.ReplaceAll(greetFile("2"), "\n", "\r\n") {
		t.Fatalf("the file holds %q", b)
	}
}

// TestSaveInSubfolder: a workflow whose file is in a subfolder of its
// source folder (a library's routines/) is edited in place, never
// written as a new file at the top of the folder, even when a file of
// the same name is there.
func TestSaveInSubfolder(t *testing.T) {
	d := newDesk(t)
	sub := filepath.Join(d.user, "routines")
	deep := strings.ReplaceAll(greetFile("1"), "user.greet", "user.deep")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(sub, "greet.json"), []byte(deep), 0o644)
	_, editor := getPath(t, d.h, "/workflows/user.deep/edit")
	saved := strings.ReplaceAll(greetFile("2"), "user.greet", "user.deep")
	if rec := d.post(t, "/workflows/user.deep/edit", editForm(t, editor, saved)); rec.Code != http.StatusSeeOther {
		t.Fatalf("save = %d:\n%s", rec.Code, rec.Body.String())
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "greet.json")); string(b) != saved {
		t.Fatalf("routines/greet.json holds %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(d.user, "greet.json")); string(b) != d.greetBytes {
		t.Fatalf("the file of the same name at the top was changed: %q", b)
	}
}

// TestForkAndNew: a bundled workflow is forked, id renamed and every
// other byte kept, into the user's or a project's namespace, and a new
// workflow starts from the starter; each opens in the editor and loads.
func TestForkAndNew(t *testing.T) {
	hello, _ := fs.ReadFile(workflows.FS, "wr.hello.json")
	for _, tc := range []struct {
		name, path string
		form       url.Values
		code       int
		location   string
		file       string // created, relative to the desk; "" for none
		want       string // on the page
	}{
		{name: "fork to user", path: "/workflows/wr.hello/fork", form: url.Values{"name": {"hello"}}, code: http.StatusSeeOther,
			location: "/workflows/user.hello/edit", file: "/user/user.hello.json"},
		{name: "fork to project", path: "/workflows/wr.hello/fork", form: url.Values{"name": {"hello"}, "workspace": {"WS"}, "title": {"Team hello"}},
			code: http.StatusSeeOther, location: "/workflows/project.hello/edit?workspace=WS", file: "/ws/.workrail/workflows/project.hello.json"},
		{name: "fork over an existing file", path: "/workflows/wr.hello/fork", form: url.Values{"name": {"greet_copy"}},
			code: http.StatusConflict, want: "already exists"},
		{name: "fork with a bad name", path: "/workflows/wr.hello/fork", form: url.Values{"name": {"../Hello"}},
			code: http.StatusUnprocessableEntity, want: "A name is lower-case letters"},
		{name: "fork of a user workflow", path: "/workflows/user.greet/fork", form: url.Values{"name": {"x"}}, code: http.StatusNotFound},
		{name: "fork to an unknown workspace", path: "/workflows/wr.hello/fork", form: url.Values{"name": {"x"}, "workspace": {"/etc"}},
			code: http.StatusNotFound},
		{name: "new in user", path: "/workflows/new", form: url.Values{"name": {"review"}}, code: http.StatusSeeOther,
			location: "/workflows/user.review/edit", file: "/user/user.review.json"},
		{name: "new in project", path: "/workflows/new", form: url.Values{"name": {"review"}, "workspace": {"WS"}}, code: http.StatusSeeOther,
			location: "/workflows/project.review/edit?workspace=WS", file: "/ws/.workrail/workflows/project.review.json"},
		{name: "new with no name", path: "/workflows/new", form: url.Values{"name": {""}}, code: http.StatusUnprocessableEntity,
			want: "A name is lower-case letters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDesk(t)
			os.WriteFile(filepath.Join(d.user, "user.greet_copy.json"), []byte(d.greetBytes), 0o644)
			if ws := tc.form.Get("workspace"); ws == "WS" {
				tc.form.Set("workspace", d.ws)
			}
			before := d.files(t)
			rec := d.post(t, tc.path, tc.form)
			if rec.Code != tc.code {
				t.Fatalf("POST %s = %d; want %d:\n%s", tc.path, rec.Code, tc.code, rec.Body.String())
			}
			if !strings.Contains(rec.Body.String(), tc.want) {
				t.Errorf("the page lacks %s:\n%s", tc.want, rec.Body.String())
			}
			after := d.files(t)
			if tc.file == "" {
				if !equalFiles(before, after) {
					t.Errorf("the folders changed:\nbefore %v\nafter  %v", before, after)
				}
				return
			}
			if got, want := rec.Header().Get("Location"), strings.ReplaceAll(tc.location, "WS", url.QueryEscape(d.ws)); got != want {
				t.Errorf("Location = %s; want %s", got, want)
			}
			text, ok := after[tc.file]
			if !ok || len(after) != len(before)+1 {
				t.Fatalf("created %v; want %s", after, tc.file)
			}
			id := strings.TrimSuffix(filepath.Base(tc.file), ".json")
			title := "Hello, WorkRail (fork)"
			if tc.form.Has("title") {
				title = tc.form.Get("title")
			}
			forked := strings.Replace(strings.Replace(string(hello), `"wr.hello"`, `"`+id+`"`, 1), `"Hello, WorkRail"`, `"`+title+`"`, 1)
			if strings.Contains(tc.path, "fork") && text != forked {
				t.Errorf("the fork is not wr.hello with its id and name renamed:\n%s", text)
			}
			if code, page := getPath(t, d.h, rec.Header().Get("Location")); code != http.StatusOK || !strings.Contains(page, "No problems: "+id) {
				t.Errorf("the new workflow's editor = %d:\n%s", code, page)
			}
		})
	}
	if code, page := getPath(t, newDesk(t).h, "/workflows/new"); code != http.StatusOK || !strings.Contains(page, `action="/workflows/new"`) {
		t.Errorf("GET /workflows/new = %d:\n%s", code, page)
	}
}

// TestPostsWithoutTheTokenWriteNothing: every form of the editor, sent
// without the Console's token, is refused before it is read.
func TestPostsWithoutTheTokenWriteNothing(t *testing.T) {
	d := newDesk(t)
	_, editor := getPath(t, d.h, "/workflows/user.greet/edit")
	before := d.files(t)
	for path, form := range map[string]url.Values{
		"/workflows/user.greet/edit": editForm(t, editor, greetFile("2")),
		"/workflows/wr.hello/fork":   {"name": {"hello"}},
		"/workflows/new":             {"name": {"review"}},
		"/workflows/check":           {"text": {greetFile("2")}, "kind": {"user"}},
	} {
		for _, token := range []string{"", strings.Repeat("0", 64)} {
			form.Set("csrf", token)
			if rec := d.post(t, path, form); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "nothing was changed") {
				t.Errorf("POST %s with token %q = %d", path, token, rec.Code)
			}
		}
	}
	if after := d.files(t); !equalFiles(before, after) {
		t.Fatalf("refused posts changed the folders:\nbefore %v\nafter  %v", before, after)
	}
}

// TestExistingLegacyFileLoadsButIsNotSavedAsIs: a file already on disk
// with a dot-less id loads and opens in the editor, which says it will
// not save it as it is; renaming the id saves.
func TestExistingLegacyFileLoadsButIsNotSavedAsIs(t *testing.T) {
	d := newDesk(t)
	old := strings.Replace(greetFile("1"), "user.greet", "old_greet", 1)
	if err := os.WriteFile(filepath.Join(d.user, "old_greet.json"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	code, editor := getPath(t, d.h, "/workflows/old_greet/edit")
	if code != http.StatusOK || !strings.Contains(editor, "Loads, but not saved from here: the id &#34;old_greet&#34; has no namespace") {
		t.Fatalf("GET the legacy file's editor = %d; want it open, saying it will not save as is:\n%s", code, editor)
	}
	if rec := d.post(t, "/workflows/old_greet/edit", editForm(t, editor, old)); rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("saving the legacy id = %d; want 422", rec.Code)
	}
	if b, _ := os.ReadFile(filepath.Join(d.user, "old_greet.json")); string(b) != old {
		t.Fatal("a refused save changed the file")
	}
	renamed := strings.Replace(old, "old_greet", "user.old_greet", 1)
	if rec := d.post(t, "/workflows/old_greet/edit", editForm(t, editor, renamed)); rec.Code != http.StatusSeeOther {
		t.Fatalf("saving under the suggested id = %d; want 303", rec.Code)
	}
}

// TestEditorWillNotSaveTheLegacyShape: a file in the TypeScript
// WorkRail's format loads and opens in the editor, which says it saves
// only WorkRail's own format and refuses the save, the file untouched.
func TestEditorWillNotSaveTheLegacyShape(t *testing.T) {
	d := newDesk(t)
	ts := "{\n  \"id\": \"user.ts_flow\",\n  \"name\": \"TS flow\",\n  \"description\": \"d\",\n  \"version\": \"1\",\n" +
		"  \"steps\": [{ \"id\": \"a\", \"title\": \"A\", \"prompt\": \"do a\", \"outputContract\": { \"contractRef\": \"wr.contracts.gaps\" } }]\n}\n"
	if err := os.WriteFile(filepath.Join(d.user, "ts_flow.json"), []byte(ts), 0o644); err != nil {
		t.Fatal(err)
	}
	code, editor := getPath(t, d.h, "/workflows/user.ts_flow/edit")
	want := "Loads, but not saved from here: the text is in the TypeScript WorkRail&#39;s format (workrail-ts), and the Console saves only WorkRail&#39;s own format."
	if code != http.StatusOK || !strings.Contains(editor, want) {
		t.Fatalf("GET the legacy file's editor = %d; want it open, saying %s", code, want)
	}
	rec := d.post(t, "/workflows/user.ts_flow/edit", editForm(t, editor, ts))
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "files already in that format keep loading and running as they are") {
		t.Fatalf("saving the legacy shape = %d; want 422 saying the file keeps running", rec.Code)
	}
	if b, _ := os.ReadFile(filepath.Join(d.user, "ts_flow.json")); string(b) != ts {
		t.Fatal("a refused save changed the file")
	}
	canonical := strings.Replace(ts, `"outputContract": {`, `"output": {`, 1)
	if rec := d.post(t, "/workflows/user.ts_flow/edit", editForm(t, editor, canonical)); rec.Code != http.StatusSeeOther {
		t.Fatalf("saving it rewritten in WorkRail's format = %d; want 303", rec.Code)
	}
}
