package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/workrail/workrail/engine/canon"
)

// Condition is a closed-operator predicate over context. Each condition
// object carries exactly one operator: a comparison of one variable
// (equals, notEquals, in, contains, exists, gt, gte, lt, lte) or a
// combination (and, or, not). Every comparison except exists is false when
// its variable is absent; not negates whatever its operand says. contains
// is a case-insensitive substring test of the value's text (of any element,
// for an array).
type Condition struct {
	Var       string            `json:"var,omitempty"`
	Equals    json.RawMessage   `json:"equals,omitempty"`
	NotEquals json.RawMessage   `json:"notEquals,omitempty"`
	In        []json.RawMessage `json:"in,omitempty"`
	Contains  json.RawMessage   `json:"contains,omitempty"`
	Exists    *bool             `json:"exists,omitempty"`
	Gt        *json.Number      `json:"gt,omitempty"`
	Gte       *json.Number      `json:"gte,omitempty"`
	Lt        *json.Number      `json:"lt,omitempty"`
	Lte       *json.Number      `json:"lte,omitempty"`
	And       []Condition       `json:"and,omitempty"`
	Or        []Condition       `json:"or,omitempty"`
	Not       *Condition        `json:"not,omitempty"`
}

// Operator is the closed set of condition operators.
type Operator string

// Operators.
const (
	OpEquals    Operator = "equals"
	OpNotEquals Operator = "notEquals"
	OpIn        Operator = "in"
	OpContains  Operator = "contains"
	OpExists    Operator = "exists"
	OpGt        Operator = "gt"
	OpGte       Operator = "gte"
	OpLt        Operator = "lt"
	OpLte       Operator = "lte"
	OpAnd       Operator = "and"
	OpOr        Operator = "or"
	OpNot       Operator = "not"
)

// Operators lists every operator: the comparisons of one variable, then
// the combinations.
func Operators() []Operator {
	return []Operator{OpEquals, OpNotEquals, OpIn, OpContains, OpExists, OpGt, OpGte, OpLt, OpLte, OpAnd, OpOr, OpNot}
}

// operators lists the operators a condition object carries.
func (c Condition) operators() []Operator {
	var ops []Operator
	add := func(set bool, op Operator) {
		if set {
			ops = append(ops, op)
		}
	}
	add(c.Equals != nil, OpEquals)
	add(c.NotEquals != nil, OpNotEquals)
	add(c.In != nil, OpIn)
	add(c.Contains != nil, OpContains)
	add(c.Exists != nil, OpExists)
	add(c.Gt != nil, OpGt)
	add(c.Gte != nil, OpGte)
	add(c.Lt != nil, OpLt)
	add(c.Lte != nil, OpLte)
	add(c.And != nil, OpAnd)
	add(c.Or != nil, OpOr)
	add(c.Not != nil, OpNot)
	return ops
}

// Op returns the condition's one operator (the checker guarantees there is
// exactly one).
func (c Condition) Op() Operator { return c.operators()[0] }

// Eval evaluates c against ctx.
func (c Condition) Eval(ctx map[string]any) bool {
	switch op := c.Op(); op {
	case OpAnd:
		for _, x := range c.And {
			if !x.Eval(ctx) {
				return false
			}
		}
		return true
	case OpOr:
		for _, x := range c.Or {
			if x.Eval(ctx) {
				return true
			}
		}
		return false
	case OpNot:
		return !c.Not.Eval(ctx)
	default:
		v, ok := ctx[c.Var]
		if op == OpExists {
			return (ok && v != nil) == *c.Exists
		}
		return ok && v != nil && c.compare(op, v)
	}
}

