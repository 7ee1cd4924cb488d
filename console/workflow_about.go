package console

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// loadWarning is a load warning as the workflow page shows it, its
// pointer resolved to the line of the source file it points into (0 when
// it points nowhere the file has).
type loadWarning struct {
	catalog.Notice
	Line int
}

// loadWarnings are an entry's warnings with their lines.
func loadWarnings(e catalog.Entry) []loadWarning {
	out := make([]loadWarning, len(e.Warnings))
	for i, n := range e.Warnings {
		out[i].Notice = n
		if n.Pointer != "" {
			out[i].Line = workflow.Locate(e.Text, workflow.Problem{Pointer: n.Pointer}).Line
		}
	}
	return out
}

// sourceLines splits a file into its lines, for a source view whose
// lines a warning can link to.
func sourceLines(text string) []string {
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

func lineAnchor(n int) string { return fmt.Sprintf("L%d", n) }

// contractRow is one output contract a workflow pins, as a table shows
// it: who declares it, the artifact kinds accepted for it, the fields its
// schema gives an artifact, and its example.
type contractRow struct {
	Ref         workflow.ContractRef
	Declared    bool // by the workflow, not WorkRail
	Description string
	Kinds       []string
	Fields      []contractField
	Example     string
}

// contractField is one top-level property of a contract's schema.
type contractField struct {
	Name, Type, Description string
	Required                bool
}

// contractRows lists a compiled workflow's contracts by ref.
func contractRows(c compile.Workflow) []contractRow {
	var out []contractRow
	for _, ref := range slices.Sorted(maps.Keys(c.Contracts)) {
		p := c.Contracts[ref]
		_, builtin := compile.Pack(ref)
		out = append(out, contractRow{Ref: ref, Declared: !builtin, Description: p.Description,
			Kinds: append([]string{string(ref)}, p.Kinds...), Fields: schemaFields(p.Schema), Example: indent(p.Example)})
	}
	return out
}

// schemaFields reads the top-level properties of an object schema, the
// required ones first, each group by name.
func schemaFields(schema json.RawMessage) []contractField {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var out []contractField
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		var p struct {
			Description string `json:"description"`
		}
		json.Unmarshal(s.Properties[name], &p)
		out = append(out, contractField{Name: name, Type: typeText(s.Properties[name]), Description: p.Description,
			Required: slices.Contains(s.Required, name)})
	}
	slices.SortStableFunc(out, func(a, b contractField) int {
		switch {
		case a.Required == b.Required:
			return 0
		case a.Required:
			return -1
		}
		return 1
	})
	return out
}

// typeText says in a few words what values a property schema allows.
func typeText(prop json.RawMessage) string {
	var p struct {
		Type  any               `json:"type"`
		Const json.RawMessage   `json:"const"`
		Enum  []json.RawMessage `json:"enum"`
		Items json.RawMessage   `json:"items"`
	}
	if json.Unmarshal(prop, &p) != nil {
		return ""
	}
	switch {
	case p.Const != nil:
		return "always " + string(p.Const)
	case p.Enum != nil:
		vals := make([]string, len(p.Enum))
		for i, v := range p.Enum {
			vals[i] = string(v)
		}
		return "one of " + strings.Join(vals, ", ")
	}
	switch t := p.Type.(type) {
	case string:
		if t == "array" && p.Items != nil {
			if it := typeText(p.Items); it != "" {
				return "array of " + it
			}
		}
		return t
	case []any:
		var ts []string
		for _, x := range t {
			ts = append(ts, fmt.Sprint(x))
		}
		return strings.Join(ts, " or ")
	}
	return "any"
}

// shown is the compiled workflow the page describes: the pinned version
// in the pinned view, the current definition otherwise.
func (v workflowView) shown() compile.Workflow {
	if v.View == viewPinned && v.Snapshot != nil {
		return v.Snapshot.Compiled.Workflow
	}
	return v.Entry.Compiled.Workflow
}

// hasAbout says whether the workflow says anything about itself beyond
// its description.
func hasAbout(c compile.Workflow) bool {
	return c.About != "" || len(c.Preconditions) > 0 || len(c.Examples) > 0 || len(c.ClarificationPrompts) > 0 ||
		len(c.MetaGuidance) > 0 || len(c.References) > 0 || len(c.FunctionDefinitions) > 0 || c.MetricsProfile != "" ||
		c.Notes != ""
}

// dialectTitle names an authoring dialect for people.
func dialectTitle(d compile.Dialect) string {
	if d == compile.DialectTS {
		return "the TypeScript WorkRail's format (" + string(d) + ")"
	}
	return string(d)
}

// paramsText is a function's parameters as a signature shows them.
func paramsText(ps []workflow.FunctionParam) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.Name + " " + p.Type
		if !p.Required {
			s[i] += "?"
		}
	}
	return "(" + strings.Join(s, ", ") + ")"
}
