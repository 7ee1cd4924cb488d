package legacy

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// The rewrites, from the workflow down. Each one names the TypeScript
// construct it reads; anything else is left as it is, for workflow.Parse
// to accept or explain.

// routineTemplatePrefix is how the TypeScript format names a routine in a
// templateCall; wr.templates.routine.x is the routine wr.routine-x.
const routineTemplatePrefix = "wr.templates.routine."

func (n *normalizer) workflow(o *object) {
	n.drop(o, "validatedAgainstSpecVersion", "", SpecVersionDropped, "validatedAgainstSpecVersion is dropped: WorkRail pins runs to the compiled workflow's hash instead")
	n.drop(o, "askForFiles", "", AskForFilesDropped, "askForFiles is dropped: neither WorkRail reads it")
	n.drop(o, "modelTier", "", ModelTierDropped, "modelTier is dropped: WorkRail does not choose the agent's model")
	n.preferences(o)
	if o.has("extensionPoints") {
		n.refuse("/extensionPoints", "extensionPoints are not supported: they make the compiled workflow depend on a project file outside it (.workrail/bindings.json); write the bound text into the workflow")
	}
	if id := o.str("id"); !o.has("kind") && (strings.HasPrefix(id, "wr.routine-") || strings.HasPrefix(id, "routine-")) {
		o.set("kind", string(workflow.KindRoutine))
		n.warn(RoutineKindFromID, "/id", "%s has no kind; it loads as a routine (kind \"routine\") as its id says", id)
	}
	if list, ok := o.get("assessments").([]any); ok {
		for i, a := range list {
			n.assessment(a, fmt.Sprintf("/assessments/%d", i))
		}
	}
	n.defs = []any{o.get("functionDefinitions")}
	n.bodiesByID(o)
	if o.has("steps") {
		o.set("steps", n.nodes(o.get("steps"), "/steps"))
	}
}

// drop deletes key k of o with a warning.
func (n *normalizer) drop(o *object, k, ptr string, code Code, msg string) {
	if o.has(k) {
		o.del(k)
		n.warn(code, ptr+"/"+k, "%s", msg)
	}
}

func (n *normalizer) preferences(o *object) {
	if p := o.obj("recommendedPreferences"); p != nil {
		for _, k := range [][2]string{{"recommendedAutonomy", "autonomy"}, {"recommendedRiskPolicy", "riskPolicy"}} {
			from, to := k[0], k[1]
			if p.has(from) && !p.has(to) {
				p.rename(from, to)
				n.warn(PreferencesRenamed, "/recommendedPreferences/"+from, "recommendedPreferences.%s is read as recommendedPreferences.%s", from, to)
			}
		}
	}
	a, r := o.get("recommendedAutonomy"), o.get("recommendedRiskPolicy")
	if a == nil && r == nil {
		return
	}
	prefs := newObject()
	if a != nil {
		prefs.set("autonomy", a)
	}
	if r != nil {
		prefs.set("riskPolicy", r)
	}
	first := "recommendedAutonomy"
	if a == nil {
		first = "recommendedRiskPolicy"
	}
	o.rename(first, "recommendedPreferences")
	o.set("recommendedPreferences", prefs)
	o.del("recommendedRiskPolicy")
	n.warn(PreferencesRenamed, "/"+first, "recommendedAutonomy and recommendedRiskPolicy are read as recommendedPreferences {autonomy, riskPolicy}")
}

func (n *normalizer) assessment(v any, ptr string) {
	a, ok := v.(*object)
	if !ok {
		return
	}
	dims, _ := a.get("dimensions").([]any)
	for i, d := range dims {
		dim, ok := d.(*object)
		if !ok || !dim.has("required") {
			continue
		}
		p := fmt.Sprintf("%s/dimensions/%d/required", ptr, i)
		req := dim.get("required")
		dim.del("required")
		if req == false {
			dim.set("optional", true)
			n.warn(DimensionRequired, p, "required: false is read as optional: true")
		} else {
			n.warn(DimensionRequired, p, "required: true is dropped: dimensions are required unless optional")
		}
	}
}

