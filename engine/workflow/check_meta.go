package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/workrail/workrail/engine"
)

// The checks of what a workflow declares besides its steps: metadata,
// references, function definitions, assessments and its own output
// contracts.

var (
	// labelPattern is the shape of the ids authors give fragments,
	// assessments, dimensions, references and function definitions.
	labelPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	// contractPattern is a declared contract's ref or artifact kind:
	// dotted segments, at least two, like "user.review_verdict".
	contractPattern = regexp.MustCompile(`^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)+$`)
)

// Function definition scopes.
var functionScopes = []string{"workflow", "loop", "step"}

// Resolve roots and model tiers a workflow may name.
var (
	resolveRoots = []ResolveFrom{FromWorkspace, FromPackage}
	modelTiers   = []string{"lightweight", "mid", "heavy"}
)

func (c *checker) metadata(w Workflow) {
	if w.MetricsProfile != "" && !oneOf(w.MetricsProfile, MetricsProfiles()) {
		c.suggest("/metricsProfile", fmt.Sprintf("unknown metricsProfile %q; profiles are %s", w.MetricsProfile,
			strings.Join(names(MetricsProfiles()), ", ")), engine.Closest(string(w.MetricsProfile), names(MetricsProfiles())))
	}
	if w.Notes != "" && !oneOf(w.Notes, []NotesPolicy{NotesOptional, NotesRequired}) {
		c.add("/notes", "must be \"optional\" or \"required\", not %q", w.Notes)
	}
	seen := map[string]bool{}
	for i, r := range w.References {
		ptr := fmt.Sprintf("/references/%d", i)
		c.label(ptr+"/id", r.ID, "reference", seen)
		c.nonEmpty(ptr+"/title", r.Title)
		c.nonEmpty(ptr+"/source", r.Source)
		c.nonEmpty(ptr+"/purpose", r.Purpose)
		if r.ResolveFrom != "" && !oneOf(r.ResolveFrom, resolveRoots) {
			c.add(ptr+"/resolveFrom", "must be \"workspace\" or \"package\", not %q", r.ResolveFrom)
		}
	}
	c.functions = append(c.functions, c.functionDefs(w.FunctionDefinitions, "/functionDefinitions"))
	c.assessmentDecls(w.Assessments)
	c.contractDecls(w.Contracts)
}

// label checks an author-given id: its shape, and that it is not used twice
// among its kind (seen).
func (c *checker) label(ptr, id, what string, seen map[string]bool) {
	switch {
	case !labelPattern.MatchString(id):
		c.add(ptr, "%s id %q must match [A-Za-z0-9][A-Za-z0-9_.-]*", what, id)
	case seen[id]:
		c.add(ptr, "duplicate %s id %q", what, id)
	}
	seen[id] = true
}

// functionDefs checks one list of definitions and returns their names.
func (c *checker) functionDefs(defs []FunctionDef, ptr string) map[string]bool {
	seen := map[string]bool{}
	for i, d := range defs {
		p := fmt.Sprintf("%s/%d", ptr, i)
		if !namePattern.MatchString(d.Name) {
			c.add(p+"/name", "function name %q must match [A-Za-z_][A-Za-z0-9_]*", d.Name)
		} else if seen[d.Name] {
			c.add(p+"/name", "function %q is defined twice here", d.Name)
		}
		seen[d.Name] = true
		c.nonEmpty(p+"/definition", d.Definition)
		if d.Scope != "" && !oneOf(d.Scope, functionScopes) {
			c.add(p+"/scope", "must be workflow, loop or step, not %q", d.Scope)
		}
		for j, prm := range d.Parameters {
			pp := fmt.Sprintf("%s/parameters/%d", p, j)
			c.nonEmpty(pp+"/name", prm.Name)
			c.nonEmpty(pp+"/type", prm.Type)
		}
	}
	return seen
}

