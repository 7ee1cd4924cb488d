package outcome

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// NotesRequired reports whether step s's advance needs non-blank notes:
// under the workflow's notes policy "required" unless the step says
// notesOptional or requires an output contract (an artifact is then the
// step's record; so is a rating, but not under the workrail-ts dialect's
// rules, where only a contract spares the notes, as there), and at any
// step whose notes have criteria unless it says notesOptional (criteria
// about notes that were never written would pass vacuously).
func NotesRequired(c compile.Compiled, s *compile.Step) bool {
	if s.NotesOptional {
		return false
	}
	if len(s.Criteria) > 0 {
		return true
	}
	contract := (s.Output != nil && s.Output.ContractRef != "") || len(s.AssessmentRefs) > 0 && !c.TSRules()
	return c.Notes == workflow.NotesRequired && !contract
}

// NotesLength is how long the notes of c's steps are asked to be: 1 to
// 10 lines, or 10 to 30 under the workrail-ts dialect's rules, which ask
// what the TypeScript WorkRail asked (too short loses what a later
// session needs).
func NotesLength(c compile.Compiled) string {
	if c.TSRules() {
		return "10-30 lines"
	}
	return "1-10 lines"
}

// Notes checks the notes sent with an ack of step s: present when the
// step requires them, and meeting its validation criteria, whose
// conditions read scope (the context and loop variables at the step).
func Notes(c compile.Compiled, s *compile.Step, notes string, scope map[string]any) []Reason {
	if strings.TrimSpace(notes) == "" {
		if NotesRequired(c, s) {
			return []Reason{{Code: MissingNotes, Step: s.ID, Detail: strings.Join(NotesCriteria(s, scope), "; "), Length: NotesLength(c)}}
		}
		return nil
	}
	var failed []string
	for _, r := range s.Criteria {
		failed = append(failed, unmet(r, notes, scope)...)
	}
	if len(failed) == 0 {
		return nil
	}
	return []Reason{{Code: NotesCriteriaUnmet, Step: s.ID, Detail: strings.Join(failed, "; ")}}
}

// unmet returns what criterion r finds wrong with notes: nothing when it
// holds (or its condition does not), else the author's message or a
// description of the rule.
func unmet(r workflow.Criterion, notes string, scope map[string]any) []string {
	if r.Condition != nil && !r.Condition.Eval(scope) {
		return nil
	}
	var failed []string
	switch {
	case r.And != nil:
		for _, x := range r.And {
			failed = append(failed, unmet(x, notes, scope)...)
		}
		if len(failed) > 0 && r.Message != "" {
			return []string{r.Message}
		}
		return failed
	case r.Or != nil:
		for _, x := range r.Or {
			f := unmet(x, notes, scope)
			if len(f) == 0 {
				return nil
			}
			failed = append(failed, f...)
		}
		return []string{cmp.Or(r.Message, "one of: "+strings.Join(failed, " | "))}
	case r.Not != nil:
		if len(unmet(*r.Not, notes, scope)) == 0 {
			return []string{cmp.Or(r.Message, "not "+describe(*r.Not))}
		}
		return nil
	}
	if holds(r, notes) {
		return nil
	}
	return []string{cmp.Or(r.Message, describe(r))}
}

// holds checks one rule: contains is a case-sensitive substring, regex a
// Go (RE2) pattern with the flags i, m and s, length a count of
// characters.
func holds(r workflow.Criterion, notes string) bool {
	switch r.Type {
	case workflow.CriterionContains:
		return strings.Contains(notes, r.Value)
	case workflow.CriterionRegex:
		re, err := pattern(r)
		return err == nil && re.MatchString(notes)
	case workflow.CriterionLength:
		n := utf8.RuneCountInString(notes)
		return (r.Min == nil || n >= *r.Min) && (r.Max == nil || n <= *r.Max)
	}
	return false
}

// pattern compiles a regex rule. A pattern that does not compile fails
// its rule: the checker refuses it, so only a pinned workflow written
// before that check can hold one.
func pattern(r workflow.Criterion) (*regexp.Regexp, error) {
	flags := ""
	for _, f := range "ims" {
		if strings.ContainsRune(r.Flags, f) {
			flags += string(f)
		}
	}
	if flags != "" {
		return regexp.Compile("(?" + flags + ")" + r.Pattern)
	}
	return regexp.Compile(r.Pattern)
}

// NotesCriteria describes step s's criteria that apply at scope, one line
// each, as the prompt lists them under "Your notes must:".
func NotesCriteria(s *compile.Step, scope map[string]any) []string {
	var out []string
	for _, r := range s.Criteria {
		if r.Condition != nil && !r.Condition.Eval(scope) {
			continue
		}
		d := describe(r)
		if r.Message != "" && r.Message != d {
			d += " (" + r.Message + ")"
		}
		out = append(out, d)
	}
	return out
}

// describe says what a criterion asks in words (its condition aside: the
// prompt lists only the criteria whose conditions hold).
func describe(r workflow.Criterion) string {
	join := func(list []workflow.Criterion, sep string) string {
		parts := make([]string, len(list))
		for i, x := range list {
			parts[i] = describe(x)
		}
		return strings.Join(parts, sep)
	}
	var d string
	switch {
	case r.And != nil:
		d = join(r.And, " and ")
	case r.Or != nil:
		d = "either " + join(r.Or, " or ")
	case r.Not != nil:
		d = "not " + describe(*r.Not)
	case r.Type == workflow.CriterionContains:
		d = fmt.Sprintf("contain %q", r.Value)
	case r.Type == workflow.CriterionRegex:
		d = fmt.Sprintf("match the pattern /%s/%s", r.Pattern, r.Flags)
	case r.Type == workflow.CriterionLength:
		d = lengthText(r.Min, r.Max)
	}
	return d
}

func lengthText(min, max *int) string {
	switch {
	case min != nil && max != nil:
		return fmt.Sprintf("be %d to %d characters long", *min, *max)
	case min != nil:
		return fmt.Sprintf("be at least %d characters long", *min)
	case max != nil:
		return fmt.Sprintf("be at most %d characters long", *max)
	}
	return "have any length"
}