// nodes rewrites a list of steps and loops and returns it with the steps
// the format adds after a step (virtualSteps) in their places. A node
// keeps the pointer of where it is written (origin).
func (n *normalizer) nodes(v any, ptr string) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, 0, len(list))
	for i, x := range list {
		out = append(out, x)
		o, ok := x.(*object)
		if !ok {
			continue
		}
		p := fmt.Sprintf("%s/%d", ptr, i)
		if at, ok := n.origin[o]; ok {
			p = at
		}
		n.origin[o] = p
		out = append(out, n.node(o, p)...)
	}
	return out
}

// node rewrites one step or loop, and returns the steps the format runs
// after it.
func (n *normalizer) node(o *object, ptr string) []any {
	switch t := o.str("type"); {
	case t == "loop" || o.has("loop") || o.has("body"):
		n.loop(o, ptr)
		return nil
	case t == "parallel":
		o.del("type")
		msg := "a parallel step is read as a step with parallelDelegations"
		if o.has("requireConfirmation") {
			o.del("requireConfirmation")
			msg += "; its requireConfirmation is dropped (a parallel step never asks)"
		}
		n.warn(ParallelStep, ptr+"/type", "%s", msg)
		for _, k := range []string{"audit", "verification"} {
			if o.has(k) {
				n.refuse(ptr+"/"+k, "%s is not allowed on a parallel step (nor in the TypeScript WorkRail): put it on a step of its own", k)
			}
		}
		n.step(o, ptr)
		return n.virtualSteps(o, ptr, "synthesis")
	default:
		if t == "standard" {
			o.del("type")
			n.warn(StepTypeDropped, ptr+"/type", "type \"standard\" is dropped: every step is one")
		}
		if o.has("synthesis") {
			n.refuse(ptr+"/synthesis", "synthesis is only for a parallel step (as in the TypeScript WorkRail): put it in the next step's prompt")
		}
		n.step(o, ptr)
		return n.virtualSteps(o, ptr, "verification", "audit")
	}
}

func (n *normalizer) loop(o *object, ptr string) {
	if o.str("type") == "loop" {
		o.del("type")
		n.warn(LoopType, ptr+"/type", "type \"loop\" is dropped: a node with a body is a loop")
	}
	for _, k := range []string{"requireConfirmation", "notesOptional"} {
		n.drop(o, k, ptr, LoopKeyDropped, k+" on a loop is dropped: it applies to steps, so put it on the body's steps")
	}
	n.condField(o, "runCondition", ptr)
	if _, ok := o.get("body").(string); ok { // bodiesByID moves the steps the top-level loops name
		n.refuse(ptr+"/body", "only a top-level loop's body may name a step id (the TypeScript WorkRail does not nest loops either): write the body's steps inline")
	}
	n.defs = append(n.defs, o.get("functionDefinitions"))
	defer func() { n.defs = n.defs[:len(n.defs)-1] }()
	body, _ := o.get("body").([]any)
	if spec := o.obj("loop"); spec != nil {
		n.loopSpec(spec, body, ptr+"/loop")
	}
	if body != nil {
		o.set("body", n.nodes(body, ptr+"/body"))
	}
}

func (n *normalizer) loopSpec(s *object, body []any, ptr string) {
	ts := s.has("type") && !s.has("kind")
	if ts {
		s.rename("type", "kind")
		n.warn(LoopType, ptr+"/type", "loop.type is read as loop.kind")
		if m, ok := s.get("maxIterations").(json.Number); ok {
			if x, err := m.Int64(); err == nil && x > workflow.MaxLoopIterations {
				n.refuse(ptr+"/maxIterations", "maxIterations %d is above WorkRail's bound of %d: lower it", x, workflow.MaxLoopIterations)
			}
		}
	}
	switch kind := s.str("kind"); {
	case ts && kind == "until":
		n.until(s, body, ptr)
	case ts && kind == "for":
		if name, ok := s.get("count").(string); ok {
			s.rename("count", "countVar")
			n.warn(CountVar, ptr+"/count", "count names the context variable %s: the loop runs as many times as %s holds when the loop is reached (a whole number of 0 or more), read as countVar", name, name)
		}
	case kind == "forEach" && (ts || s.has("items") || s.has("itemVar")):
		n.forEach(s, ptr)
	case kind == "while":
		n.while(s, body, ts, ptr)
	}
	if ts && s.str("kind") != "forEach" && !s.has("iterationVar") && readsVar(body, defaultIterationVar) {
		s.set("iterationVar", defaultIterationVar)
		n.warn(IterationVar, ptr, "the body reads %s, the loop's 1-based iteration in this format: iterationVar is written out", defaultIterationVar)
	}
	n.condField(s, "condition", ptr)
}

