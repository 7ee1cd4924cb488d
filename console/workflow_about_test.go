package console_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine/execute/memstore"
)

// TestWorkflowPageShowsWhatTheWorkflowSays: the workflow page shows the
// metadata a workflow carries (about as Markdown, preconditions,
// examples, questions, rules, references, functions, policies), the
// contracts it pins as a table of fields with an example, and its
// assessments' dimensions and levels.
func TestWorkflowPageShowsWhatTheWorkflowSays(t *testing.T) {
	rich, err := os.ReadFile(filepath.Join("testdata", "workflows", "user.rich.json"))
	if err != nil {
		t.Fatal(err)
	}
	h := serve(t, memstore.New(), &folders{user: fstest.MapFS{"rich.json": {Data: rich}}})
	for _, view := range []string{"source", "compiled"} {
		code, page := getPath(t, h, "/workflows/user.rich?view="+view)
		if code != http.StatusOK {
			t.Fatalf("%s view: %d", view, code)
		}
		for _, want := range []string{
			`data-testid="about-text"><p>Use it to <strong>plan</strong> a small change.</p>`,
			`<ul data-testid="preconditions"><li>The repository builds</li>`,
			`<ul data-testid="examples"><li>Plan the retry of failed uploads</li>`,
			`<ul data-testid="clarifications"><li>Which module does the change touch?</li>`,
			`<ul data-testid="rules"><li>Say what you assume.</li>`,
			`<strong>Style guide</strong> <code>docs/STYLE.md</code>`,
			`<code>checkBuild(target string)</code>`,
			`Metrics profile <code>coding</code>.`,
			`Every step needs notes`,
			`data-testid="contract" data-ref="wr.contracts.gaps"`,
			`data-testid="contract-field" data-field="kind"><td data-label="Field"><code>kind</code></td><td data-label="Type">always &#34;wr.contracts.gaps&#34;</td><td data-label="Required">required</td>`,
			`data-field="gaps"><td data-label="Field"><code>gaps</code></td><td data-label="Type">array of object</td>`,
			`data-testid="contract-example">{`,
			`data-testid="contract" data-ref="user.plan_summary"`,
			`<span class="badge">declared by this workflow</span>`,
			`<code data-testid="contract-kind">user.plan_summary</code>, <code data-testid="contract-kind">user.plan</code>`,
			`data-field="steps"><td data-label="Field"><code>steps</code></td><td data-label="Type">array of string</td><td data-label="Required">required</td><td data-label="Description">The plan&#39;s steps, in order.</td>`,
			`data-field="risk"><td data-label="Field"><code>risk</code></td><td data-label="Type">string</td><td data-label="Required">optional</td>`,
			`data-testid="dimension" data-dimension="clarity"`,
			`low · medium · high`,
			`<code>risk</code> <span class="meta">(optional)</span>`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("the %s view lacks %s", view, want)
			}
		}
		if strings.Contains(page, `data-testid="load-warnings"`) || strings.Contains(page, `data-testid="dialect"`) {
			t.Errorf("the %s view of a canonical, namespaced file shows load warnings or a dialect", view)
		}
	}
}

// TestWorkflowPageLinksLoadWarningsToTheirLines: a load warning is shown
// with its code, pointer and message in the source and compiled views,
// linked to the source line its pointer names.
func TestWorkflowPageLinksLoadWarningsToTheirLines(t *testing.T) {
	legacy := "{\n  \"name\": \"Old\",\n  \"id\": \"old_flow\",\n  \"description\": \"d\",\n  \"version\": \"1\",\n" +
		"  \"steps\": [{\"id\": \"a\", \"title\": \"A\", \"prompt\": \"do a\"}]\n}\n"
	h := serve(t, memstore.New(), &folders{user: fstest.MapFS{"old.json": {Data: []byte(legacy)}}})
	_, source := getPath(t, h, "/workflows/old_flow?view=source")
	for _, want := range []string{
		`data-testid="load-warning" data-code="LEGACY_WORKFLOW_ID"`,
		`<a href="#L3" data-testid="warning-line">line 3</a>`,
		`<code class="meta">/id</code>`,
		`Suggested id: <code>user.old_flow</code>`,
		`<span id="L3">  &#34;id&#34;: &#34;old_flow&#34;,`,
	} {
		if !strings.Contains(source, want) {
			t.Errorf("the source view lacks %s", want)
		}
	}
	if _, list := getPath(t, h, "/workflows"); !strings.Contains(list, `<span class="badge drift" data-testid="warnings-badge">△ 1 load warning</span>`) {
		t.Error("the workflows list does not count the file's load warnings")
	}
	_, compiled := getPath(t, h, "/workflows/old_flow?view=compiled")
	if !strings.Contains(compiled, `<a href="/workflows/old_flow?view=source#L3" data-testid="warning-line">line 3</a>`) {
		t.Error("the compiled view does not link the warning to the source line")
	}
}

// TestWorkflowPageOfALegacyFile: a file in the TypeScript WorkRail's
// format names its dialect and rewrites, lists each rewrite's warning
// with its code, linked to the line it points at, and the editor opens
// it but will not save it in that shape.
func TestWorkflowPageOfALegacyFile(t *testing.T) {
	ts, err := os.ReadFile(filepath.Join("testdata", "workflows", "ts-check.json"))
	if err != nil {
		t.Fatal(err)
	}
	h := serve(t, memstore.New(), &folders{user: fstest.MapFS{"ts-check.json": {Data: ts}}})
	code, page := getPath(t, h, "/workflows/user.ts-check?view=source")
	if code != http.StatusOK {
		t.Fatalf("GET the legacy file's page = %d", code)
	}
	for _, want := range []string{
		`data-testid="dialect">Written in the TypeScript WorkRail&#39;s format (workrail-ts)`,
		`<span data-testid="rewrites"><code data-testid="rewrite">CONTEXT_SYNTHESIZED</code>, <code data-testid="rewrite">NOT_EQUALS</code>, <code data-testid="rewrite">OUTPUT_CONTRACT</code></span>.`,
		`data-code="RESERVED_ID_RENAMED" data-rewrite=""`,
		`data-code="LEGACY_FORMAT" data-rewrite="NOT_EQUALS"><code>LEGACY_FORMAT</code> <code>NOT_EQUALS</code> <a href="#L17" data-testid="warning-line">line 17</a>`,
		`data-code="LEGACY_FORMAT" data-rewrite="OUTPUT_CONTRACT"><code>LEGACY_FORMAT</code> <code>OUTPUT_CONTRACT</code> <a href="#L11" data-testid="warning-line">line 11</a>`,
		// The input the format's conditions read is set by the agent during the run.
		`<span class="badge" data-testid="set-during-run">set during the run</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the legacy file's page lacks %s\n%s", want, between(page, `data-testid="dialect"`, "</div>"))
		}
	}
	if _, list := getPath(t, h, "/workflows"); !strings.Contains(list, `data-testid="dialect-badge" title="the TypeScript WorkRail&#39;s format (workrail-ts)">workrail-ts</span>`) {
		t.Error("the workflows list does not mark the legacy file's dialect")
	}
}
