package compile

import (
	"encoding/json"
	"errors"
	"fmt"
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
	limits   Limits
	context  []workflow.ContextInput
	warnings []Warning
	bodies   map[engine.WorkflowID]lowered // each routine called, lowered once
}

// expand expands every routine call of w, which e has checked: the
// routine's steps take the caller's place, ids prefixed with the
// caller's, {arg} replaced in titles and prompts, the caller's
// runCondition on steps without one, the routine's metaGuidance as
// guidance, provenance {template, routine id}. The routine's context
// inputs join the workflow's.
func (e *expander) expand(w Workflow) (Workflow, []Warning, error) {
	e.context = w.Context
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
		p := ptr + "/" + strconv.Itoa(i)
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
		case len(n.Step.Delegations) > 0:
			s := *n.Step
			s.Delegations = e.retarget(s.Delegations, p)
			out = append(out, Node{Step: &s})
		default:
			out = append(out, n)
		}
	}
	return out, nil
}

func (e *expander) call(s Step, ptr string) ([]Node, error) {
	id := engine.WorkflowID(s.template.ID)
	b, err := e.body(id, s.ID)
	if missing := (*MissingRoutineError)(nil); errors.As(err, &missing) {
		return nil, &MissingRoutineError{Step: s.ID, Routine: id, Pointer: ptr}
	}
	if err != nil {
		return nil, err
	}
	if s.Output != nil || s.UserDependency != nil || s.asksConfirmation() || len(s.Fragments) > 0 ||
		len(s.Delegations) > 0 || len(s.AssessmentRefs) > 0 || len(s.Criteria) > 0 || len(s.Injections) > 0 {
		return nil, fmt.Errorf("compile: step %s calls routine %s: a calling step takes only id, title, runCondition and the call", s.ID, id)
	}
	args, err := argTexts(s.template.Args)
	if err != nil {
		return nil, fmt.Errorf("compile: step %s calls routine %s: %w", s.ID, id, err)
	}
	used := map[string]bool{}
	var missing []string
	sub := func(text string) string {
		return b.substitute(text, args, used, &missing)
	}
	nodes := renameNodes(b.nodes, func(st Step) Step {
		st.ID = s.ID + RoutineSeparator + st.ID
		st.Title, st.raw = sub(st.Title), sub(st.raw)
		st.blocks = substituteBlocks(st.blocks, sub)
		if st.RunCondition == nil {
			st.RunCondition = s.RunCondition
		}
		if st.role == "" { // neither the step nor its routine names one
			st.role = s.role
		}
		st.ptr = ptr
		return st
	}, func(l Loop) Loop {
		l.ID = s.ID + RoutineSeparator + l.ID
		l.Title = sub(l.Title)
		if l.RunCondition == nil {
			l.RunCondition = s.RunCondition
		}
		return l
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("compile: step %s calls routine %s without the argument(s) %s its text uses: add them to args", s.ID, id, strings.Join(missing, ", "))
	}
	for _, k := range sortedArgs(args) {
		if !used[k] {
			e.warnings = append(e.warnings, Warning{Code: WarnRoutineArgUnused, Pointer: ptr + "/template/args/" + engine.PointerToken(k),
				Message: fmt.Sprintf("routine %s does not use the argument %q: it is ignored", id, k)})
		}
	}
	if err := e.mergeContext(b.r); err != nil {
		return nil, err
	}
	return nodes, nil
}

// retarget points each delegation naming a routine by the id its file
// claims at the id the routine loaded as, with a warning.
func (e *expander) retarget(list []workflow.ParallelDelegation, ptr string) []workflow.ParallelDelegation {
	if e.find == nil {
		return list
	}
	out := slices.Clone(list)
	for i, d := range out {
		if r, ok := e.find(d.WorkflowID); ok && r.ID != d.WorkflowID {
			out[i].WorkflowID = r.ID
			e.warnings = append(e.warnings, Warning{Code: WarnDelegationRetargeted, Pointer: fmt.Sprintf("%s/parallelDelegations/%d/workflowId", ptr, i),
				Message: fmt.Sprintf("the delegation to %s runs the routine loaded as %s", d.WorkflowID, r.ID)})
		}
	}
	return out
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