// defaultIterationVar is the name the format shows a loop's 1-based
// iteration under when the loop names none.
const defaultIterationVar = "currentIteration"

// until reads an until loop as the TypeScript WorkRail runs it: its
// condition is checked before each iteration, so the body may run zero
// times; WorkRail's own until runs its body first, so the loop becomes a
// while on the negated condition. Driven by its loop_control step, an
// until loop runs as a while loop does.
func (n *normalizer) until(s *object, body []any, ptr string) {
	s.set("kind", "while")
	cs := s.obj("conditionSource")
	var cond any
	switch {
	case cs != nil && cs.str("kind") == "context_variable":
		cond = n.cond(cs.get("condition"), ptr+"/conditionSource/condition")
		s.del("conditionSource")
	case cs == nil && s.has("condition") && !loopControlled(body):
		cond = n.cond(s.get("condition"), ptr+"/condition")
	default:
		n.warn(UntilPrechecked, ptr+"/type", "an until loop driven by its %s step is read as a while loop: the decision drives it either way", workflow.ContractLoopControl)
		n.while(s, body, true, ptr)
		return
	}
	negated := newObject()
	negated.set("not", cond)
	s.set("condition", negated)
	n.warn(UntilPrechecked, ptr+"/type", "an until loop here checks its condition before each iteration (it may run zero times): it is read as a while loop on not(condition), "+
		"checked before each iteration, not before each step of it")
}

// readsVar reports whether a condition in v (a loop's body) reads name.
func readsVar(v any, name string) bool {
	switch x := v.(type) {
	case *object:
		if x.str("var") == name {
			return true
		}
		for _, k := range x.keys {
			if readsVar(x.vals[k], name) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if readsVar(e, name) {
				return true
			}
		}
	}
	return false
}

func (n *normalizer) forEach(s *object, ptr string) {
	s.rename("items", "over")
	if s.has("itemVar") {
		s.rename("itemVar", "as")
	} else if !s.has("as") {
		s.set("as", "currentItem")
	}
	if !s.has("indexVar") {
		s.set("indexVar", "currentIndex")
	}
	if !s.has("iterationVar") {
		s.set("iterationVar", "currentIteration")
	}
	s.set("itemsRequired", true)
	n.warn(ForEachVars, ptr, "forEach loop: items/itemVar are read as over/as, the item, index and iteration are shown as %s, %s and %s, and reaching the loop without its array is an error (itemsRequired)",
		s.str("as"), s.str("indexVar"), s.str("iterationVar"))
}

func (n *normalizer) while(s *object, body []any, ts bool, ptr string) {
	cs := s.obj("conditionSource")
	switch {
	case cs != nil && cs.str("kind") == "artifact_contract":
		msg := "the loop runs until its %s step says stop, or maxIterations"
		if ref := cs.str("contractRef"); ref != string(workflow.ContractLoopControl) {
			if !loopControlled(body) {
				n.refuse(ptr+"/conditionSource/contractRef", "the TypeScript WorkRail decides an artifact loop by %s artifacts only, whatever contractRef says, and no step of this body requires one: "+
					"require %s on the body's deciding step", workflow.ContractLoopControl, workflow.ContractLoopControl)
			}
			msg += "; its contractRef " + ref + " is read as that, as the TypeScript WorkRail reads only loop decisions"
		}
		s.del("conditionSource")
		s.del("condition")
		n.warn(ArtifactWhile, ptr+"/conditionSource", msg, workflow.ContractLoopControl)
	case cs != nil && cs.str("kind") == "context_variable":
		s.rename("conditionSource", "condition")
		s.set("condition", cs.get("condition"))
		n.warn(ContextWhile, ptr+"/conditionSource", "the loop's context condition is checked before each iteration, not before each step of it")
	case cs != nil:
		n.refuse(ptr+"/conditionSource/kind", "conditionSource kind must be artifact_contract or context_variable, not %q", cs.str("kind"))
	case ts && loopControlled(body):
		msg := "the loop runs until its %s step says stop, or maxIterations"
		if s.has("condition") {
			s.del("condition")
			msg += "; its condition is dropped, as the TypeScript tools ignore it for such a loop"
		}
		n.warn(ArtifactWhile, ptr+"/type", msg, workflow.ContractLoopControl)
	case ts && s.has("condition"):
		n.warn(ContextWhile, ptr+"/condition", "the loop's condition is checked before each iteration, not before each step of it")
	}
}

