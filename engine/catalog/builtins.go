package catalog

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// Builtins is the builtins catalog as this catalog's authors see it:
// compile.Builtins, read from WorkRail's registries, the prompt
// references the legacy reader inlines, then every routine the catalog
// holds, in catalog order, with the arguments it takes and the file it is
// read from.
func (c *Catalog) Builtins() []compile.Builtin {
	out := compile.Builtins()
	for _, r := range workflow.PromptRefs() {
		out = append(out, compile.Builtin{Kind: compile.BuiltinRef, Name: r.ID, Description: r.Text(),
			Where:   `a part of a promptBlocks value, in a file in the TypeScript WorkRail's format; reading the file puts this text in its place`,
			Snippet: `{ "kind": "ref", "refId": "` + r.ID + `" }`,
			Origin:  compile.BuiltinOrigin{By: compile.ByWorkRail, File: "engine/workflow/refs.go"}})
	}
	for _, e := range c.All() {
		if e.Compiled.Kind != workflow.KindRoutine {
			continue
		}
		by := string(e.Source.Kind)
		id := string(e.Compiled.ID)
		args := compile.RoutineArgs(e.Workflow)
		out = append(out, compile.Builtin{Kind: compile.BuiltinRoutine, Name: id, Description: e.Compiled.Description,
			Where: `a step in "steps" (or a loop's "body"), whose place the routine's steps take at compile time; ` +
				`or a step's "parallelDelegations", to hand it to a subagent; it also starts on its own by id`,
			Snippet: routineSnippet(id, e.Compiled.Name, args), Schema: argsSchema(args),
			Origin: compile.BuiltinOrigin{By: by, File: path.Base(e.File)}})
	}
	return out
}

// routineSnippet is a step that calls routine id with each argument it
// takes.
func routineSnippet(id, name string, args []string) string {
	call := `{ "id": "` + id + `"`
	if len(args) > 0 {
		vals := make([]string, len(args))
		for i, a := range args {
			vals[i] = strconv.Quote(a) + `: "…"`
		}
		call += `, "args": { ` + strings.Join(vals, ", ") + ` }`
	}
	return "{\n  \"id\": \"" + path.Base(strings.ReplaceAll(id, ".", "/")) + "\",\n  \"title\": " + strconv.Quote(name) +
		",\n  \"template\": " + call + " }\n}"
}

// argsSchema is the JSON Schema of a routine call's args: every argument
// its text uses, each a string, number or boolean.
func argsSchema(args []string) json.RawMessage {
	props := map[string]any{}
	for _, a := range args {
		props[a] = map[string]any{"type": []string{"string", "number", "boolean"}}
	}
	b, err := json.Marshal(map[string]any{"type": "object", "properties": props, "required": append([]string{}, args...)})
	if err != nil {
		panic("catalog: routine args schema: " + err.Error())
	}
	return b
}
