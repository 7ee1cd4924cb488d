package protocol

import (
	"encoding/json"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/resume"
)

// Output schemas of the tools, built from the closed sets in Go so they
// cannot drift from what the handlers return. Each is a union over the
// result kinds the tool can return, errors included.

type obj = map[string]any

func str() obj                   { return obj{"type": "string"} }
func boolean() obj               { return obj{"type": "boolean"} }
func integer() obj               { return obj{"type": "integer"} }
func ref(name string) obj        { return obj{"$ref": "#/$defs/" + name} }
func array(items obj) obj        { return obj{"type": "array", "items": items} }
func constant(v string) obj      { return obj{"const": v} }
func enum[T ~string](vs []T) obj { return obj{"enum": vs} }
func object(props obj, required ...string) obj {
	o := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

var blockerCodes = []event.BlockerCode{event.BlockUserOnlyDependency, event.BlockMissingRequiredOutput, event.BlockInvalidRequiredOutput,
	event.BlockRequiredCapabilityUnknown, event.BlockRequiredCapabilityUnavailable, event.BlockInvariantViolation, event.BlockStorageCorruptionDetected,
	event.BlockMissingRequiredNotes, event.BlockNotesCriteriaUnmet, event.BlockAssessmentFollowupRequired}

// defs are the shared definitions of every output schema.
func defs() obj {
	return obj{
		"error": object(obj{"kind": constant("error"), "text": str(), "error": ref("envelope"),
			"nextCall": object(obj{"tool": str(), "arguments": obj{"type": "object"}}, "tool", "arguments")}, "kind", "text", "error"),
		"envelope": object(obj{
			"code": enum(engine.Codes()), "message": str(), "details": obj{"type": "object"},
			"retry": obj{"oneOf": []obj{
				object(obj{"kind": enum([]engine.RetryKind{engine.NotRetryable, engine.RetryableImmediately})}, "kind"),
				object(obj{"kind": constant(string(engine.RetryableAfterMs)), "afterMs": integer()}, "kind", "afterMs"),
			}},
			"suggestions": array(object(obj{"path": str(), "didYouMean": str(), "note": str()}, "path")),
		}, "code", "message", "retry"),
		"session":     object(obj{"sessionId": str(), "runId": str()}, "sessionId", "runId"),
		"workflow":    object(obj{"workflowId": str(), "name": str(), "workflowHash": str()}, "workflowId", "name", "workflowHash"),
		"preferences": object(obj{"autonomy": str(), "riskPolicy": str()}, "autonomy", "riskPolicy"),
		"pending": object(obj{"stepId": str(), "title": str(), "prompt": str(), "requireConfirmation": boolean(),
			"loops": array(obj{"type": "object"}), "userDependency": obj{"type": "object"}}, "stepId", "title", "prompt", "requireConfirmation"),
		"warnings": array(object(obj{"code": enum(event.NoticeCodes()), "message": str(), "nextCall": ref("nextCall"),
			"secrets": array(object(obj{"pointer": str(), "rules": array(str())}, "pointer", "rules"))}, "code", "message")),
		"nextCall": object(obj{"tool": constant("continue_workflow"), "arguments": object(obj{
			"stateToken": str(), "ackToken": str(), "output": obj{"type": "object"}}, "stateToken")}, "tool", "arguments"),
		"blocker": object(obj{"code": enum(blockerCodes), "message": obj{"type": "string", "maxLength": outcome.MaxMessageBytes},
			"suggestedFix": obj{"type": "string"},
			"pointer":      object(obj{"kind": enum([]event.PointerKind{event.PointContextKey, event.PointOutputContract, event.PointCapability, event.PointWorkflowStep})}, "kind")},
			"code", "pointer", "message"),
		"step": object(obj{"kind": constant("step"), "text": str(), "pending": ref("pending"), "stateToken": str(), "ackToken": str(),
			"checkpointToken": str(), "isComplete": constant2(false), "session": ref("session"), "workflow": ref("workflow"),
			"preferences": ref("preferences"), "progress": obj{"type": "object"}, "gapsRecorded": array(obj{"type": "object"}),
			"recap": obj{"type": "object"}, "fork": obj{"type": "object"}, "skipped": array(obj{"type": "object"}),
			"checkpoint": object(obj{"nodeId": str()}, "nodeId"), "nextCall": ref("nextCall"), "warnings": ref("warnings"), "consoleUrl": str(),
			"workflowRules": array(str()), "references": array(object(obj{"id": str(), "title": str(), "source": str(), "purpose": str()}, "id", "title", "source"))},
			"kind", "text", "pending", "stateToken", "ackToken", "checkpointToken", "isComplete", "session", "workflow", "preferences", "nextCall", "warnings"),
		"blocked": object(obj{"kind": constant("blocked"), "text": str(), "blockers": obj{"type": "array", "items": ref("blocker"), "minItems": 1, "maxItems": outcome.MaxBlockers},
			"pending": ref("pending"), "stateToken": str(), "ackToken": str(), "checkpointToken": str(), "isComplete": constant2(false),
			"session": ref("session"), "workflow": ref("workflow"), "preferences": ref("preferences"), "nextCall": ref("nextCall"), "warnings": ref("warnings"),
			"consoleUrl": str()},
			"kind", "text", "blockers", "pending", "stateToken", "ackToken", "isComplete", "session", "workflow", "preferences", "nextCall", "warnings"),
		"complete": object(obj{"kind": constant("complete"), "text": str(), "stateToken": str(), "isComplete": constant2(true),
			"session": ref("session"), "workflow": ref("workflow"), "preferences": ref("preferences"),
			"gapsRecorded": array(obj{"type": "object"}), "skipped": array(obj{"type": "object"}), "warnings": ref("warnings"), "consoleUrl": str()},
			"kind", "text", "stateToken", "isComplete", "session", "workflow", "preferences", "warnings"),
		"workflows": object(obj{"kind": constant("workflows"), "text": str(), "workflows": array(object(obj{
			"id": str(), "name": str(), "description": str(), "version": str(), "kind": str(), "idStatus": str(), "source": obj{"type": "object"},
			"dialect": str(), "warnings": array(object(obj{"code": str(), "message": str(), "pointer": str(), "suggestedId": str()}, "code", "message"))},
			"id", "name", "kind", "idStatus", "source")), "shadowed": array(obj{"type": "object"}), "problems": array(obj{"type": "object"})},
			"kind", "text", "workflows"),
		"candidates": object(obj{"kind": constant("candidates"), "text": str(),
			"candidates": obj{"type": "array", "items": ref("candidate"), "maxItems": resume.MaxCandidates}}, "kind", "text", "candidates"),
		"candidate": object(obj{"tier": enum(resume.Tiers()), "session": ref("session"), "workflow": ref("workflow"), "tipNodeId": str(),
			"status": enum(project.RunStatuses()), "sameRepository": boolean(), "snippet": obj{"type": "string", "maxLength": resume.MaxSnippetBytes},
			"stateToken": str(), "nextCall": ref("nextCall")},
			"tier", "session", "workflow", "tipNodeId", "status", "sameRepository", "snippet", "stateToken", "nextCall"),
		"inspection": object(obj{"kind": constant("workflow"), "text": str(), "mode": str(), "workflow": obj{"type": "object"},
			"workflowHash": str(), "steps": array(obj{"type": "object"}), "warnings": ref("warnings")}, "kind", "text", "workflow", "workflowHash", "steps", "warnings"),
	}
}

func constant2(v bool) obj { return obj{"const": v} }

// collect adds definition name and every definition it refers to.
func collect(all obj, name string, used obj) {
	if _, done := used[name]; done {
		return
	}
	used[name] = all[name]
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case obj:
			if r, ok := x["$ref"].(string); ok {
				collect(all, r[len("#/$defs/"):], used)
			}
			for _, c := range x {
				walk(c)
			}
		case []obj:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(all[name])
}

// union is the schema of a result that is one of kinds. It carries only
// the definitions those kinds use: tool schemas cost every chat context.
func union(kinds ...string) json.RawMessage {
	all, used := defs(), obj{}
	var one []obj
	for _, k := range kinds {
		one = append(one, ref(k))
		collect(all, k, used)
	}
	b, err := json.Marshal(obj{"type": "object", "required": []string{"kind", "text"}, "$defs": used, "oneOf": one})
	if err != nil {
		panic("protocol: output schema: " + err.Error())
	}
	return b
}
