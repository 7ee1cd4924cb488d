package protocol

import (
	"encoding/json"
	"strings"

	"github.com/workrail/workrail/engine"
)

// Call is a tool call WorkRail suggests: the exact arguments to send.
type Call struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// WithFix attaches to an error result the call that fixes it, so an agent
// that only copies nextCall still makes progress.
func WithFix(r ErrorResult, tool string, args any) ErrorResult {
	b, err := json.Marshal(args)
	if err != nil {
		return r
	}
	r.NextCall = &Call{Tool: tool, Arguments: b}
	r.Text += "\n## Next call\nTo fix it, call " + tool + " with exactly these arguments:\n```json\n" + compactJSON(json.RawMessage(b)) + "\n```\n"
	return r
}

// RenameKeys applies an UNKNOWN_KEY error's suggestions to the arguments
// that caused it: a misspelt key takes its suggested name (unless that key
// is already there), notes move to output.notesMarkdown, and keys that are
// not part of the contract are dropped. ok is false when raw is not an
// object.
func RenameKeys(raw []byte, e *engine.Error) (map[string]any, bool) {
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil || args == nil {
		return nil, false
	}
	for _, s := range e.Suggestions {
		scope, key, top := args, s.Path, true
		if k, ok := strings.CutPrefix(s.Path, "output."); ok {
			out, _ := args["output"].(map[string]any)
			if out == nil {
				continue
			}
			scope, key, top = out, k, false
		}
		v, present := scope[key]
		if !present {
			continue
		}
		delete(scope, key)
		to := strings.TrimPrefix(s.DidYouMean, "output.")
		switch {
		case s.DidYouMean == "":
		case strings.HasPrefix(s.DidYouMean, "output.") && top:
			out, _ := args["output"].(map[string]any)
			if out == nil {
				out = map[string]any{}
				args["output"] = out
			}
			if _, taken := out[to]; !taken {
				out[to] = v
			}
		default:
			if _, taken := scope[to]; !taken {
				scope[to] = v
			}
		}
	}
	return args, true
}
