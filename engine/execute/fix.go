package execute

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// Fixable errors carry the call that fixes them: an agent that only copies
// nextCall must still make progress.

// fixable is an expected failure with the call that fixes it.
type fixable struct {
	err  *engine.Error
	tool protocol.ToolName
	args any
}

func (f *fixable) Error() string { return f.err.Error() }
func (f *fixable) Unwrap() error { return f.err }

// badArguments answers a call whose arguments failed the boundary checks;
// for unknown keys it suggests the same call with the keys corrected.
func badArguments(tool protocol.ToolName, raw []byte, e *engine.Error) error {
	if e.Code != engine.CodeUnknownKey {
		return e
	}
	if args, ok := protocol.RenameKeys(raw, e); ok {
		return &fixable{err: e, tool: tool, args: args}
	}
	return e
}

// withArgument suggests the same call with one argument replaced. Numbers
// keep their text: the suggestion must not round what the agent sent.
func withArgument(tool protocol.ToolName, raw []byte, e *engine.Error, key string, value any) error {
	var args map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&args) != nil || args == nil {
		return e
	}
	args[key] = value
	return &fixable{err: e, tool: tool, args: args}
}

// withoutArgument suggests the same call with one argument left out.
func withoutArgument(tool protocol.ToolName, raw []byte, e *engine.Error, key string) error {
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil || args == nil {
		return e
	}
	delete(args, key)
	return &fixable{err: e, tool: tool, args: args}
}

// rehydrateFix answers a bad ackToken with a valid stateToken: re-reading
// the pending step hands out a fresh ackToken that fits it.
func rehydrateFix(e *engine.Error, stateToken string) error {
	call := protocol.Rehydrate(stateToken)
	return &fixable{err: e, tool: protocol.ToolName(call.Tool), args: call.Arguments}
}

// contextExample completes a start's context with a marker for each
// missing required input (what it is, its type, its allowed values): a
// start input is the user's to give or the agent's to find, never
// WorkRail's to guess, so a call copied as it is is refused again.
func contextExample(inputs []workflow.ContextInput, ctx map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range ctx {
		out[k] = v
	}
	for _, in := range inputs {
		if _, ok := out[in.Name]; ok || !in.Required {
			continue
		}
		asks := fmt.Sprintf("%s (%s): %s", in.Name, in.Type, strings.TrimSuffix(in.Description, "."))
		if len(in.Enum) > 0 {
			allowed := make([]string, len(in.Enum))
			for i, e := range in.Enum {
				allowed[i] = string(e)
			}
			asks = fmt.Sprintf("%s: one of %s", in.Name, strings.Join(allowed, " | "))
		}
		out[in.Name] = fill.Marker(asks)
	}
	return out
}
