package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

// Rendered is a pending step as the agent reads it: what the compiled
// step leaves to render time decided from the node's snapshot.
type Rendered struct {
	Title               string
	Prompt              string
	RequireConfirmation bool
}

// Render decides, from snapshot s alone (so a rehydrate or a replay renders
// the same bytes), what step p.Step asks: its prompt with {{var}}
// references resolved, then the prompt fragments whose conditions hold (in
// declaration order), the delegation instructions, what its notes must
// say and the assessments it requires, each block after a blank line;
// and whether the user confirms it. Conditions and references read the
// context with the enclosing loops' variables (Scope).
//
// A title and prompt over compile.MaxPromptBytes together are not built:
// they are measured first, and Render answers a PAYLOAD_TOO_LARGE
// *engine.Error (CheckRender) instead.
func Render(c compile.Compiled, s Snapshot, p Place) (Rendered, error) {
	title, prompt, scope := compose(c, s, p)
	if err := fits(p.Step, title, prompt); err != nil {
		return Rendered{}, err
	}
	return Rendered{Title: title.String(), Prompt: prompt.String(), RequireConfirmation: confirms(p.Step, scope)}, nil
}

// CheckRender is the error Render would answer for the pending step of
// s, nil when it renders within the limit or the run is complete. Start
// and Advance check the step they move to, so that a move whose step
// could not be shown is refused before it is recorded.
func CheckRender(c compile.Compiled, s Snapshot) error {
	p, pending := PendingStep(c, s)
	if !pending {
		return nil
	}
	title, prompt, _ := compose(c, s, p)
	return fits(p.Step, title, prompt)
}

// compose is the title and prompt of p.Step as the texts they are
// written from, and the scope they read.
func compose(c compile.Compiled, s Snapshot, p Place) (title, prompt compile.Text, scope map[string]any) {
	st := p.Step
	scope = Scope(c, s)
	v := values{scope: scope}
	blocks := []compile.Text{{loopGuidance(c, s, st)}, v.substitute(st.Prompt)}
	for _, f := range st.Fragments {
		if f.When == nil || f.When.Eval(scope) {
			blocks = append(blocks, v.substitute(f.Text))
		}
	}
	if len(st.Delegations) > 0 {
		blocks = append(blocks, v.delegations(st.Delegations))
	}
	blocks = append(blocks, compile.Text{notesBlock(c, st, scope)}, compile.Text{outcome.AssessmentRequirements(c, st)})
	blocks = slices.DeleteFunc(blocks, func(b compile.Text) bool { return len(b.TrimLeft(unicode.IsSpace)) == 0 })
	for i, b := range blocks {
		if i > 0 {
			prompt = append(prompt, "\n\n")
		}
		if len(blocks) > 1 {
			b = b.TrimRight(func(r rune) bool { return r == '\n' })
		}
		prompt = append(prompt, b...)
	}
	return v.substitute(st.Title), prompt, scope
}

// fits refuses a title and prompt over compile.MaxPromptBytes together.
func fits(st *compile.Step, title, prompt compile.Text) error {
	n := title.Len() + prompt.Len()
	if n <= compile.MaxPromptBytes {
		return nil
	}
	limit := compile.Bytes(compile.MaxPromptBytes)
	var e *engine.Error
	if own := len(st.Title) + len(st.Prompt); own > compile.MaxPromptBytes {
		e = engine.Errorf(engine.CodePayloadTooLarge, "Step %s would render to %s bytes, over the limit of %s for one prompt: "+
			"its workflow's own text for this step is %s bytes (the run's pinned version was compiled before the limit existed), so no context makes it fit. "+
			"Nothing was recorded, and this run cannot go on at this step: start the workflow again (its current version, if it loads, is within the limits).",
			st.ID, compile.Grouped(n), limit, compile.Grouped(own))
	} else {
		e = engine.Errorf(engine.CodePayloadTooLarge, "Step %s would render to %s bytes once its {{…}} references are filled in from the run's context, over the limit of %s for one prompt. "+
			"Nothing was recorded. Send smaller context values: in the same call (a start, or an advance, whose ackToken is still unused), "+
			"or, for a run already at this step, fork from the step before it with smaller values (rehydrate that step's stateToken and advance again, or use Fork here in the Console).",
			st.ID, compile.Grouped(n), limit)
	}
	return e.With("stepId", st.ID).With("renderedBytes", n).With("limitBytes", compile.MaxPromptBytes)
}

// confirms reports whether step st asks the user's confirmation at scope:
// requireConfirmation set, or its condition holding.
func confirms(st *compile.Step, scope map[string]any) bool {
	return st.RequireConfirmation || (st.ConfirmWhen != nil && st.ConfirmWhen.Eval(scope))
}

