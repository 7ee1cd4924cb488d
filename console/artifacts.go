package console

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// artifact is one recorded artifact as the node panel shows it: a table
// of its fields when its contract's schema says what they are, else its
// JSON, indented.
type artifact struct {
	Kind        string
	Description string
	Fields      []field // nil when no contract describes the artifact
	JSON        string  // the artifact, indented, when Fields is nil
}

// field is one property of an artifact: a value in words, or a table
// when it is a list of objects whose item schema names their columns.
type field struct {
	Name  string
	Value string
	Table *table
}

type table struct {
	Columns []string
	Rows    [][]string
}

// artifactsOf lays out raw artifacts with the contracts of the workflow
// they were recorded under (nil: only WorkRail's own packs).
func artifactsOf(raws []json.RawMessage, contracts map[workflow.ContractRef]compile.ContractPack) []artifact {
	out := make([]artifact, 0, len(raws))
	for _, raw := range raws {
		out = append(out, layoutArtifact(raw, contracts))
	}
	return out
}

func layoutArtifact(raw json.RawMessage, contracts map[workflow.ContractRef]compile.ContractPack) artifact {
	var obj map[string]json.RawMessage
	var head struct {
		Kind string `json:"kind"`
	}
	json.Unmarshal(raw, &head)
	a := artifact{Kind: head.Kind, JSON: clip(indent(raw), maxShownValue)}
	pack, ok := contracts[workflow.ContractRef(head.Kind)]
	if !ok {
		pack, ok = compile.Pack(workflow.ContractRef(head.Kind))
	}
	if !ok || json.Unmarshal(raw, &obj) != nil {
		return a
	}
	a.Description = pack.Description
	props := properties(pack.Schema)
	for _, p := range props {
		v, ok := obj[p.name]
		if !ok || p.name == "kind" {
			continue
		}
		a.Fields = append(a.Fields, fieldOf(p, v))
	}
	if a.Fields != nil {
		a.JSON = ""
	}
	return a
}

// property is one schema property, in the order the schema declares it.
type property struct {
	name   string
	schema json.RawMessage
}

// properties reads a JSON Schema object's "properties": its required ones
// in the order "required" lists them, then the rest in the order the
// schema declares them (a map would lose it; canonical JSON sorts it).
func properties(schema json.RawMessage) []property {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var declared []property
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		declared = append(declared, property{name: k.(string), schema: v})
	}
	out := make([]property, 0, len(declared))
	for _, name := range s.Required {
		if i := slices.IndexFunc(declared, func(p property) bool { return p.name == name }); i >= 0 {
			out = append(out, declared[i])
		}
	}
	for _, p := range declared {
		if !slices.Contains(s.Required, p.name) {
			out = append(out, p)
		}
	}
	return out
}

// fieldOf shows value v of property p: a list of objects becomes a table
// with the item schema's columns.
func fieldOf(p property, v json.RawMessage) field {
	f := field{Name: p.name}
	var items struct {
		Items json.RawMessage `json:"items"`
	}
	json.Unmarshal(p.schema, &items)
	var list []map[string]json.RawMessage
	if cols := properties(items.Items); cols != nil && json.Unmarshal(v, &list) == nil {
		t := &table{}
		for _, c := range cols {
			t.Columns = append(t.Columns, c.name)
		}
		for _, item := range list {
			row := make([]string, len(cols))
			for i, c := range cols {
				row[i] = clip(text(item[c.name]), maxShownValue)
			}
			t.Rows = append(t.Rows, row)
		}
		f.Table = t
		return f
	}
	f.Value = clip(text(v), maxShownValue)
	return f
}

// words spells a schema property name for a header: howToResolve is
// "how to resolve".
func words(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// text is a JSON value as text: strings bare, lists of strings joined,
// anything else as compact JSON; absent is empty.
func text(v json.RawMessage) string {
	if len(v) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var ss []string
	if json.Unmarshal(v, &ss) == nil {
		return strings.Join(ss, ", ")
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

func indent(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, v, "", "  ") != nil {
		return string(v)
	}
	return b.String()
}
