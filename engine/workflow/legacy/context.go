package legacy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/workrail/workrail/engine/workflow"
)

// The TypeScript format declares no context: a condition reads whatever
// the agent sent. The canonical language wants every variable declared,
// so the normalizer declares each one a condition or loop reads, with the
// type its comparisons imply, no enum, lenient: true (the boundary then
// folds what the agent sends instead of rejecting it) and setDuringRun:
// true (in that format such variables are set by the agent as the run
// goes, so none is offered as a prompt argument).

// synthDescription is what agents are told about a declared-for-you input.
const synthDescription = "Read by this workflow's conditions or loops; send it in context when you know it (the workflow's file does not describe it)."

// use is what the file says about one undeclared variable.
type use struct {
	name  string
	types []workflow.ValueType
	first string // pointer of its first use
}

type uses struct {
	order  []*use
	by     map[string]*use
	origin map[*object]string // where each node is written (normalizer.origin)
}

func (u *uses) add(name string, t workflow.ValueType, ptr string) {
	x, ok := u.by[name]
	if !ok {
		x = &use{name: name, first: ptr}
		u.by[name] = x
		u.order = append(u.order, x)
	}
	if t != "" && !slices.Contains(x.types, t) {
		x.types = append(x.types, t)
	}
}

func (n *normalizer) synthesize(root *object) {
	declared := map[string]bool{}
	ctx, _ := root.get("context").([]any)
	for _, c := range ctx {
		if co, ok := c.(*object); ok {
			declared[co.str("name")] = true
		}
	}
	u := &uses{by: map[string]*use{}, origin: n.origin}
	collectNodes(u, root.get("steps"), "/steps", declared)
	for _, x := range u.order {
		t := workflow.TypeString
		switch len(x.types) {
		case 0:
		case 1:
			t = x.types[0]
		default:
			n.refuse(x.first, "%q is compared as %s: the normalizer cannot pick one type for it; declare it in context", x.name, joinTypes(x.types))
			continue
		}
		in := newObject()
		in.set("name", x.name)
		in.set("type", string(t))
		in.set("description", synthDescription)
		in.set("lenient", true)
		in.set("setDuringRun", true)
		ctx = append(ctx, in)
		n.warn(ContextSynthesized, x.first, "%q is not declared: it is declared as a lenient %s context input, set during the run", x.name, t)
	}
	if len(u.order) > 0 {
		root.set("context", ctx)
	}
}

func joinTypes(ts []workflow.ValueType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, " and ")
}

// collectNodes records the undeclared variables of a step list; scope
// holds the declared inputs and the loop variables in force.
func collectNodes(u *uses, v any, ptr string, scope map[string]bool) {
	list, _ := v.([]any)
	for i, x := range list {
		o, ok := x.(*object)
		if !ok {
			continue
		}
		p := fmt.Sprintf("%s/%d", ptr, i)
		if at, ok := u.origin[o]; ok {
			p = at
		}
		collectCond(u, o.get("runCondition"), p+"/runCondition", scope)
		if spec := o.obj("loop"); spec != nil || o.has("body") {
			inner := scope
			if spec != nil {
				collectCond(u, spec.get("condition"), p+"/loop/condition", scope)
				if over := spec.str("over"); over != "" && !scope[over] {
					u.add(over, workflow.TypeArray, p+"/loop/items")
				}
				if count := spec.str("countVar"); count != "" && !scope[count] {
					u.add(count, workflow.TypeNumber, p+"/loop/count")
				}
				inner = withLoopVars(scope, spec)
			}
			collectNodes(u, o.get("body"), p+"/body", inner)
			continue
		}
		collectCond(u, o.get("requireConfirmation"), p+"/requireConfirmation", scope)
		frags, _ := o.get("promptFragments").([]any)
		for j, f := range frags {
			if fo, ok := f.(*object); ok {
				collectCond(u, fo.get("when"), fmt.Sprintf("%s/promptFragments/%d/when", p, j), scope)
			}
		}
		dels, _ := o.get("parallelDelegations").([]any)
		for j, d := range dels {
			if do, ok := d.(*object); ok {
				collectCond(u, do.get("runCondition"), fmt.Sprintf("%s/parallelDelegations/%d/runCondition", p, j), scope)
			}
		}
		crit, _ := o.get("validationCriteria").([]any)
		for j, c := range crit {
			collectCriterion(u, c, fmt.Sprintf("%s/validationCriteria/%d", p, j), scope)
		}
	}
}

// withLoopVars is scope with the variables loop spec names: any loop's
// iteration, a forEach loop's item and index.
func withLoopVars(scope map[string]bool, spec *object) map[string]bool {
	inner := map[string]bool{}
	for k := range scope {
		inner[k] = true
	}
	for _, k := range workflow.LoopVariables() {
		if s := spec.str(k); s != "" {
			inner[s] = true
		}
	}
	return inner
}

func collectCriterion(u *uses, v any, ptr string, scope map[string]bool) {
	c, ok := v.(*object)
	if !ok {
		return
	}
	collectCond(u, c.get("condition"), ptr+"/condition", scope)
	for _, k := range []string{"and", "or"} {
		list, _ := c.get(k).([]any)
		for i, x := range list {
			collectCriterion(u, x, fmt.Sprintf("%s/%s/%d", ptr, k, i), scope)
		}
	}
	collectCriterion(u, c.get("not"), ptr+"/not", scope)
}

// collectCond records the variables a (rewritten) condition reads, with
// the type each comparison implies.
func collectCond(u *uses, v any, ptr string, scope map[string]bool) {
	c, ok := v.(*object)
	if !ok {
		return
	}
	for _, k := range []string{"and", "or"} {
		list, _ := c.get(k).([]any)
		for i, x := range list {
			collectCond(u, x, fmt.Sprintf("%s/%s/%d", ptr, k, i), scope)
		}
	}
	collectCond(u, c.get("not"), ptr+"/not", scope)
	name := c.str("var")
	if name == "" || scope[name] {
		return
	}
	var t workflow.ValueType
	switch {
	case c.has("equals"):
		t = typeOf(c.get("equals"))
	case c.has("notEquals"):
		t = typeOf(c.get("notEquals"))
	case c.has("in"):
		if list, _ := c.get("in").([]any); len(list) > 0 {
			t = typeOf(list[0])
		}
	case c.has("contains"):
		t = workflow.TypeString
	case c.has("gt"), c.has("gte"), c.has("lt"), c.has("lte"):
		t = workflow.TypeNumber
	}
	u.add(name, t, ptr)
}

func typeOf(v any) workflow.ValueType {
	switch v.(type) {
	case string:
		return workflow.TypeString
	case bool:
		return workflow.TypeBoolean
	case json.Number:
		return workflow.TypeNumber
	}
	return ""
}

// featureOrder warns when WorkRail's fixed order of features differs from
// the order the file lists them in, which the TypeScript tools follow.
func (n *normalizer) featureOrder(root *object) {
	list, _ := root.get("features").([]any)
	fixed := workflow.Features()
	last := -1
	for _, f := range list {
		s, _ := f.(string)
		i := slices.Index(fixed, workflow.FeatureID(s))
		if i < 0 {
			continue
		}
		if i < last {
			n.warn(FeatureOrderFixed, "/features", "features apply in WorkRail's fixed order (%s), not in the order listed", joinFeatures(fixed))
			return
		}
		last = i
	}
}

func joinFeatures(fs []workflow.FeatureID) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}
