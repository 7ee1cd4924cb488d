package legacy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The format's constructs that move or add steps: a loop body named by
// step id, and the steps the TypeScript WorkRail adds after a step that
// asks for verification or an audit, or a parallel step's synthesis.

// bodiesByID puts each step a top-level loop's body names by id in the
// loop, as its body, and takes it out of the top-level list: the
// TypeScript WorkRail runs it as the loop's body, and never again at its
// own place. An id that names no step, or names a loop (loops do not nest
// there), or a step that is already another loop's body, is refused, as
// there (a step has one place here). Every top-level node keeps the
// pointer of where it is written.
func (n *normalizer) bodiesByID(root *object) {
	steps, _ := root.get("steps").([]any)
	at := map[string]int{}
	for i, x := range steps {
		if o, ok := x.(*object); ok {
			at[o.str("id")] = i
		}
	}
	takenBy := map[int]string{}
	for i, x := range steps {
		o, ok := x.(*object)
		if !ok {
			continue // not a step: workflow.Parse says so
		}
		id, named := o.get("body").(string)
		if !named {
			continue
		}
		ptr := fmt.Sprintf("/steps/%d/body", i)
		j, found := at[id]
		var target *object
		if found {
			target, _ = steps[j].(*object)
		}
		o.set("body", []any{}) // refused unless it is moved below
		switch {
		case target == nil:
			n.refuse(ptr, "the body names step %q, which is not a step of this workflow", id)
		case target.str("type") == "loop" || target.has("loop") || target.has("body"):
			n.refuse(ptr, "the body names %q, which is a loop: loops do not nest in this format; write its steps inline", id)
		case takenBy[j] != "":
			n.refuse(ptr, "step %q is already the body of loop %q: a step has one place, so write it inline in each loop, with ids of their own", id, takenBy[j])
		case target.has("runCondition"):
			n.refuse(ptr, "the body names %q, which has a runCondition: the TypeScript WorkRail refuses a loop body's runCondition too; move the condition to the loop", id)
		default:
			takenBy[j] = o.str("id")
			o.set("body", []any{target})
			n.warn(BodyByID, ptr, "the body names step %s: it runs as the loop's body, and not again at its own place (/steps/%d), as in the TypeScript WorkRail", id, j)
		}
	}
	if len(takenBy) == 0 {
		return
	}
	kept := make([]any, 0, len(steps)-len(takenBy))
	for i, x := range steps {
		if o, ok := x.(*object); ok {
			n.origin[o] = fmt.Sprintf("/steps/%d", i)
		}
		if takenBy[i] == "" {
			kept = append(kept, x)
		}
	}
	root.set("steps", kept)
}

// virtualSteps returns the steps the format runs after step o for the
// keys it names that o has (verification, audit; a parallel step's
// synthesis), in that order: each a step of its own, "<id>__<key>",
// with o's runCondition and no notes required. Their prompts are
// WorkRail's words when the file gives none.
func (n *normalizer) virtualSteps(o *object, ptr string, keys ...string) []any {
	var out []any
	for _, k := range keys {
		cfg := o.obj(k)
		if cfg == nil {
			if o.has(k) {
				n.refuse(ptr+"/"+k, "%s must be an object", k)
			}
			continue
		}
		o.del(k)
		prompt, ok := virtualPrompt(k, cfg, o.str("title"))
		if !ok {
			n.refuse(ptr+"/"+k, "%s", virtualNeeds[k])
			continue
		}
		v := newObject()
		v.set("id", o.str("id")+"__"+k)
		v.set("title", virtualTitles[k]+o.str("title"))
		v.set("prompt", prompt)
		if c := o.get("runCondition"); c != nil {
			v.set("runCondition", c)
		}
		v.set("notesOptional", true)
		if oc := cfg.obj("outputContract"); oc != nil {
			v.set("outputContract", oc)
			n.outputContract(v, ptr+"/"+k)
		}
		n.origin[v] = ptr + "/" + k
		n.warn(VirtualStep, ptr+"/"+k, "%s is a step of its own, %s, run after this one (with its condition, notes optional), as in the TypeScript WorkRail", k, v.str("id"))
		out = append(out, v)
	}
	return out
}

var (
	virtualTitles = map[string]string{"verification": "Verify: ", "audit": "Audit: ", "synthesis": "Synthesis: "}
	virtualNeeds  = map[string]string{
		"verification": "verification's command must be a non-empty text when it is given",
		"audit":        "an audit needs a prompt or at least one rubric item (non-empty texts)",
		"synthesis":    "a synthesis needs a prompt or an outputContract",
	}
)