func (c Condition) compare(op Operator, v any) bool {
	switch op {
	case OpEquals:
		return sameJSON(v, c.Equals)
	case OpNotEquals:
		return !sameJSON(v, c.NotEquals)
	case OpIn:
		for _, x := range c.In {
			if sameJSON(v, x) {
				return true
			}
		}
		return false
	case OpContains:
		return containsText(v, c.Contains)
	}
	f, ok := number(v)
	if !ok {
		return false
	}
	switch op {
	case OpGt:
		return f > mustFloat(*c.Gt)
	case OpGte:
		return f >= mustFloat(*c.Gte)
	case OpLt:
		return f < mustFloat(*c.Lt)
	default:
		return f <= mustFloat(*c.Lte)
	}
}

// Vars returns the variables c reads, sorted.
func (c Condition) Vars() []string {
	set := map[string]bool{}
	c.Walk(func(x Condition) {
		if x.Var != "" {
			set[x.Var] = true
		}
	})
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// Walk calls f on c and on every condition inside it, depth first.
func (c Condition) Walk(f func(Condition)) {
	f(c)
	for _, x := range c.And {
		x.Walk(f)
	}
	for _, x := range c.Or {
		x.Walk(f)
	}
	if c.Not != nil {
		c.Not.Walk(f)
	}
}

// String renders c for people, deterministically: `complexity == "high"`.
func (c Condition) String() string {
	switch op := c.Op(); op {
	case OpAnd, OpOr:
		parts := c.And
		if op == OpOr {
			parts = c.Or
		}
		s := make([]string, len(parts))
		for i, x := range parts {
			s[i] = "(" + x.String() + ")"
		}
		return strings.Join(s, " "+string(op)+" ")
	case OpNot:
		return "not (" + c.Not.String() + ")"
	case OpExists:
		if *c.Exists {
			return c.Var + " is set"
		}
		return c.Var + " is not set"
	case OpContains:
		return c.Var + " contains " + compact(c.Contains)
	case OpIn:
		s := make([]string, len(c.In))
		for i, x := range c.In {
			s[i] = compact(x)
		}
		return c.Var + " in [" + strings.Join(s, ", ") + "]"
	}
	sym := map[Operator]string{OpEquals: "==", OpNotEquals: "!=", OpGt: ">", OpGte: ">=", OpLt: "<", OpLte: "<="}
	return fmt.Sprintf("%s %s %s", c.Var, sym[c.Op()], c.operandText())
}

func (c Condition) operandText() string {
	switch c.Op() {
	case OpEquals:
		return compact(c.Equals)
	case OpNotEquals:
		return compact(c.NotEquals)
	case OpGt:
		return c.Gt.String()
	case OpGte:
		return c.Gte.String()
	case OpLt:
		return c.Lt.String()
	default:
		return c.Lte.String()
	}
}

func compact(b json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

// SameValue compares a context value with a JSON value by canonical form,
// so 1, 1.0 and 1e0 are equal and key order never matters.
func SameValue(v any, operand json.RawMessage) bool { return sameJSON(v, operand) }

func sameJSON(v any, operand json.RawMessage) bool {
	a, err := canon.JSON(v)
	if err != nil {
		return false
	}
	var o any
	if json.Unmarshal(operand, &o) != nil {
		return false
	}
	b, err := canon.JSON(o)
	return err == nil && bytes.Equal(a, b)
}

// containsText reports whether v's text (or any element's, for an array)
// holds the operand's text, ignoring case and surrounding space.
func containsText(v any, operand json.RawMessage) bool {
	var needle string
	if json.Unmarshal(operand, &needle) != nil {
		return false
	}
	needle = strings.ToLower(strings.TrimSpace(needle))
	if arr, ok := v.([]any); ok {
		for _, x := range arr {
			if containsText(x, operand) {
				return true
			}
		}
		return false
	}
	return strings.Contains(strings.ToLower(strings.TrimSpace(textOf(v))), needle)
}

// textOf is a scalar's plain text: a string as is, anything else as JSON.
func textOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

func mustFloat(n json.Number) float64 {
	f, _ := n.Float64() // the checker accepted only valid numbers
	return f
}