// Need is what step st needs of the user at scope (Scope of the node's
// snapshot): the user-only dependency it declares and, when it asks, the
// user's confirmation, decided as Render decides it, so what the prompt
// says and what an attempt is judged by are one.
func Need(st *compile.Step, scope map[string]any) outcome.UserNeed {
	return outcome.UserNeed{Declared: st.UserDependency, Confirm: confirms(st, scope), Title: titleAt(st, scope)}
}

// titleAt is st's title rendered at scope, or as compiled when it would
// render past the limit of a prompt.
func titleAt(st *compile.Step, scope map[string]any) string {
	v := values{scope: scope}
	if t := v.substitute(st.Title); t.Len() <= compile.MaxPromptBytes {
		return t.String()
	}
	return st.Title
}

// loopGuidance is what a step in a loop's body is told of the pass it is
// in, under the workrail-ts dialect's rules, as the TypeScript WorkRail
// tells it (in WorkRail's words): on the first pass, that the loop
// repeats and what ends it; on later passes, which pass of how many, what
// to look at in it (what the first pass missed; then gaps and
// regressions; on the last, whether the earlier changes landed), and to
// build on the earlier passes. A loop's deciding step, which asks for
// the decision instead, and a forEach loop's steps, each pass on its own
// item, are told nothing.
func loopGuidance(c compile.Compiled, s Snapshot, st *compile.Step) string {
	path := s.Position.Path
	if !c.TSRules() || len(path) < 2 || st.Output != nil && st.Output.ContractRef == workflow.ContractLoopControl {
		return ""
	}
	l := c.Steps[path[0].Index].Loop
	for _, f := range path[1 : len(path)-1] {
		l = l.Body[f.Index].Loop
	}
	spec := l.Spec
	if spec.Kind == workflow.ForEach {
		return ""
	}
	pass, total, upTo := path[len(path)-1].Iteration+1, spec.MaxIterations, "at most "
	if spec.Kind == workflow.For {
		if n, ok := countOf(spec, s.Context); ok {
			total, upTo = min(n, spec.MaxIterations), ""
		}
	}
	if pass == 1 {
		switch {
		case spec.Kind == workflow.For:
			return fmt.Sprintf("This is pass 1 of %s%d of a loop: the same work is done again in each pass.", upTo, total)
		case spec.Condition == nil:
			return fmt.Sprintf("This step is in a loop of at most %d passes: after your work, the loop's deciding step says whether another pass is needed.", total)
		}
		return fmt.Sprintf("This step is in a loop of at most %d passes, which goes on while its condition holds.", total)
	}
	var focus string
	switch {
	case pass == 2:
		focus = "Look for what the first pass missed; do not reopen what it settled."
	case pass >= total:
		focus = "This is the last pass: check that the changes of the earlier passes landed correctly, and raise only regressions or plain misses."
	default:
		focus = "Expect less to find now: look at gaps and regressions, not new ground."
	}
	return fmt.Sprintf("Pass %d of %s%d. %s Build on what the earlier passes found (your notes of them); do not redo finished work.", pass, upTo, total, focus)
}

// notesBlock says what the step's notes must be: required, and what its
// criteria that apply ask. Empty when the step asks nothing of them.
func notesBlock(c compile.Compiled, st *compile.Step, scope map[string]any) string {
	rules := outcome.NotesCriteria(st, scope)
	if len(rules) == 0 {
		switch {
		case !outcome.NotesRequired(c, st):
			return ""
		case c.TSRules():
			return "Notes are required at this step: write in output.notesMarkdown, in 10 to 30 lines, what you did, what you found and what you decided, " +
				"with the evidence (files, commands, numbers). They are what a later session reads instead of this chat: too short is worse than too long."
		}
		return "Notes are required at this step: write in output.notesMarkdown what you did and what you found."
	}
	var b strings.Builder
	b.WriteString("Your notes (output.notesMarkdown) must:")
	for _, r := range rules {
		b.WriteString("\n- " + r)
	}
	return b.String()
}

// delegations renders a step's parallel delegations as instructions: one
// per delegation whose condition holds, in declaration order. WorkRail
// starts and tracks none of them; the agent does, and reports back in its
// notes.
func (v *values) delegations(ds []workflow.ParallelDelegation) compile.Text {
	var t compile.Text
	n := 0
	for _, d := range ds {
		if d.RunCondition != nil && !d.RunCondition.Eval(v.scope) {
			continue
		}
		if n == 0 {
			t = append(t, "Delegate: start each piece of work below as a subagent (in parallel when you can), each running the named workflow with start_workflow and the inputs given as its context. Wait for all of them, then merge what they found into your notes.\n")
		}
		n++
		goal := d.Goal
		if goal == "" {
			goal = "run " + string(d.WorkflowID)
		}
		t = append(t, strconv.Itoa(n), ". Workflow ", string(d.WorkflowID), ". Goal: ")
		t = append(append(t, v.substitute(goal).TrimSuffix(".")...), ".")
		if in := v.delegationInputs(d); len(in) > 0 {
			t = append(append(append(t, " Inputs: "), in...), ".")
		}
		if len(d.AllowedTools) > 0 {
			t = append(t, " Allowed tools: ", strings.Join(d.AllowedTools, ", "), ".")
		}
		t = append(t, "\n")
	}
	if n == 0 {
		return compile.Text{"No delegation applies at this point: continue with this step yourself, without starting any subagent."}
	}
	return t.TrimSuffix("\n")
}

