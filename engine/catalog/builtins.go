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
// compile.Builtins, read from WorkRail's registries, then every routine
// the catalog holds, in catalog order, with the inputs it takes and the
// file it is read from.
func (c *Catalog) Builtins() []compile.Builtin {
	out := compile.Builtins()
	for _, e := range c.All() {
		if e.Compiled.Kind != workflow.KindRoutine {
			continue
		}
		by := string(e.Source.Kind)
		id := string(e.Compiled.ID)
		out = append(out, compile.Builtin{Kind: compile.BuiltinRoutine, Name: id, Description: e.Compiled.Description,
			Where: `a step in "steps" (or a loop's "body"), whose place the routine's steps take at compile time; ` +
				`or a step's "parallelDelegations", to hand it to a subagent; it also starts on its own by id`,
			Snippet: "{\n  \"id\": \"" + path.Base(strings.ReplaceAll(id, ".", "/")) + "\",\n  \"title\": " + strconv.Quote(e.Compiled.Name) +
				",\n  \"template\": { \"id\": \"" + id + "\" }\n}",
			Schema: inputsSchema(e.Compiled.Context),
			Origin: compile.BuiltinOrigin{By: by, File: path.Base(e.File)}})
	}
	return out
}

// inputsSchema is the JSON Schema of the context a workflow declares: an
// object of its inputs, the required ones required.
func inputsSchema(in []workflow.ContextInput) json.RawMessage {
	props := map[string]any{}
	required := []string{}
	for _, i := range in {
		p := map[string]any{"type": i.Type, "description": i.Description}
		if len(i.Enum) > 0 {
			p["enum"] = i.Enum
		}
		props[i.Name] = p
		if i.Required {
			required = append(required, i.Name)
		}
	}
	b, err := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
	if err != nil {
		panic("catalog: inputs schema: " + err.Error())
	}
	return b
}
