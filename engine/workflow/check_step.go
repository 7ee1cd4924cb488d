package workflow

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/workrail/workrail/engine"
)

// The checks of what a step adds to its prompt and its advance: prompt
// fragments, function references, assessments and their consequences,
// notes criteria and parallel delegations.

func (c *checker) fragments(list []Fragment, ptr string) {
	seen := map[string]bool{}
	for i, f := range list {
		p := fmt.Sprintf("%s/%d", ptr, i)
		c.label(p+"/id", f.ID, "fragment", seen)
		c.nonEmpty(p+"/text", f.Text)
		if f.When != nil {
			c.condition(*f.When, p+"/when")
		}
	}
}

// functionRefs checks that each name is defined by the step, an
// enclosing loop or the workflow.
func (c *checker) functionRefs(s Step, ptr string) {
	own := c.functionDefs(s.FunctionDefinitions, ptr+"/functionDefinitions")
	for i, name := range s.FunctionReferences {
		p := fmt.Sprintf("%s/functionReferences/%d", ptr, i)
		if own[name] || slices.ContainsFunc(c.functions, func(m map[string]bool) bool { return m[name] }) {
			continue
		}
		var known []string
		for _, m := range append(c.functions, own) {
			known = append(known, sortedKeys(m)...)
		}
		c.suggest(p, fmt.Sprintf("function %q is not defined for this step (in its functionDefinitions, an enclosing loop's or the workflow's)", name),
			engine.Closest(name, known))
	}
}

func (c *checker) assessmentUse(s Step, ptr string) {
	refs := map[AssessmentID]bool{}
	for i, id := range s.AssessmentRefs {
		p := fmt.Sprintf("%s/assessmentRefs/%d", ptr, i)
		switch _, ok := c.assessments[id]; {
		case !ok:
			c.suggest(p, fmt.Sprintf("assessment %q is not declared in the workflow's assessments", id),
				engine.Closest(string(id), names(sortedKeys(c.assessments))))
		case refs[id]:
			c.add(p, "assessment %q is referenced twice", id)
		}
		refs[id] = true
	}
	if len(s.AssessmentConsequences) > 0 && len(s.AssessmentRefs) == 0 {
		c.add(ptr+"/assessmentConsequences", "consequences need the step's assessmentRefs: they fire on the levels recorded for them")
	}
	triggers := map[ConsequenceWhen]bool{}
	for i, q := range s.AssessmentConsequences {
		p := fmt.Sprintf("%s/assessmentConsequences/%d", ptr, i)
		scope := s.AssessmentRefs
		if q.When.ForAssessment != "" {
			if !refs[q.When.ForAssessment] {
				c.add(p+"/when/forAssessment", "%q is not one of this step's assessmentRefs", q.When.ForAssessment)
			}
			scope = []AssessmentID{q.When.ForAssessment}
		}
		if !c.levelIn(q.When.AnyEqualsLevel, scope) && len(s.AssessmentRefs) > 0 {
			c.add(p+"/when/anyEqualsLevel", "level %q is not a level of any dimension of %s", q.When.AnyEqualsLevel, strings.Join(names(scope), ", "))
		}
		if triggers[q.When] {
			c.add(p+"/when", "the same trigger is given twice")
		}
		triggers[q.When] = true
		if q.Effect.Kind != RequireFollowup {
			c.add(p+"/effect/kind", "must be %q, not %q", RequireFollowup, q.Effect.Kind)
		}
		c.nonEmpty(p+"/effect/guidance", q.Effect.Guidance)
	}
}

// levelIn reports whether level is a level of some dimension of the
// given assessments.
func (c *checker) levelIn(level string, ids []AssessmentID) bool {
	for _, id := range ids {
		for _, d := range c.assessments[id].Dimensions {
			if slices.Contains(d.Levels, level) {
				return true
			}
		}
	}
	return false
}

// regexFlags are the flags a regex criterion may carry; each maps to
// Go's inline flag of the same letter.
const regexFlags = "ims"

func (c *checker) criteria(list []Criterion, ptr string) {
	for i, k := range list {
		c.criterion(k, fmt.Sprintf("%s/%d", ptr, i))
	}
}