func (c *checker) assessmentDecls(list []Assessment) {
	seen := map[string]bool{}
	for i, a := range list {
		ptr := fmt.Sprintf("/assessments/%d", i)
		c.label(ptr+"/id", string(a.ID), "assessment", seen)
		c.nonEmpty(ptr+"/purpose", a.Purpose)
		if len(a.Dimensions) == 0 {
			c.add(ptr+"/dimensions", "an assessment needs at least one dimension")
		}
		dims := map[string]bool{}
		for j, d := range a.Dimensions {
			dp := fmt.Sprintf("%s/dimensions/%d", ptr, j)
			c.label(dp+"/id", d.ID, "dimension", dims)
			c.nonEmpty(dp+"/purpose", d.Purpose)
			if len(d.Levels) < 2 {
				c.add(dp+"/levels", "a dimension needs at least two levels to choose from")
			}
			levels := map[string]bool{}
			for k, l := range d.Levels {
				switch {
				case strings.TrimSpace(l) == "":
					c.add(fmt.Sprintf("%s/levels/%d", dp, k), "required and must not be empty")
				case levels[l]:
					c.add(fmt.Sprintf("%s/levels/%d", dp, k), "level %q is listed twice", l)
				}
				levels[l] = true
			}
		}
		c.assessments[a.ID] = a
	}
}

// contractDecls checks the workflow's own output contracts: outside the
// wr namespace, a schema that compiles, an example it accepts, and
// artifact kinds that name no other contract.
func (c *checker) contractDecls(decls map[ContractRef]ContractDecl) {
	kinds := map[string]string{}
	for _, ref := range sortedKeys(decls) {
		ptr := "/contracts/" + engine.PointerToken(string(ref))
		d := decls[ref]
		switch {
		case !contractPattern.MatchString(string(ref)):
			c.add(ptr, "contract ref %q must be dotted lower-case segments, e.g. \"user.review_verdict\"", ref)
		case Reserved(engine.WorkflowID(ref)):
			c.add(ptr, "contract refs starting with \"wr.\" are WorkRail's own packs; name yours e.g. %q", "user."+strings.TrimPrefix(string(ref), "wr."))
		case oneOf(ref, Contracts()):
			c.add(ptr, "%q is a WorkRail contract pack already", ref)
		}
		c.contracts[ref] = true
		c.nonEmpty(ptr+"/description", d.Description)
		accepted := []string{string(ref)}
		for i, k := range d.Kinds {
			kp := fmt.Sprintf("%s/kinds/%d", ptr, i)
			switch prev, dup := kinds[k]; {
			case !contractPattern.MatchString(k):
				c.add(kp, "artifact kind %q must be dotted lower-case segments, e.g. \"user.verdict\"", k)
			case dup:
				c.add(kp, "artifact kind %q is already accepted by %s", k, prev)
			case k == string(ref) || decls[ContractRef(k)].Schema != nil || oneOf(ContractRef(k), Contracts()):
				c.add(kp, "artifact kind %q is a contract ref itself", k)
			}
			kinds[k] = string(ref)
			accepted = append(accepted, k)
		}
		c.contractSchema(ptr, d, accepted)
	}
}

// contractSchema compiles a declared schema and validates its example.
func (c *checker) contractSchema(ptr string, d ContractDecl, accepted []string) {
	if len(d.Schema) == 0 {
		c.add(ptr+"/schema", "required: the JSON Schema artifacts of this contract must satisfy")
		return
	}
	sch, err := CompileSchema(d.Schema)
	if err != nil {
		c.add(ptr+"/schema", "does not compile as a JSON Schema: %v", err)
		return
	}
	if len(d.Example) == 0 {
		c.add(ptr+"/example", "required: an artifact that satisfies the schema, shown to agents")
		return
	}
	var ex struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(d.Example, &ex) != nil || !contains(accepted, ex.Kind) {
		c.add(ptr+"/example", "the example must be an object whose \"kind\" is %s", strings.Join(accepted, " or "))
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.Example))
	if err == nil {
		err = sch.Validate(inst)
	}
	if err != nil {
		c.add(ptr+"/example", "the example does not satisfy the schema: %s", oneLine(err))
	}
}

// CompileSchema compiles a contract's JSON Schema (draft 2020-12 unless it
// says otherwise) without reading anything: a $ref outside the document
// is an error.
func CompileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	comp := jsonschema.NewCompiler()
	comp.UseLoader(noLoader{})
	if err := comp.AddResource("contract.json", doc); err != nil {
		return nil, err
	}
	return comp.Compile("contract.json")
}

// noLoader refuses every external schema: a workflow file is checked
// from its own bytes only.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("a contract schema may only $ref within itself, not " + url)
}

// oneLine is an error's text on one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// contractKnown reports whether ref is a WorkRail pack or one the
// workflow declares.
func (c *checker) contractKnown(ref ContractRef) bool {
	return oneOf(ref, Contracts()) || c.contracts[ref]
}

func (c *checker) contractNames() []string {
	out := names(Contracts())
	for _, k := range sortedKeys(c.contracts) {
		out = append(out, string(k))
	}
	return out
}
