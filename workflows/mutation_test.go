package workflows_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/workflow"
)

// semanticMessages are the Parse problems that need the whole document and
// so have no JSON Schema counterpart (see testdata/schema/semantic).
var semanticMessages = []string{
	"duplicate step id",
	"is declared twice",
	"which is not declared in context",
	"forEach needs an array input",
	"exceeds maxIterations",
	"is not one of",
	"compares numbers",
	"is an array: test it with exists",
	"is declared string:", "is declared number:", "is declared integer:", "is declared boolean:",
	"duplicate reference id", "duplicate fragment id", "duplicate assessment id", "duplicate dimension id",
	"is defined twice here", "is not defined for this step",
	"is not declared in the workflow's assessments", "is not one of this step's assessmentRefs", "is not a level of any dimension",
	"the same trigger is given twice", "consequences need the step's assessmentRefs",
	"to decide when it stops", "is already a context input or loop variable", "countVar reads", "countVar needs an integer or number input",
	"WorkRail uses Go's RE2 syntax", "exceeds max",
	"does not compile as a JSON Schema", "the example must be an object whose", "the example does not satisfy the schema",
	"is already accepted by", "is a contract ref itself", "unknown contract pack",
}

func onlySemantic(err error) bool {
	p, ok := err.(workflow.Problems)
	if !ok || len(p) == 0 {
		return false
	}
	for _, x := range p {
		semantic := false
		for _, m := range semanticMessages {
			if strings.Contains(x.Message, m) {
				semantic = true
			}
		}
		if !semantic {
			return false
		}
	}
	return true
}

// Values and keys the mutations try: the edge cases of every rule.
var (
	mutantValues = []any{nil, "", " ", "x", "wr-x", "Bad", "a.b", "a.b.c", json.Number("0"), json.Number("-1"),
		json.Number("1"), json.Number("1.5"), json.Number("100"), json.Number("101"), true, false,
		[]any{}, []any{""}, map[string]any{}, "required", "needs_user_choice", "for", "forEach", "until",
		"wr.contracts.gaps", "web_browsing", "external_side_effect"}
	mutantKeys   = []string{"prompt", "promptBlocks", "template", "count", "over", "as", "condition", "var", "equals", "in", "and", "not", "choiceKind", "loop", "body", "runCondition", "kind", "enum", "exists", "gt", "options"}
	mutantAdds   = []any{"", "x", json.Number("0"), json.Number("2"), true, map[string]any{}, []any{}, map[string]any{"goal": "g"}}
	schemaDirect = "Parse accepts but the schema rejects"
	schemaHole   = "the schema accepts but Parse rejects for a structural reason"
)

// TestSchemaMutations mutates small valid documents one node at a time
// (replace a value, drop a key, add a key) and checks that the schema and
// Parse agree on every mutant, up to the semantic rules only Parse checks
// and the documented places where the schema is stricter.
func TestSchemaMutations(t *testing.T) {
	docs := testdataFiles(t, "valid")
	for _, f := range bundledFiles(t) {
		if f.name == "wr.hello.json" {
			docs = append(docs, f)
		}
	}
	if testing.Short() {
		t.Skip("mutation agreement is slow; skipped in -short mode")
	}
	for _, d := range docs {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			failures := map[string][]string{}
			list := mutants(decode(t, d.src))
			for _, m := range list {
				src, err := json.Marshal(m.doc)
				if err != nil {
					t.Fatal(err)
				}
				_, perr := workflow.Parse(src)
				// m.doc holds what UnmarshalJSON would read from src.
				serr := workflowSchema(t).Validate(m.doc)
				switch {
				case perr == nil && serr != nil:
					failures[schemaDirect] = append(failures[schemaDirect], fmt.Sprintf("%s: %v", m.what, serr))
				case perr != nil && serr == nil && !onlySemantic(perr):
					failures[schemaHole] = append(failures[schemaHole], fmt.Sprintf("%s: %v", m.what, perr))
				}
			}
			for kind, msgs := range failures {
				sort.Strings(msgs)
				if len(msgs) > 20 {
					msgs = append(msgs[:20], fmt.Sprintf("... and %d more", len(msgs)-20))
				}
				t.Errorf("%s:\n%s", kind, strings.Join(msgs, "\n"))
			}
			t.Logf("%d mutants", len(list))
		})
	}
}

type mutant struct {
	what string
	doc  any
}

func decode(t *testing.T, src []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// mutants returns every single-edit variant of root. A variant copies
// only the objects and arrays on the path to its edit and shares the
// rest with root: no value is changed once built.
func mutants(root any) []mutant {
	var out []mutant
	var visit func(path string, v any, set func(any) any)
	visit = func(path string, v any, set func(any) any) {
		for _, x := range mutantValues {
			out = append(out, mutant{fmt.Sprintf("%s = %v", path, x), set(x)})
		}
		switch v := v.(type) {
		case map[string]any:
			for _, k := range sortedMapKeys(v) {
				without := maps.Clone(v)
				delete(without, k)
				out = append(out, mutant{fmt.Sprintf("drop %s/%s", path, k), set(without)})
				visit(path+"/"+k, v[k], func(x any) any {
					c := maps.Clone(v)
					c[k] = x
					return set(c)
				})
			}
			for _, k := range mutantKeys {
				if _, ok := v[k]; ok {
					continue
				}
				for _, x := range mutantAdds {
					c := maps.Clone(v)
					c[k] = x
					out = append(out, mutant{fmt.Sprintf("add %s/%s = %v", path, k, x), set(c)})
				}
			}
		case []any:
			for i := range v {
				visit(fmt.Sprintf("%s/%d", path, i), v[i], func(x any) any {
					c := slices.Clone(v)
					c[i] = x
					return set(c)
				})
			}
		}
	}
	visit("", root, func(x any) any { return x })
	return out
}

func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
