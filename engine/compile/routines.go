package compile

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// RoutineSeparator joins a calling step's id and a routine step's id into
// the id of the expanded step.
const RoutineSeparator = "--"

// expander replaces each step that calls a routine with the routine's
// steps.
type expander struct {
	find     func(engine.WorkflowID) (workflow.Workflow, bool)
	context  []workflow.ContextInput
	warnings []Warning
}

// expandRoutines expands every routine call: the routine's steps take the
// caller's place, ids prefixed with the caller's, {arg} replaced in
// titles and prompts, the caller's runCondition on steps without one, the
// routine's metaGuidance as guidance, provenance {template, routine id}.
// The routine's context inputs join the workflow's.
func expandRoutines(w Workflow, _ workflow.Workflow, find func(engine.WorkflowID) (workflow.Workflow, bool)) (Workflow, []Warning, error) {
	e := &expander{find: find, context: w.Context}
	steps, err := e.nodes(w.Steps, "/steps")
	if err != nil {
		return w, nil, err
	}
	w.Steps, w.Context = steps, e.context
	ids := map[workflow.StepID]bool{}
	Walk(w.Steps, func(n Node) {
		if ids[n.ID()] && err == nil {
			err = fmt.Errorf("compile: step id %q is used twice once routines are expanded: rename the calling step", n.ID())
		}
		ids[n.ID()] = true
	})
	return w, e.warnings, err
}

func calls(t *workflow.TemplateCall) bool {
	return t != nil && !slices.Contains(workflow.Templates(), t.ID)
}

func (e *expander) nodes(list []Node, ptr string) ([]Node, error) {
	out := make([]Node, 0, len(list))
	for i, n := range list {
		p := fmt.Sprintf("%s/%d", ptr, i)
		switch {
		case n.Loop != nil:
			l := *n.Loop
			body, err := e.nodes(l.Body, p+"/body")
			if err != nil {
				return nil, err
			}
			l.Body = body
			out = append(out, Node{Loop: &l})
		case calls(n.Step.template):
			steps, err := e.call(*n.Step, p)
			if err != nil {
				return nil, err
			}
			out = append(out, steps...)
		default:
			out = append(out, n)
		}
	}
	return out, nil
}

func (e *expander) call(s Step, ptr string) ([]Node, error) {
	id := engine.WorkflowID(s.template.ID)
	var r workflow.Workflow
	found := false
	if e.find != nil {
		r, found = e.find(id)
	}
	switch {
	case !found:
		return nil, fmt.Errorf("compile: step %s calls routine %q, which is neither among the workflows loaded with it nor bundled", s.ID, id)
	case r.Kind != workflow.KindRoutine:
		return nil, fmt.Errorf("compile: step %s calls %q, which is a workflow, not a routine (kind \"routine\")", s.ID, id)
	case len(r.Assessments) > 0 || len(r.Contracts) > 0:
		return nil, fmt.Errorf("compile: routine %s declares assessments or contracts, which an expanded routine cannot bring along", id)
	case s.Output != nil || s.UserDependency != nil || s.asksConfirmation() || len(s.Fragments) > 0 ||
		len(s.Delegations) > 0 || len(s.AssessmentRefs) > 0 || len(s.Criteria) > 0 || len(s.Injections) > 0:
		return nil, fmt.Errorf("compile: step %s calls routine %s: a calling step takes only id, title, runCondition and the call", s.ID, id)
	}
	args, err := argTexts(s.template.Args)
	if err != nil {
		return nil, fmt.Errorf("compile: step %s calls routine %s: %w", s.ID, id, err)
	}
	role := s.role
	if r.AgentRole != "" {
		role = r.AgentRole
	}
	prov := Provenance{Origin: FromTemplate, By: string(r.ID)}
	body := lowerNodes(r.Steps, role, [][]workflow.FunctionDef{r.FunctionDefinitions}, prov)
	used := map[string]bool{}
	var missing []string
	sub := func(text string) string {
		return substitute(text, args, used, &missing)
	}
	var guidance []Injection
	for i, g := range r.MetaGuidance {
		guidance = append(guidance, Injection{ID: fmt.Sprintf("%s%s/%d", guidancePrefix, r.ID, i+1), Text: g, Provenance: prov})
	}
	var nested error
	body = renameNodes(body, func(st Step) Step {
		if st.template != nil && nested == nil {
			nested = fmt.Errorf("compile: routine %s calls a template itself (step %s); routines are expanded one level deep", id, st.ID)
		}
		st.ID = s.ID + RoutineSeparator + st.ID
		st.Title, st.raw = sub(st.Title), sub(st.raw)
		st.blocks = substituteBlocks(st.blocks, sub)
		if st.RunCondition == nil {
			st.RunCondition = s.RunCondition
		}
		st.Injections = append(slices.Clip(st.Injections), guidance...)
		return st
	}, func(l Loop) Loop {
		l.ID = s.ID + RoutineSeparator + l.ID
		l.Title = sub(l.Title)
		if l.RunCondition == nil {
			l.RunCondition = s.RunCondition
		}
		return l
	})
	if nested != nil {
		return nil, nested
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("compile: step %s calls routine %s without the argument(s) %s its text uses: add them to args", s.ID, id, strings.Join(missing, ", "))
	}
	for _, k := range sortedArgs(args) {
		if !used[k] {
			e.warnings = append(e.warnings, Warning{Pointer: ptr + "/template/args/" + engine.PointerToken(k),
				Message: fmt.Sprintf("routine %s does not use the argument %q: it is ignored", id, k)})
		}
	}
	if err := e.mergeContext(r); err != nil {
		return nil, err
	}
	return body, nil
}