// criterion checks one notes check or combination: exactly one of type,
// and, or, not, and only the fields its type uses.
func (c *checker) criterion(k Criterion, ptr string) {
	forms := 0
	for _, b := range []bool{k.Type != "", k.And != nil, k.Or != nil, k.Not != nil} {
		if b {
			forms++
		}
	}
	if forms != 1 {
		c.add(ptr, "a criterion needs exactly one of type (contains, regex, length), and, or, not; it has %d", forms)
		return
	}
	if k.Condition != nil {
		c.condition(*k.Condition, ptr+"/condition")
	}
	switch {
	case k.And != nil, k.Or != nil:
		op, parts := "and", k.And
		if k.Or != nil {
			op, parts = "or", k.Or
		}
		if len(parts) == 0 {
			c.add(ptr+"/"+op, "%s needs at least one criterion", op)
		}
		c.criteria(parts, ptr+"/"+op)
		c.unused(k, ptr, "combination")
		return
	case k.Not != nil:
		c.criterion(*k.Not, ptr+"/not")
		c.unused(k, ptr, "combination")
		return
	}
	c.nonEmpty(ptr+"/message", k.Message)
	switch k.Type {
	case CriterionContains:
		if k.Value == "" {
			c.add(ptr+"/value", "a contains criterion needs value: the text the notes must contain")
		}
	case CriterionRegex:
		c.regex(k, ptr)
	case CriterionLength:
		c.length(k, ptr)
	default:
		c.add(ptr+"/type", "must be contains, regex or length, not %q", k.Type)
		return
	}
	c.unused(k, ptr, string(k.Type))
}

// unused refuses fields a criterion's form does not read.
func (c *checker) unused(k Criterion, ptr, form string) {
	uses := map[string][]string{"contains": {"value"}, "regex": {"pattern", "flags"}, "length": {"min", "max"}}[form]
	for _, f := range []struct {
		name string
		set  bool
	}{{"value", k.Value != ""}, {"pattern", k.Pattern != ""}, {"flags", k.Flags != ""}, {"min", k.Min != nil}, {"max", k.Max != nil}} {
		if f.set && !contains(uses, f.name) {
			c.add(ptr+"/"+f.name, "%s does not apply to a %s criterion", f.name, form)
		}
	}
}

func (c *checker) regex(k Criterion, ptr string) {
	if k.Pattern == "" {
		c.add(ptr+"/pattern", "a regex criterion needs pattern")
		return
	}
	for i, f := range k.Flags {
		if !strings.ContainsRune(regexFlags, f) || strings.ContainsRune(k.Flags[:i], f) {
			c.add(ptr+"/flags", "flags are any of i (ignore case), m (^ and $ match at lines), s (. matches newline), each once; not %q", k.Flags)
			return
		}
	}
	if _, err := CompileCriterionRegex(k.Pattern, k.Flags); err != nil {
		c.add(ptr+"/pattern", "%v; WorkRail uses Go's RE2 syntax, which has no lookahead or lookbehind ((?=, (?!, (?<=, (?<!), no backreferences (\\1) and no possessive or atomic groups", err)
	}
}

// CompileCriterionRegex compiles a regex criterion's pattern with its
// flags as Go inline flags.
func CompileCriterionRegex(pattern, flags string) (*regexp.Regexp, error) {
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	return regexp.Compile(pattern)
}

func (c *checker) length(k Criterion, ptr string) {
	switch {
	case k.Min == nil && k.Max == nil:
		c.add(ptr, "a length criterion needs min, max or both")
	case k.Min != nil && *k.Min < 0:
		c.add(ptr+"/min", "must be at least 0")
	case k.Max != nil && *k.Max < 0:
		c.add(ptr+"/max", "must be at least 0")
	case k.Min != nil && k.Max != nil && *k.Min > *k.Max:
		c.add(ptr+"/min", "min %d exceeds max %d", *k.Min, *k.Max)
	}
}

func (c *checker) delegations(list []ParallelDelegation, ptr string) {
	for i, d := range list {
		p := fmt.Sprintf("%s/%d", ptr, i)
		if _, err := StatusOf(d.WorkflowID); err != nil {
			c.add(p+"/workflowId", "%v", err)
		}
		if d.RunCondition != nil {
			c.condition(*d.RunCondition, p+"/runCondition")
		}
		for _, k := range sortedKeys(d.ContextMapping) {
			kp := p + "/contextMapping/" + engine.PointerToken(k)
			if !namePattern.MatchString(k) {
				c.add(kp, "parameter name %q must match [A-Za-z_][A-Za-z0-9_]*", k)
			}
			if v := d.ContextMapping[k]; !namePattern.MatchString(v) {
				c.add(kp, "must name a context variable ([A-Za-z_][A-Za-z0-9_]*), not %q", v)
			}
		}
		if d.ModelTier != "" && !contains(modelTiers, d.ModelTier) {
			c.add(p+"/modelTier", "must be lightweight, mid or heavy, not %q", d.ModelTier)
		}
		for j, t := range d.AllowedTools {
			c.nonEmpty(fmt.Sprintf("%s/allowedTools/%d", p, j), t)
		}
	}
}