// loopControlled reports whether a body step requires loop_control, in
// either spelling.
func loopControlled(body []any) bool {
	for _, x := range body {
		o, ok := x.(*object)
		if !ok {
			continue
		}
		for _, k := range []string{"outputContract", "output"} {
			if c := o.obj(k); c != nil && c.str("contractRef") == string(workflow.ContractLoopControl) {
				return true
			}
		}
	}
	return false
}

func (n *normalizer) step(o *object, ptr string) {
	n.drop(o, "hasValidation", ptr, HasValidationDrop, "hasValidation is dropped: neither WorkRail reads it")
	n.drop(o, "askForFiles", ptr, AskForFilesDropped, "askForFiles is dropped: neither WorkRail reads it")
	n.drop(o, "modelTier", ptr, ModelTierDropped, "modelTier is dropped: WorkRail does not choose the agent's model")
	n.functionCalls(o, ptr)
	n.outputContract(o, ptr)
	if pb := o.obj("promptBlocks"); pb != nil {
		n.blocks(pb, o.str("title"), ptr+"/promptBlocks")
	}
	n.confirmation(o, ptr)
	n.condField(o, "runCondition", ptr)
	for _, k := range []string{"title", "prompt"} {
		n.noSentinel(o.str(k), ptr+"/"+k)
	}
	frags, _ := o.get("promptFragments").([]any)
	for i, f := range frags {
		if fo, ok := f.(*object); ok {
			p := fmt.Sprintf("%s/promptFragments/%d", ptr, i)
			n.condField(fo, "when", p)
			n.noSentinel(fo.str("text"), p+"/text")
		}
	}
	n.templateCall(o, ptr)
	n.functionRefs(o, ptr)
	n.criteriaField(o, ptr)
	dels, _ := o.get("parallelDelegations").([]any)
	for i, d := range dels {
		if do, ok := d.(*object); ok {
			n.condField(do, "runCondition", fmt.Sprintf("%s/parallelDelegations/%d", ptr, i))
		}
	}
}

// noSentinel refuses a {{wr.…}} token, which the TypeScript tools fill
// from bindings WorkRail does not have.
func (n *normalizer) noSentinel(text, ptr string) {
	if strings.Contains(text, "{{wr.") {
		n.refuse(ptr, "a {{wr.…}} token is filled from extension point bindings, which WorkRail does not support: write the text in")
	}
}

func (n *normalizer) outputContract(o *object, ptr string) {
	oc := o.obj("outputContract")
	if oc == nil {
		return
	}
	ref := oc.str("contractRef")
	out := o.obj("output")
	if out == nil {
		out = newObject()
		o.rename("outputContract", "output")
		o.set("output", out)
	} else {
		o.del("outputContract")
	}
	p := ptr + "/outputContract"
	switch {
	case oc.get("required") == false && ref != string(workflow.ContractLoopControl):
		hints, _ := out.get("hints").([]any)
		out.set("hints", append(hints, fmt.Sprintf("Optionally, one artifact of kind %s in output.artifacts.", ref)))
		n.warn(OutputOptionalHint, p, "the optional contract %s becomes an output hint: WorkRail requires the contracts it checks", ref)
	case oc.get("required") == false:
		out.set("contractRef", ref)
		n.warn(OutputOptionalKept, p, "%s stays required although marked optional: its decision is what ends the loop", ref)
	default:
		out.set("contractRef", ref)
		n.warn(OutputContract, p, "outputContract is read as output.contractRef %s", ref)
	}
}

func (n *normalizer) blocks(pb *object, title, ptr string) {
	if !pb.has("goal") {
		pb.set("goal", title)
		n.warn(GoalFromTitle, ptr, "promptBlocks without goal: the step's title is the goal")
	} else {
		pb.set("goal", n.promptValue(pb.get("goal"), ptr+"/goal"))
	}
	for _, k := range []string{"constraints", "procedure", "verify"} {
		list, _ := pb.get(k).([]any)
		for i, v := range list {
			list[i] = n.promptValue(v, fmt.Sprintf("%s/%s/%d", ptr, k, i))
		}
	}
	if m := pb.obj("outputRequired"); m != nil {
		list := make([]any, 0, len(m.keys))
		for _, k := range m.keys {
			v, _ := m.get(k).(string)
			list = append(list, k+": "+v)
		}
		pb.set("outputRequired", list)
		n.warn(OutputRequiredList, ptr+"/outputRequired", "outputRequired {name: description} is read as a list of \"name: description\"")
	}
}

