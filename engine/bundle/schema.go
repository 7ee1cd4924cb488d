package bundle

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaJSON is the bundle format's JSON Schema (draft 2020-12), the one
// `workrail export --schema` prints. Tests hold it to what Build writes.
//
//go:embed bundle.schema.json
var schemaJSON []byte

// Schema returns the JSON Schema of the bundle format.
func Schema() []byte { return bytes.Clone(schemaJSON) }

// compiledSchema is the schema, compiled once, for describing why a
// document the strict decoder refused is not a bundle.
var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("bundle.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("bundle.schema.json")
})

// maxViolations bounds how many schema violations an error lists.
const maxViolations = 3

// violations is the schema's verdict on data, as deterministic text:
// where each violation is (a JSON pointer) and what it is; empty when the
// schema has nothing to say.
func violations(data []byte) string {
	sch, err := compiledSchema()
	if err != nil {
		return ""
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return ""
	}
	verr := sch.Validate(doc)
	ve, ok := verr.(*jsonschema.ValidationError)
	if !ok {
		return ""
	}
	printer := message.NewPrinter(language.English)
	var lines []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			lines = append(lines, fmt.Sprintf("at /%s: %s", strings.Join(e.InstanceLocation, "/"), sortedKind(e.ErrorKind).LocalizedString(printer)))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(lines)
	lines = slices.Compact(lines)
	if len(lines) > maxViolations {
		lines = append(lines[:maxViolations], fmt.Sprintf("and %d more", len(lines)-maxViolations))
	}
	return strings.Join(lines, "; ")
}

// sortedKind returns k with the property names the validator collected
// from a map sorted, so its message does not depend on map order.
func sortedKind(k jsonschema.ErrorKind) jsonschema.ErrorKind {
	if a, ok := k.(*kind.AdditionalProperties); ok {
		return &kind.AdditionalProperties{Properties: slices.Sorted(slices.Values(a.Properties))}
	}
	return k
}
