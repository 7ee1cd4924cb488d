package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

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
func Render(c compile.Compiled, s Snapshot, p Place) Rendered {
	st := p.Step
	scope := Scope(c, s)
	blocks := []string{Substitute(st.Prompt, scope)}
	for _, f := range st.Fragments {
		if f.When == nil || f.When.Eval(scope) {
			blocks = append(blocks, Substitute(f.Text, scope))
		}
	}
	if len(st.Delegations) > 0 {
		blocks = append(blocks, delegations(st.Delegations, scope))
	}
	blocks = append(blocks, notesBlock(c, st, scope), outcome.AssessmentRequirements(c, st))
	blocks = slices.DeleteFunc(blocks, func(b string) bool { return strings.TrimSpace(b) == "" })
	if len(blocks) > 1 {
		for i, b := range blocks {
			blocks[i] = strings.TrimRight(b, "\n")
		}
	}
	return Rendered{Title: Substitute(st.Title, scope), Prompt: strings.Join(blocks, "\n\n"), RequireConfirmation: confirms(st, scope)}
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
	return outcome.UserNeed{Declared: st.UserDependency, Confirm: confirms(st, scope), Title: Substitute(st.Title, scope)}
}

// notesBlock says what the step's notes must be: required, and what its
// criteria that apply ask. Empty when the step asks nothing of them.
func notesBlock(c compile.Compiled, st *compile.Step, scope map[string]any) string {
	rules := outcome.NotesCriteria(st, scope)
	if len(rules) == 0 {
		if outcome.NotesRequired(c, st) {
			return "Notes are required at this step: write in output.notesMarkdown what you did and what you found."
		}
		return ""
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
func delegations(ds []workflow.ParallelDelegation, scope map[string]any) string {
	var b strings.Builder
	n := 0
	for _, d := range ds {
		if d.RunCondition != nil && !d.RunCondition.Eval(scope) {
			continue
		}
		if n == 0 {
			b.WriteString("Delegate: start each piece of work below as a subagent (in parallel when you can), each running the named workflow with start_workflow and the inputs given as its context. Wait for all of them, then merge what they found into your notes.\n")
		}
		n++
		goal := d.Goal
		if goal == "" {
			goal = "run " + string(d.WorkflowID)
		}
		fmt.Fprintf(&b, "%d. Workflow %s. Goal: %s.", n, d.WorkflowID, strings.TrimSuffix(Substitute(goal, scope), "."))
		if in := delegationInputs(d, scope); in != "" {
			fmt.Fprintf(&b, " Inputs: %s.", in)
		}
		if len(d.AllowedTools) > 0 {
			fmt.Fprintf(&b, " Allowed tools: %s.", strings.Join(d.AllowedTools, ", "))
		}
		b.WriteString("\n")
	}
	if n == 0 {
		return "No delegation applies at this point: continue with this step yourself, without starting any subagent."
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// delegationInputs is a delegation's context for the workflow it starts:
// each contextMapping entry (input name → variable here) read from scope,
// overridden by the static args; compact JSON with sorted keys.
func delegationInputs(d workflow.ParallelDelegation, scope map[string]any) string {
	in := map[string]any{}
	for name, from := range d.ContextMapping {
		if v, ok := lookup(scope, from); ok {
			in[name] = v
		} else {
			in[name] = unsetMarker(from)
		}
	}
	for k, v := range d.Args {
		in[k] = v
	}
	if len(in) == 0 {
		return ""
	}
	return plain(in)
}

// Substitute replaces each {{var}} / {{var.path}} in text (a name of
// letters, digits, _ and -, not starting with a digit, then .-separated
// parts) with the value scope holds there: a string as is, anything else
// as compact JSON; an unset one with a visible [unset: var] marker.
// {{wr.…}} is WorkRail's own and left alone, as is anything else between
// braces.
func Substitute(text string, scope map[string]any) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	var b strings.Builder
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
		b.WriteString(text[:open])
		if isPath(path) && !strings.HasPrefix(path, "wr.") {
			b.WriteString(valueText(scope, path))
		} else {
			b.WriteString(text[open : open+4+end])
		}
		text = text[open+4+end:]
	}
	b.WriteString(text)
	return b.String()
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