// promptValue turns a list of text and ref parts into one string, each
// ref replaced by WorkRail's text for it.
func (n *normalizer) promptValue(v any, ptr string) any {
	parts, ok := v.([]any)
	if !ok {
		return v
	}
	texts := make([]string, 0, len(parts))
	for i, p := range parts {
		po, _ := p.(*object)
		pp := fmt.Sprintf("%s/%d", ptr, i)
		switch {
		case po == nil:
			n.refuse(pp, "a prompt part must be {\"kind\": \"text\", \"text\": …} or {\"kind\": \"ref\", \"refId\": …}")
		case po.str("kind") == "text":
			texts = append(texts, strings.TrimSpace(po.str("text")))
		case po.str("kind") == "ref":
			id := po.str("refId")
			text, known := workflow.PromptRefText(id)
			if !known {
				var ids []string
				for _, r := range workflow.PromptRefs() {
					ids = append(ids, r.ID)
				}
				n.problems = append(n.problems, workflow.Problem{Pointer: pp + "/refId",
					Message:    fmt.Sprintf("unknown prompt reference %q; WorkRail knows %s", id, strings.Join(ids, ", ")),
					DidYouMean: engine.Closest(id, ids)})
				continue
			}
			texts = append(texts, text)
			n.warn(PromptRefInlined, pp, "%s is inlined as WorkRail's text for it", id)
		default:
			n.refuse(pp+"/kind", "a prompt part's kind is text or ref, not %q", po.str("kind"))
		}
	}
	n.warn(PromptPartsJoined, ptr, "the prompt parts are joined into one text")
	return strings.Join(texts, " ")
}

func (n *normalizer) confirmation(o *object, ptr string) {
	c := o.obj("requireConfirmation")
	if c == nil {
		return
	}
	if !c.has("kind") {
		n.condField(o, "requireConfirmation", ptr)
		return
	}
	p := ptr + "/requireConfirmation"
	kind := c.str("kind")
	if cond := c.get("condition"); cond != nil {
		o.set("requireConfirmation", n.cond(cond, p+"/condition"))
		n.warn(ConfirmationGate, p, "a %s gate has no gate here: the agent asks the user to confirm when its condition holds", kind)
		return
	}
	o.set("requireConfirmation", true)
	n.warn(ConfirmationGate, p, "a %s gate has no gate here: the agent asks the user to confirm", kind)
}

func (n *normalizer) templateCall(o *object, ptr string) {
	tc := o.obj("templateCall")
	if tc == nil {
		return
	}
	p := ptr + "/templateCall"
	id := tc.str("templateId")
	name, ok := strings.CutPrefix(id, routineTemplatePrefix)
	if !ok {
		n.refuse(p+"/templateId", "unknown template %q: only routines (%s<name>) are templates in this format", id, routineTemplatePrefix)
		return
	}
	call := newObject()
	call.set("id", "wr.routine-"+name)
	if args := tc.get("args"); args != nil {
		call.set("args", args)
	}
	o.rename("templateCall", "template")
	o.set("template", call)
	n.warn(TemplateCall, p, "templateCall %s expands the routine wr.routine-%s here, its steps named %s--<step id>", id, name, o.str("id"))
}

// functionRefs reads a step's functionReferences: "name()" names the
// function name; a name no definition in scope has (the step's, its
// loop's, the workflow's) is dropped, as the TypeScript tools filter it
// out.
func (n *normalizer) functionRefs(o *object, ptr string) {
	refs, _ := o.get("functionReferences").([]any)
	if refs == nil {
		return
	}
	defined := n.definitions(o)
	kept := make([]any, 0, len(refs))
	for i, r := range refs {
		s, ok := r.(string)
		if !ok {
			kept = append(kept, r) // for workflow.Parse to explain
			continue
		}
		p := fmt.Sprintf("%s/functionReferences/%d", ptr, i)
		if strings.HasSuffix(s, "()") {
			s = strings.TrimSuffix(s, "()")
			n.warn(FunctionRefParens, p, "%s names the function %s", r, s)
		}
		if defined[s] == nil {
			n.warn(FunctionRefDropped, p, "no function %s is defined for this step (in its functionDefinitions, its loop's or the workflow's): the reference is dropped, as the TypeScript WorkRail filters it out", s)
			continue
		}
		kept = append(kept, s)
	}
	if len(kept) == 0 {
		o.del("functionReferences")
		return
	}
	o.set("functionReferences", kept)
}

