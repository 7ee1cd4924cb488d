// Package workflows holds the bundled wr.* workflows, embedded into the
// binary, and the JSON Schema that workflow files follow. Their tests
// compile each one, validate it against the schema and walk it to
// completion.
package workflows

import "embed"

// FS holds every bundled workflow file (*.json at the top of this folder;
// the pattern does not reach schema/ or testdata/).
//
//go:embed *.json
var FS embed.FS

// Schema is the JSON Schema (draft 2020-12) for workflow files, with $id
// https://workrail.dev/schema/workflow.schema.json. It mirrors the
// structural rules of engine/workflow.Parse so editors can validate and
// complete workflow files; the rules that need the whole document (unique
// step ids, conditions reading declared inputs) are checked only by Parse.
//
//go:embed schema/workflow.schema.json
var Schema []byte
