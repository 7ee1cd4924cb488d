package protocol

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/workflow"
)

// CheckContext validates context values against workflow w's declared
// inputs. Wrong types and values outside an enum are errors (nothing is
// stored); at start, so is a missing required input. Keys the workflow does
// not declare are kept but disclosed with a warning, since no condition
// reads them. A lenient input is never refused: its value is rewritten in
// ctx, in place, to the form the workflow compares it in (canonicalize),
// with a notice for each value changed; conditions stay strict.
func CheckContext(w compile.Workflow, ctx map[string]any, atStart bool) ([]Warning, *engine.Error) {
	if e := unfilledContext(ctx); e != nil {
		return nil, e
	}
	inputs := w.Context
	declared := map[string]workflow.ContextInput{}
	for _, in := range inputs {
		declared[in.Name] = in
	}
	ws := canonicalize(w, declared, ctx)
	for _, k := range sortedKeys(ctx) {
		in, ok := declared[k]
		if !ok {
			ws = append(ws, Warning{Code: event.NoticeContextKeyUndeclared,
				Message: fmt.Sprintf("context.%s is not an input of this workflow: it is stored, but no condition or loop reads it", k)})
			continue
		}
		if in.Lenient {
			continue
		}
		if e := checkValue(in, ctx[k]); e != nil {
			return nil, e
		}
	}
	if atStart {
		if e := missingRequired(inputs, ctx); e != nil {
			return nil, e
		}
	}
	return ws, nil
}

// unfilledContext refuses a context value that still holds WorkRail's
// template (a <<fill: …>> marker, or the "<name>" placeholder earlier
// releases suggested), anywhere inside it: an input is what the user gave
// or the agent found, and a lenient input must not take the template's
// words as a value either.
func unfilledContext(ctx map[string]any) *engine.Error {
	for _, k := range sortedKeys(ctx) {
		if ptr, ok := holdsTemplate(ctx[k], "/context/"+k, "<"+k+">"); ok {
			return engine.Errorf(engine.CodeInvalidInput,
				"%s still holds WorkRail's template (<<fill: …>>), which is never a value: nothing was recorded. "+
					"Ask the user for it, or find it in the project, and send the real value.", ptr).With("pointer", ptr)
		}
	}
	return nil
}

// holdsTemplate finds the first string of v (in key order) that is
// template text, and its pointer.
func holdsTemplate(v any, ptr, placeholder string) (string, bool) {
	switch x := v.(type) {
	case string:
		return ptr, fill.IsTemplate(x) || placeholder != "" && strings.TrimSpace(x) == placeholder
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if p, ok := holdsTemplate(x[k], ptr+"/"+k, ""); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range x {
			if p, ok := holdsTemplate(e, fmt.Sprintf("%s/%d", ptr, i), ""); ok {
				return p, true
			}
		}
	}
	return "", false
}

func checkValue(in workflow.ContextInput, v any) *engine.Error {
	ptr := "/context/" + in.Name
	if err := in.Type.Accepts(v); err != nil {
		return engine.Errorf(engine.CodeInvalidInput, "context.%s: %v. It is declared as: %s", in.Name, err, in.Description).With("pointer", ptr)
	}
	if len(in.Enum) == 0 {
		return nil
	}
	got, _ := json.Marshal(v)
	allowed := make([]string, len(in.Enum))
	for i, e := range in.Enum {
		allowed[i] = string(e)
		if workflow.SameValue(v, e) {
			return nil
		}
	}
	return engine.Errorf(engine.CodeInvalidInput, "context.%s is %s; allowed values: %s", in.Name, got, strings.Join(allowed, ", ")).
		With("pointer", ptr).With("allowed", allowed)
}

func missingRequired(inputs []workflow.ContextInput, ctx map[string]any) *engine.Error {
	var missing []string
	var lines []string
	for _, in := range inputs {
		if _, ok := ctx[in.Name]; in.Required && !ok {
			missing = append(missing, in.Name)
			lines = append(lines, fmt.Sprintf("%s (%s): %s", in.Name, in.Type, in.Description))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return engine.Errorf(engine.CodeInvalidInput, "this workflow needs these context inputs, which were not sent: %s. Call start_workflow again with them in \"context\".",
		strings.Join(lines, "; ")).With("missingContext", missing).With("pointer", "/context")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
