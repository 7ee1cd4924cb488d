package workflows_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/sources"
	"github.com/workrail/workrail/workflows"
)

// An allowance is a prompt saying a value may be empty: `"field": "<…,
// or empty string>"`, "`field` … (empty string otherwise)", "field may be
// empty", "leave field empty", "leave empty string if …" after a field,
// "field (empty string if none)", "field is set (empty string is valid)",
// "field is set (may be empty object)". The second group, when there is
// one, says what kind of empty value (string, object, list or array).
var allowances = []*regexp.Regexp{
	regexp.MustCompile(`"(\w+)"\s*:\s*"<[^">]*\bor (?:an )?empty(?: string)?\b[^">]*>"`),
	regexp.MustCompile("`(\\w+)`[^.\\n]*\\((?:an )?empty string otherwise\\)"),
	regexp.MustCompile("`?(\\w+)`?\\s+(?:may|can) be (?:an )?empty"),
	regexp.MustCompile("`(\\w+)`[^.\\n]*\\. Leave (?:it )?empty(?: string)?"),
	regexp.MustCompile("`?(\\w+)`?(?:\\s+is set)?\\s*\\((?:use )?(?:an )?empty (string|object|list|array) (?:if none|is valid|otherwise)\\)"),
	regexp.MustCompile("`?(\\w+)`?\\s+is set \\((?:it )?(?:may|can) be (?:an )?empty (string|object|list|array)\\)"),
}

// emptyOf is the empty value an allowance's match names: "" unless it
// says object, list or array.
func emptyOf(m []string) any {
	if len(m) < 3 {
		return ""
	}
	switch m[2] {
	case "object":
		return map[string]any{}
	case "list", "array":
		return []any{}
	}
	return ""
}

// library lists the workflow files of a library folder, as the daemon
// reads it.
func library(t *testing.T, dir string) []catalog.File {
	t.Helper()
	paths, _, err := sources.Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []catalog.File
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, catalog.File{Name: p, Data: b})
	}
	return files
}

// TestPromptAllowancesAreAccepted reads every prompt of the library (the
// fixtures, and the TypeScript WorkRail's own library when
// WORKRAIL_TS_DIR names its checkout) for a value it says may be empty,
// and checks that WorkRail accepts that value empty: in the artifact the
// step requires (its contract's example with the value emptied passes)
// or, for a context value, at the boundary.
func TestPromptAllowancesAreAccepted(t *testing.T) {
	dirs := []string{legacyDir}
	if ts := os.Getenv("WORKRAIL_TS_DIR"); ts != "" {
		dirs = append(dirs, filepath.Join(ts, "workflows"))
	} else {
		t.Log("WORKRAIL_TS_DIR is not set: only the fixtures' prompts are read (set it to a TypeScript WorkRail checkout to read its library too)")
	}
	bundled, _ := catalog.LoadFS(workflows.FS, catalog.Source{Kind: catalog.Bundled})
	found := 0
	for _, dir := range dirs {
		entries, problems := catalog.LoadSet(library(t, dir), catalog.Source{Kind: catalog.User, Path: dir}, catalog.RoutinesOf(bundled))
		for _, p := range problems {
			t.Errorf("%s does not load: %v", p.File, p.Problems)
		}
		for _, e := range entries {
			compile.Walk(e.Compiled.Steps, func(n compile.Node) {
				if n.Step == nil {
					return
				}
				text := n.Step.Prompt
				for _, f := range n.Step.Fragments {
					text += "\n" + f.Text
				}
				for _, re := range allowances {
					for _, m := range re.FindAllStringSubmatch(text, -1) {
						found++
						checkEmptyAccepted(t, e, n.Step, m[1], emptyOf(m))
					}
				}
			})
		}
	}
	if found == 0 {
		t.Fatal("no prompt says a value may be empty: the fixtures hold one (output-contracts.json), so the scan is broken")
	}
	t.Logf("%d allowances checked", found)
}

// checkEmptyAccepted checks that field may be the empty value zero where
// step s asks for it.
func checkEmptyAccepted(t *testing.T, e catalog.Entry, s *compile.Step, field string, zero any) {
	t.Helper()
	where := string(e.Compiled.ID) + "/" + string(s.ID) + " " + field
	if s.Output == nil || s.Output.ContractRef == "" || !inExample(e.Compiled, s.Output.ContractRef, field) {
		ctx := map[string]any{field: zero}
		if _, err := protocol.CheckContext(e.Compiled.Workflow, ctx, false); err != nil {
			t.Errorf("%s: an empty context value is refused: %v", where, err)
		}
		return
	}
	var art map[string]any
	json.Unmarshal(e.Compiled.Contracts[s.Output.ContractRef].Example, &art)
	empty(art, field, zero)
	b, _ := json.Marshal(art)
	ev := outcome.Judge(e.Compiled, s, outcome.Attempt{Notes: "Did the step.", Artifacts: []json.RawMessage{b}})
	for _, r := range ev.Reasons {
		if r.ContractRef == s.Output.ContractRef {
			t.Errorf("%s: the prompt allows it empty, but %s refuses it: %s", where, s.Output.ContractRef, r.Detail)
		}
	}
}

// inExample reports whether the example of contract ref has a member
// named field, at any depth.
func inExample(c compile.Compiled, ref workflow.ContractRef, field string) bool {
	return strings.Contains(string(c.Contracts[ref].Example), `"`+field+`":`)
}

// empty sets every member named field in v to zero.
func empty(v any, field string, zero any) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if k == field {
				x[k] = zero
				continue
			}
			empty(val, field, zero)
		}
	case []any:
		for _, val := range x {
			empty(val, field, zero)
		}
	}
}
