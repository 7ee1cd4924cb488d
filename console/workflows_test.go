package console_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

// folders is a catalog of the bundled workflows and a user folder.
type folders struct {
	user fstest.MapFS
}

func (f *folders) Catalog(string) *catalog.Catalog {
	bundled, _ := catalog.LoadFS(workflows.FS, catalog.Source{Kind: catalog.Bundled})
	user, problems := catalog.LoadFS(f.user, catalog.Source{Kind: catalog.User, Path: "/home/dev/.config/workrail/workflows"})
	return catalog.New(append(bundled, user...), problems)
}

func greet(version, prompt string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(`{"id":"user.greet","name":"Greet","description":"Say hi.","version":"` + version + `",
  "steps":[{"id":"hi","title":"Say hi","prompt":"` + prompt + `"}]}`)}
}

func TestWorkflowPages(t *testing.T) {
	disk := &folders{user: fstest.MapFS{"greet.json": greet("1", "Say hi.")}}
	st := memstore.New()
	h := serve(t, st, disk)
	x := execute.New(st, executetest.Ring(t), disk, workflow.Preferences{}, executetest.Clock, t.Logf)
	for range 2 {
		if _, ok := x.Start(context.Background(), []byte(`{"workflowId":"user.greet"}`)).(protocol.StepResult); !ok {
			t.Fatal("start failed")
		}
	}
	_, old := getPath(t, h, "/workflows/user.greet?view=compiled")
	disk.user = fstest.MapFS{"greet.json": greet("2", "Say hello."), "broken.json": {Data: []byte(`{"id":"user.broken","steps":[`)}}
	x.Start(context.Background(), []byte(`{"workflowId":"user.greet"}`))

	code, list := getPath(t, h, "/workflows")
	if code != http.StatusOK {
		t.Fatalf("GET /workflows = %d", code)
	}
	for _, want := range []string{
		`<h3 id="src-bundled">Bundled with WorkRail (read-only)</h3>`,
		`<h3 id="src-user">Yours (user folder)</h3>`,
		`data-workflow="wr.hello"`,
		`data-workflow="user.greet"`,
		`△ 2 on older versions`,
		`(meant to define <code>user.broken</code>)`,
	} {
		if !strings.Contains(list, want) {
			t.Errorf("the workflows page lacks %s", want)
		}
	}

	_, source := getPath(t, h, "/workflows/user.greet")
	if !strings.Contains(source, "Say hello.") || !strings.Contains(source, `aria-current="page">source`) {
		t.Error("the source view does not show the file as on disk")
	}
	_, compiled := getPath(t, h, "/workflows/user.greet?view=compiled")
	if !strings.Contains(compiled, "&#34;version&#34;: &#34;2&#34;") {
		t.Error("the compiled view does not show the current compiled workflow")
	}
	// Both versions runs are pinned to are listed, the current one first,
	// and the older one opens by its hash.
	i := strings.Index(compiled, `data-testid="pinned-versions"`)
	if i < 0 || !strings.Contains(compiled[i:], "(current)") || !strings.Contains(compiled[i:], "△ older") {
		t.Fatal("the pinned versions are not listed")
	}
	hash := between(old, `title="sha256:`, `"`)
	code, pinned := getPath(t, h, "/workflows/user.greet?view=pinned&hash=sha256:"+hash)
	if code != http.StatusOK || !strings.Contains(pinned, "&#34;version&#34;: &#34;1&#34;") || !strings.Contains(pinned, "Say hi.") {
		t.Errorf("the pinned view of sha256:%s = %d; want version 1", hash, code)
	}
	// What changed between the pinned version and the current one.
	_, changed := getPath(t, h, "/workflows/user.greet?view=diff&hash=sha256:"+hash)
	for _, want := range []string{`<span class="del">-  &#34;version&#34;: &#34;1&#34;`, `<span class="add">+  &#34;version&#34;: &#34;2&#34;`} {
		if !strings.Contains(changed, want) {
			t.Errorf("the diff view lacks %s", want)
		}
	}
	for _, path := range []string{"/workflows/user.nope", "/workflows/user.greet?view=pinned&hash=bogus",
		"/workflows/user.greet?view=pinned&hash=sha256:" + strings.Repeat("0", 64), "/workflows?workspace=/not/seen"} {
		if code, _ := getPath(t, h, path); code != http.StatusNotFound {
			t.Errorf("GET %s = %d; want 404", path, code)
		}
	}
}

func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i+len(from):]
	return s[:strings.Index(s, to)]
}

// The source → compiled view lays the source out as the compiled form is
// laid out, so it shows only what compiling added or changed: a field
// the author wrote, however formatted, is an unchanged line.
func TestSourceToCompiledView(t *testing.T) {
	src := []byte("{\"steps\":[{\"prompt\":\"Say hi.\",\"title\":\"Say hi\",\"id\":\"hi\"}],\n\n   \"version\":\"1\",\"name\":\"Greet\",\"id\":\"user.greet\",\"description\":\"Say hi.\",\n\"features\":[\"wr.features.durable_notes\"]}")
	disk := &folders{user: fstest.MapFS{"greet.json": {Data: src}}}
	h := serve(t, memstore.New(), disk)
	code, page := getPath(t, h, "/workflows/user.greet?view=expansion")
	if code != http.StatusOK || !strings.Contains(page, `aria-current="page">source → compiled`) {
		t.Fatalf("GET ?view=expansion = %d", code)
	}
	for _, want := range []string{
		`<span class="same">   &#34;id&#34;: &#34;user.greet&#34;,</span>`,
		`<span class="same">   &#34;name&#34;: &#34;Greet&#34;,</span>`,
		`<span class="same">   &#34;version&#34;: &#34;1&#34;</span>`,
		`<span class="add">+  &#34;appliedFeatures&#34;: [</span>`,
		`<span class="add">+        &#34;injections&#34;: [</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the expansion lacks %s", want)
		}
	}
}

// A file over the limits of a workflow is listed among the files that do
// not load, at its place, saying what it expands to.
func TestWorkflowsPageSaysWhatAFileExpandsTo(t *testing.T) {
	calls := make([]string, 501)
	for i := range calls {
		calls[i] = `{"id":"c` + strconv.Itoa(i) + `","title":"Call","template":{"id":"user.pair"}}`
	}
	disk := &folders{user: fstest.MapFS{
		"pair.json": {Data: []byte(`{"id":"user.pair","kind":"routine","name":"Pair","description":"d","version":"1",
"steps":[{"id":"a","title":"A","prompt":"Do a."},{"id":"b","title":"B","prompt":"Do b."}]}`)},
		"calls.json": {Data: []byte(`{"id":"user.calls","name":"Calls","description":"d","version":"1","steps":[
` + strings.Join(calls, ",\n") + `]}`)},
	}}
	_, list := getPath(t, serve(t, memstore.New(), disk), "/workflows")
	want := `502:1: /steps/500: expands to 1,002 steps once its routine calls are expanded, over the limit of 1,000`
	if i := strings.Index(list, `data-testid="load-problem"`); i < 0 || !strings.Contains(list[i:], want) || !strings.Contains(list[i:], "calls.json") {
		t.Errorf("the workflows page does not list calls.json with %q", want)
	}
}