// delegationInputs is a delegation's context for the workflow it starts:
// each contextMapping entry (input name → variable here) read from scope,
// overridden by the static args; compact JSON with sorted keys.
func (v *values) delegationInputs(d workflow.ParallelDelegation) compile.Text {
	in := map[string]compile.Text{}
	for name, from := range d.ContextMapping {
		in[name] = compile.Text{v.json(from)}
	}
	for k, a := range d.Args {
		in[k] = compile.Text{plain(a)}
	}
	if len(in) == 0 {
		return nil
	}
	t := compile.Text{"{"}
	for i, k := range slices.Sorted(maps.Keys(in)) {
		if i > 0 {
			t = append(t, ",")
		}
		t = append(append(t, plain(k), ":"), in[k]...)
	}
	return append(t, "}")
}

// values are the texts references show at one step, each written once
// however often it is referenced.
type values struct {
	scope map[string]any
	texts map[string]string // path → what {{path}} shows
	jsons map[string]string // path → its value as JSON, or its unset marker's
}

// Substitute replaces each {{var}} / {{var.path}} in text (a name of
// letters, digits, _ and -, not starting with a digit, then .-separated
// parts) with the value scope holds there: a string as is, anything else
// as compact JSON; an unset one with a visible [unset: var] marker.
// {{wr.…}} is WorkRail's own and left alone, as is anything else between
// braces.
func Substitute(text string, scope map[string]any) string {
	v := values{scope: scope}
	return v.substitute(text).String()
}

// substitute is text with its references replaced, as the parts it is
// written from: text's own, and each value's text, shared.
func (v *values) substitute(text string) compile.Text {
	if !strings.Contains(text, "{{") {
		return compile.Text{text}
	}
	var t compile.Text
	for {
		open := strings.Index(text, "{{")
		if open < 0 {
			break
		}
		end := strings.Index(text[open+2:], "}}")
		if end < 0 {
			break
		}
		path := strings.TrimSpace(text[open+2 : open+2+end])
		if isPath(path) && !strings.HasPrefix(path, "wr.") {
			t = append(t, text[:open], v.text(path))
		} else {
			t = append(t, text[:open+4+end])
		}
		text = text[open+4+end:]
	}
	return append(t, text)
}

// text is what a reference to path shows.
func (v *values) text(path string) string {
	if s, ok := v.texts[path]; ok {
		return s
	}
	if v.texts == nil {
		v.texts = map[string]string{}
	}
	s := valueText(v.scope, path)
	v.texts[path] = s
	return s
}

// json is path's value as JSON, or its unset marker's.
func (v *values) json(path string) string {
	if s, ok := v.jsons[path]; ok {
		return s
	}
	if v.jsons == nil {
		v.jsons = map[string]string{}
	}
	x, ok := lookup(v.scope, path)
	if !ok {
		x = unsetMarker(path)
	}
	s := plain(x)
	v.jsons[path] = s
	return s
}

// isPath reports whether p is a reference: dot-separated parts of letters,
// digits, _ and -, the first starting with a letter or _.
func isPath(p string) bool {
	if p == "" || p[0] >= '0' && p[0] <= '9' || p[0] == '-' {
		return false
	}
	for _, part := range strings.Split(p, ".") {
		if part == "" {
			return false
		}
		for _, c := range part {
			if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

// valueText is what a reference to path shows.
func valueText(scope map[string]any, path string) string {
	v, ok := lookup(scope, path)
	if !ok {
		return unsetMarker(path)
	}
	if s, ok := v.(string); ok {
		return s
	}
	return plain(v)
}

// lookup follows a dotted path through objects (and array indexes).
func lookup(scope map[string]any, path string) (any, bool) {
	parts := strings.Split(path, ".")
	v, ok := scope[parts[0]]
	for _, p := range parts[1:] {
		if !ok {
			break
		}
		switch x := v.(type) {
		case map[string]any:
			v, ok = x[p]
		case []any:
			i, err := strconv.Atoi(p)
			ok = err == nil && strconv.Itoa(i) == p && i >= 0 && i < len(x)
			if ok {
				v = x[i]
			}
		default:
			ok = false
		}
	}
	return v, ok && v != nil
}

func unsetMarker(path string) string { return "[unset: " + path + "]" }

// plain marshals v compactly, keys sorted, without HTML escaping.
func plain(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(buf.String())
}
