package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/workflow"
)

// Prompt is one workflow offered as an MCP prompt: an IDE lists it in its
// prompt picker (Claude Code as a slash command), and getting it gives the
// agent the message that starts the workflow.
type Prompt struct {
	Name        string           `json:"name"` // the workflow's id
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one of a workflow's declared context inputs.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Prompts lists the workflows of c an agent may start, in the catalog's
// order; routines, which run inside another workflow's step, stay out.
func Prompts(c *catalog.Catalog) []Prompt {
	out := []Prompt{}
	for _, e := range c.All() {
		w := e.Compiled.Workflow
		if w.Kind == workflow.KindRoutine {
			continue
		}
		p := Prompt{Name: string(w.ID), Title: w.Name, Description: w.Description}
		for _, in := range startInputs(w.Context) {
			p.Arguments = append(p.Arguments, PromptArgument{Name: in.Name, Description: argumentHint(in), Required: in.Required})
		}
		out = append(out, p)
	}
	return out
}

// startInputs are the inputs a person gives at the start, the prompt's
// arguments: every input but those set during the run.
func startInputs(inputs []workflow.ContextInput) []workflow.ContextInput {
	var out []workflow.ContextInput
	for _, in := range inputs {
		if !in.SetDuringRun {
			out = append(out, in)
		}
	}
	return out
}

// argumentHint is an input's description and, for an input that is not a
// string, how its value is written: a prompt argument is always text.
func argumentHint(in workflow.ContextInput) string {
	d := strings.TrimSpace(in.Description)
	var hint string
	switch in.Type {
	case workflow.TypeString, "":
	case workflow.TypeArray:
		hint = `an array, written as JSON: ["a","b"]`
	case workflow.TypeBoolean:
		hint = "true or false"
	case workflow.TypeInteger:
		hint = "an integer, e.g. 3"
	default:
		hint = "a number, e.g. 2.5"
	}
	if len(in.Enum) > 0 {
		hint = strings.TrimPrefix(hint+"; one of "+strings.Join(enumValues(in), ", "), "; ")
	}
	if hint == "" {
		return d
	}
	if d == "" {
		return "(" + hint + ")"
	}
	return d + " (" + hint + ")"
}

// enumValues are an input's allowed values as a person types them: a
// string as its text, anything else as JSON.
func enumValues(in workflow.ContextInput) []string {
	vals := make([]string, len(in.Enum))
	for i, v := range in.Enum {
		vals[i] = string(v)
		var s string
		if json.Unmarshal(v, &s) == nil {
			vals[i] = s
		}
	}
	return vals
}

// PromptMessage is the user message prompts/get answers for workflow e:
// it asks the agent to start e with start_workflow, the arguments filled
// in. args are the prompt's arguments as the IDE sends them, all text: a
// string input takes the text as it is; a number, integer, boolean or
// array input takes it parsed as JSON ("3", "true", `["a"]`), and text
// that does not parse to the input's type is refused, as is a value
// outside the input's enum, an unknown name and a missing required input. An empty optional argument is left
// out. workspace, when set, is sent as workspacePath, so a project's
// workflow is found where the prompt was listed.
func PromptMessage(e catalog.Entry, args map[string]string, workspace string) (string, *engine.Error) {
	w := e.Compiled.Workflow
	context, err := promptContext(w.Context, args)
	if err != nil {
		return "", err
	}
	call := map[string]any{"workflowId": w.ID}
	if len(context) > 0 {
		call["context"] = context
	}
	if workspace != "" {
		call["workspacePath"] = workspace
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(call); err != nil {
		return "", engine.Errorf(engine.CodeInternal, "the start call could not be written: %v", err)
	}
	return fmt.Sprintf("Start the WorkRail workflow %q (%s) now: call the `%s` tool with these arguments, then do the step it returns and carry on with `%s` as each answer says.\n\n```json\n%s```\n",
		string(w.ID), w.Name, ToolStart, ToolContinue, b.String()), nil
}

// promptContext turns prompt arguments into start_workflow's context.
func promptContext(inputs []workflow.ContextInput, args map[string]string) (map[string]any, *engine.Error) {
	byName := map[string]workflow.ContextInput{}
	for _, in := range inputs {
		byName[in.Name] = in
	}
	names := make([]string, 0, len(args))
	for n := range args {
		names = append(names, n)
	}
	slices.Sort(names)
	context := map[string]any{}
	for _, n := range names {
		in, ok := byName[n]
		if !ok || in.SetDuringRun {
			why := "this workflow takes no argument %q"
			if ok {
				why = "%q is set during the run (the agent sends it with continue_workflow), not given at the start"
			}
			return nil, engine.Errorf(engine.CodeInvalidInput, why+"; its arguments are: %s", n, argNames(startInputs(inputs))).With("argument", n)
		}
		v, err := argumentValue(in, args[n])
		if err != nil {
			return nil, err
		}
		if v != nil {
			context[n] = v
		}
	}
	for _, in := range inputs {
		if _, ok := context[in.Name]; in.Required && !ok {
			return nil, engine.Errorf(engine.CodeInvalidInput, "argument %q is required: %s", in.Name, argumentHint(in)).With("argument", in.Name)
		}
	}
	return context, nil
}

// argumentValue is one argument's value as the input's type wants it; nil
// for an empty argument. A value start_workflow would refuse is refused
// here, naming the argument: one outside the input's enum (unless the
// input is lenient, whose values a start folds instead), or a number
// that could not be stored as sent.
func argumentValue(in workflow.ContextInput, text string) (any, *engine.Error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	v, err := parseArgument(in, text)
	if err != nil {
		return nil, err
	}
	if bad := canon.BadNumbers(v); len(bad) > 0 {
		return nil, engine.Errorf(engine.CodeInvalidInput, "argument %q: %v; send a smaller number.", in.Name, bad[0].Err).With("argument", in.Name)
	}
	if len(in.Enum) == 0 || in.Lenient || slices.ContainsFunc(in.Enum, func(e json.RawMessage) bool { return workflow.SameValue(v, e) }) {
		return v, nil
	}
	allowed := enumValues(in)
	return nil, engine.Errorf(engine.CodeInvalidInput, "argument %q is %q, which is not one of its values: send one of %s",
		in.Name, text, strings.Join(allowed, ", ")).With("argument", in.Name).With("allowed", allowed)
}

// parseArgument reads an argument's text as the input's type: a string
// input takes it as it is, any other parses it as JSON of its type.
func parseArgument(in workflow.ContextInput, text string) (any, *engine.Error) {
	if in.Type == workflow.TypeString || in.Type == "" {
		return text, nil
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	err := dec.Decode(&v)
	if err == nil && dec.More() {
		err = fmt.Errorf("more than one value")
	}
	if err == nil && !fits(in.Type, v) {
		err = fmt.Errorf("not %s", in.Type)
	}
	if err != nil {
		return nil, engine.Errorf(engine.CodeInvalidInput, "argument %q is a %s input, so its text is read as JSON, and %q is not one (%v): send %s",
			in.Name, in.Type, text, err, argumentHint(in)).With("argument", in.Name)
	}
	return v, nil
}

func fits(t workflow.ValueType, v any) bool {
	switch v := v.(type) {
	case json.Number:
		if t == workflow.TypeInteger {
			_, err := v.Int64()
			return err == nil
		}
		return t == workflow.TypeNumber
	case bool:
		return t == workflow.TypeBoolean
	case []any:
		return t == workflow.TypeArray
	}
	return false
}

func argNames(inputs []workflow.ContextInput) string {
	if len(inputs) == 0 {
		return "none"
	}
	names := make([]string, len(inputs))
	for i, in := range inputs {
		names[i] = in.Name
	}
	return strings.Join(names, ", ")
}