func (n *normalizer) criteriaField(o *object, ptr string) {
	p := ptr + "/validationCriteria"
	if c := o.obj("validationCriteria"); c != nil {
		o.set("validationCriteria", []any{c})
		n.warn(CriteriaWrapped, p, "validationCriteria given as one combination is read as a list of it")
		n.criterion(c, p)
		return
	}
	list, _ := o.get("validationCriteria").([]any)
	for i, c := range list {
		if co, ok := c.(*object); ok {
			n.criterion(co, fmt.Sprintf("%s/%d", p, i))
		}
	}
}

func (n *normalizer) criterion(c *object, ptr string) {
	if c.str("type") == "schema" {
		n.refuse(ptr+"/type", "schema criteria are not supported: declare an output contract (contracts) and require it with output.contractRef")
	}
	n.condField(c, "condition", ptr)
	for _, k := range []string{"and", "or"} {
		list, _ := c.get(k).([]any)
		for i, x := range list {
			if xo, ok := x.(*object); ok {
				n.criterion(xo, fmt.Sprintf("%s/%s/%d", ptr, k, i))
			}
		}
	}
	if x := c.obj("not"); x != nil {
		n.criterion(x, ptr+"/not")
	}
}

// condField rewrites the condition at o[k]; an empty one, always true,
// is dropped.
func (n *normalizer) condField(o *object, k, ptr string) {
	c, ok := o.get(k).(*object)
	if !ok {
		return
	}
	if len(c.keys) == 0 {
		o.del(k)
		n.warn(EmptyCondition, ptr+"/"+k, "an empty condition is always true: dropped")
		return
	}
	o.set(k, n.cond(c, ptr+"/"+k))
}

// cond rewrites one condition: not_equals and array operands. What the
// canonical operators cannot say (var alone, startsWith, …) is left for
// workflow.Parse to explain, as in a canonical file.
func (n *normalizer) cond(v any, ptr string) any {
	c, ok := v.(*object)
	if !ok {
		return v
	}
	for _, k := range []string{"and", "or"} {
		list, _ := c.get(k).([]any)
		for i, x := range list {
			list[i] = n.cond(x, fmt.Sprintf("%s/%s/%d", ptr, k, i))
		}
	}
	if c.has("not") {
		c.set("not", n.cond(c.get("not"), ptr+"/not"))
	}
	name := c.str("var")
	switch {
	case c.has("not_equals") && isArray(c.get("not_equals")):
		n.warn(ArrayOperand, ptr+"/not_equals", "not_equals an array is always true in the TypeScript tools (arrays never compare equal): it becomes a condition that always holds")
		return constant(name, true)
	case c.has("equals") && isArray(c.get("equals")):
		n.warn(ArrayOperand, ptr+"/equals", "equals an array is never true in the TypeScript tools (arrays never compare equal): it becomes a condition that never holds")
		return constant(name, false)
	case c.has("not_equals") && len(c.keys) == 2 && name != "":
		inner := newObject()
		inner.set("var", name)
		inner.set("equals", c.get("not_equals"))
		out := newObject()
		out.set("not", inner)
		n.warn(NotEqualsRewritten, ptr+"/not_equals", "not_equals is read as not(equals): true when %s is unset, as before", name)
		return out
	}
	return c
}

func isArray(v any) bool { _, ok := v.([]any); return ok }

// constant is a condition on name that always (or never) holds.
func constant(name string, holds bool) *object {
	set, unset := newObject(), newObject()
	set.set("var", name)
	set.set("exists", true)
	unset.set("var", name)
	unset.set("exists", false)
	out := newObject()
	op := "and"
	if holds {
		op = "or"
	}
	out.set(op, []any{set, unset})
	return out
}
