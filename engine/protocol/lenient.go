package protocol

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/workflow"
)

// literals is what a workflow's conditions compare one variable with:
// the string spellings, and whether it is compared with numbers (by
// equality, or in order: gt, gte, lt, lte) or with booleans.
type literals struct {
	strings   []string
	numericEq bool
	ordered   bool
	booleans  bool
}

func (l *literals) numeric() bool { return l.numericEq || l.ordered }

// literalsOf collects, for every variable, the operands of every condition
// the compiled workflow holds: run conditions, confirmation conditions,
// fragment and delegation conditions, criteria conditions, loop
// conditions.
func literalsOf(w compile.Workflow) map[string]*literals {
	out := map[string]*literals{}
	visit := func(c *workflow.Condition) {
		if c == nil {
			return
		}
		c.Walk(func(x workflow.Condition) {
			if x.Var == "" {
				return
			}
			l := out[x.Var]
			if l == nil {
				l = &literals{}
				out[x.Var] = l
			}
			for _, raw := range append([]json.RawMessage{x.Equals, x.NotEquals}, x.In...) {
				l.add(raw)
			}
			l.ordered = l.ordered || x.Gt != nil || x.Gte != nil || x.Lt != nil || x.Lte != nil
		})
	}
	var criteria func(list []workflow.Criterion)
	criteria = func(list []workflow.Criterion) {
		for _, r := range list {
			visit(r.Condition)
			criteria(r.And)
			criteria(r.Or)
			if r.Not != nil {
				criteria([]workflow.Criterion{*r.Not})
			}
		}
	}
	compile.Walk(w.Steps, func(n compile.Node) {
		if l := n.Loop; l != nil {
			visit(l.RunCondition)
			visit(l.Spec.Condition)
			return
		}
		s := n.Step
		visit(s.RunCondition)
		visit(s.ConfirmWhen)
		for _, f := range s.Fragments {
			visit(f.When)
		}
		for _, d := range s.Delegations {
			visit(d.RunCondition)
		}
		criteria(s.Criteria)
	})
	return out
}

func (l *literals) add(raw json.RawMessage) {
	if raw == nil {
		return
	}
	var v any
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return
	}
	switch x := v.(type) {
	case string:
		if !slices.Contains(l.strings, x) {
			l.strings = append(l.strings, x)
		}
	case json.Number:
		l.numericEq = true
	case bool:
		l.booleans = true
	}
}

// canonical reads a lenient input's string value the way the workflow
// compares it: trimmed; a boolean when it is compared with booleans
// (yes/true/1, no/false/0, any case); a number when it is compared with
// numbers; else the one literal it equals ignoring case, or the trimmed
// text. Under the workrail-ts dialect's rules (ts) a text becomes a
// number only where the TypeScript WorkRail compares it as one, by
// equality with a number: in order (gt, gte, lt, lte) that engine
// compares numbers only, and a for loop's count is a number or nothing.
func canonical(in workflow.ContextInput, l *literals, s string, ts bool) any {
	t := strings.TrimSpace(s)
	if l == nil {
		l = &literals{}
	}
	if l.booleans || in.Type == workflow.TypeBoolean {
		switch strings.ToLower(t) {
		case "yes", "true", "1":
			return true
		case "no", "false", "0":
			return false
		}
	}
	numeric := l.numeric() || in.Type == workflow.TypeNumber || in.Type == workflow.TypeInteger
	if ts {
		numeric = l.numericEq
	}
	if numeric {
		var n json.Number
		if json.Unmarshal([]byte(t), &n) == nil && t != "" {
			return n
		}
	}
	var found []string
	for _, lit := range l.strings {
		if strings.EqualFold(t, lit) {
			found = append(found, lit)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return t
}

// canonicalize rewrites, in ctx, the values of lenient inputs to their
// canonical form, with one notice per value changed.
func canonicalize(w compile.Workflow, declared map[string]workflow.ContextInput, ctx map[string]any) []Warning {
	var lits map[string]*literals
	var ws []Warning
	for _, k := range sortedKeys(ctx) {
		in, ok := declared[k]
		if !ok || !in.Lenient {
			continue
		}
		if lits == nil {
			lits = literalsOf(w)
		}
		var c any
		switch v := ctx[k].(type) {
		case string:
			if c = canonical(in, lits[k], v, w.TSRules()); c == any(v) {
				continue
			}
		default:
			if c = asLiteral(lits[k], v, w.TSRules()); c == nil {
				continue
			}
		}
		v := ctx[k]
		ctx[k] = c
		ws = append(ws, Warning{Code: event.NoticeContextValueCanonicalized,
			Message: fmt.Sprintf("context.%s: %s was read as %s, the form this workflow compares it in", k, compactJSON(v), compactJSON(c))})
	}
	return ws
}

// asLiteral reads a number or a boolean an agent sent for a lenient
// input compared only with texts, by equality, as the TypeScript
// WorkRail compares it under the workrail-ts dialect's rules (ts): 3
// equals "3", and true equals "yes", "true" or "1" (false: "no", "false",
// "0"), any case. It is the one literal it so equals, or nil when it
// equals none, or several, or the input is compared in order too.
func asLiteral(l *literals, v any, ts bool) any {
	if !ts || l == nil || l.numeric() || l.booleans {
		return nil
	}
	var matches func(lit string) bool
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil
		}
		matches = func(lit string) bool {
			g, err := strconv.ParseFloat(strings.TrimSpace(lit), 64)
			return err == nil && g == f
		}
	case bool:
		words := map[bool][]string{true: {"yes", "true", "1"}, false: {"no", "false", "0"}}[x]
		matches = func(lit string) bool { return slices.Contains(words, strings.ToLower(strings.TrimSpace(lit))) }
	default:
		return nil
	}
	var found []string
	for _, lit := range l.strings {
		if matches(lit) {
			found = append(found, lit)
		}
	}
	if len(found) != 1 {
		return nil
	}
	return found[0]
}