// asksConfirmation reports whether the step may ask for confirmation.
func (s Step) asksConfirmation() bool { return s.RequireConfirmation || s.ConfirmWhen != nil }

// mergeContext adds the routine's context inputs the workflow lacks.
func (e *expander) mergeContext(r workflow.Workflow) error {
	for _, in := range r.Context {
		i := slices.IndexFunc(e.context, func(x workflow.ContextInput) bool { return x.Name == in.Name })
		switch {
		case i < 0:
			e.context = append(slices.Clip(e.context), in)
		case e.context[i].Type != in.Type:
			return fmt.Errorf("compile: routine %s reads %q as %s, the workflow declares it %s", r.ID, in.Name, in.Type, e.context[i].Type)
		}
	}
	return nil
}

// renameNodes returns a copy of list with f applied to every step and g to
// every loop.
func renameNodes(list []Node, f func(Step) Step, g func(Loop) Loop) []Node {
	out := make([]Node, len(list))
	for i, n := range list {
		if n.Loop != nil {
			l := g(*n.Loop)
			l.Body = renameNodes(l.Body, f, g)
			out[i] = Node{Loop: &l}
			continue
		}
		s := f(*n.Step)
		out[i] = Node{Step: &s}
	}
	return out
}

func substituteBlocks(b *workflow.PromptBlocks, sub func(string) string) *workflow.PromptBlocks {
	if b == nil {
		return nil
	}
	each := func(xs []string) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = sub(x)
		}
		return out
	}
	return &workflow.PromptBlocks{Goal: sub(b.Goal), Constraints: each(b.Constraints), Procedure: each(b.Procedure),
		OutputRequired: each(b.OutputRequired), Verify: each(b.Verify)}
}

// argPattern is a routine argument in text: {name}, but not part of a
// {{context}} reference.
var argPattern = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

func substitute(text string, args map[string]string, used map[string]bool, missing *[]string) string {
	var b strings.Builder
	last := 0
	for _, m := range argPattern.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[0], m[1]
		if (start > 0 && text[start-1] == '{') || (end < len(text) && text[end] == '}') {
			continue
		}
		name := text[m[2]:m[3]]
		v, ok := args[name]
		if !ok {
			if !slices.Contains(*missing, name) {
				*missing = append(*missing, name)
			}
			continue
		}
		used[name] = true
		b.WriteString(text[last:start])
		b.WriteString(v)
		last = end
	}
	b.WriteString(text[last:])
	return b.String()
}

// argTexts is each argument as the text it is replaced by: strings as
// they are, numbers and booleans as JSON writes them.
func argTexts(args map[string]any) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range args {
		switch x := v.(type) {
		case string:
			out[k] = x
		case bool:
			out[k] = strconv.FormatBool(x)
		case float64, json.Number:
			out[k] = fmt.Sprint(x)
		default:
			return nil, fmt.Errorf("argument %q must be a string, number or boolean", k)
		}
	}
	return out, nil
}

func sortedArgs(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