// virtualPrompt is the prompt of the step key adds after the step titled
// title: the file's, or WorkRail's own words for what it asks; ok is
// false when the configuration is one the TypeScript WorkRail refuses.
func virtualPrompt(key string, cfg *object, title string) (string, bool) {
	prompt := strings.TrimSpace(cfg.str("prompt"))
	switch key {
	case "verification":
		cmd, hasCmd := cfg.get("command").(string)
		if cfg.has("command") && (!hasCmd || strings.TrimSpace(cmd) == "") {
			return "", false
		}
		switch {
		case prompt != "":
			return prompt, true
		case hasCmd:
			return "Run this command and check that it succeeds:\n\n```bash\n" + cmd + "\n```\n\nSay in your notes what it reported, and any failure.", true
		}
		return "Check that the work of the step before is complete and correct: run the checks that fit this workspace (its tests, its build, its linters) and say in your notes what they reported, and any failure.", true
	case "audit":
		var rubric []string
		list, _ := cfg.get("rubric").([]any)
		for _, r := range list {
			s, ok := r.(string)
			if !ok || strings.TrimSpace(s) == "" {
				return "", false
			}
			rubric = append(rubric, "- "+s)
		}
		if prompt != "" {
			return prompt, true
		}
		if len(rubric) == 0 {
			return "", false
		}
		return fmt.Sprintf("Review the work of step %q as an auditor would: is it complete, correct and up to a high standard? Check it against each of these:\n%s\n\nSay whether it passes, or what must change.",
			title, strings.Join(rubric, "\n")), true
	}
	if prompt == "" && cfg.obj("outputContract") == nil {
		return "", false
	}
	return cmpOr(prompt, "Merge what the parallel work of the step before found into one account: where the results contradict each other, resolve it, and write the result in your notes."), true
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// functionCalls checks a step's functionCalls against the definitions in
// scope as the TypeScript WorkRail does (the function defined, its
// required parameters given, each argument of its parameter's type and
// among its values), and drops them: neither WorkRail shows them.
func (n *normalizer) functionCalls(o *object, ptr string) {
	calls, ok := o.get("functionCalls").([]any)
	if !ok {
		if o.has("functionCalls") {
			n.refuse(ptr+"/functionCalls", "functionCalls must be a list of {name, args}")
		}
		return
	}
	defs := n.definitions(o)
	for i, c := range calls {
		p := fmt.Sprintf("%s/functionCalls/%d", ptr, i)
		call, _ := c.(*object)
		if call == nil {
			n.refuse(p, "a function call is {\"name\": …, \"args\": {…}}")
			continue
		}
		def := defs[call.str("name")]
		if def == nil {
			n.refuse(p+"/name", "functionCalls names %q, which no functionDefinitions in scope defines", call.str("name"))
			continue
		}
		n.callArgs(def, call, p)
	}
	o.del("functionCalls")
	n.warn(FunctionCallsDrop, ptr+"/functionCalls", "functionCalls are checked against their definitions and dropped: neither WorkRail shows them to the agent")
}

// callArgs checks one call's args against definition def's parameters.
func (n *normalizer) callArgs(def *object, call *object, ptr string) {
	args := call.obj("args")
	if args == nil {
		args = newObject()
	}
	params, _ := def.get("parameters").([]any)
	for _, x := range params {
		param, _ := x.(*object)
		if param == nil {
			continue
		}
		name := param.str("name")
		v, given := args.vals[name]
		switch {
		case !given && param.get("required") == true:
			n.refuse(ptr+"/args", "the call of %s lacks its required parameter %s", call.str("name"), name)
		case given && !ofType(v, param.str("type")):
			n.refuse(ptr+"/args/"+name, "%s.%s must be of type %s", call.str("name"), name, param.str("type"))
		case given && param.has("enum") && !inEnum(v, param.get("enum")):
			n.refuse(ptr+"/args/"+name, "%s.%s must be one of the values its parameter lists", call.str("name"), name)
		}
	}
}

// definitions maps each function name step o sees to its definition, the
// closest scope winning (the step's, its loops', the workflow's).
func (n *normalizer) definitions(o *object) map[string]*object {
	out := map[string]*object{}
	for _, list := range append(slices.Clone(n.defs), o.get("functionDefinitions")) {
		l, _ := list.([]any)
		for _, d := range l {
			if def, ok := d.(*object); ok {
				out[def.str("name")] = def
			}
		}
	}
	return out
}

func ofType(v any, t string) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(*object)
		return ok
	}
	return true
}

func inEnum(v any, enum any) bool {
	list, _ := enum.([]any)
	for _, e := range list {
		if e == v {
			return true
		}
	}
	return false
}
