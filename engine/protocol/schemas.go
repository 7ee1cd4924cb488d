package protocol

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
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
			"retry": when(object(obj{"kind": enum([]engine.RetryKind{engine.NotRetryable, engine.RetryableImmediately, engine.RetryableAfterMs}),
				"afterMs": integer()}, "kind"), string(engine.RetryableAfterMs), obj{"required": []string{"afterMs"}}),
			"suggestions": array(object(obj{"path": str(), "didYouMean": str(), "note": str()}, "path")),
		}, "code", "message", "retry"),
		"session":     object(obj{"sessionId": str(), "runId": str()}, "sessionId", "runId"),
		"workflow":    object(obj{"workflowId": str(), "name": str(), "workflowHash": str()}, "workflowId", "name", "workflowHash"),
		"preferences": object(obj{"autonomy": str(), "riskPolicy": str()}, "autonomy", "riskPolicy"),
		"pending": object(obj{"stepId": str(), "title": str(), "prompt": str(), "requireConfirmation": boolean(),
			"loops": array(obj{"type": "object"}), "userDependency": obj{"type": "object"}}, "stepId", "title", "prompt", "requireConfirmation"),
		"warnings": array(object(obj{"code": enum(event.NoticeCodes()), "message": str(), "nextCall": ref("nextCall"),
			"secrets": array(object(obj{"pointer": str(), "rules": array(str())}, "pointer", "rules"))}, "code", "message")),
		"fills": obj{"type": "array", "description": "Every <<fill: …>> marker of nextCall: where it is (a JSON pointer into nextCall.arguments), what belongs there, " +
			"whether the step needs it, and its closed set of values when it has one. A marker or its words is never taken as an answer.",
			"items": object(obj{"pointer": str(), "asks": str(), "required": boolean(), "options": array(str())}, "pointer", "asks", "required")},
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
			"checkpoint": object(obj{"nodeId": str(), "outputId": str()}, "nodeId", "outputId"), "nextCall": ref("nextCall"), "fills": ref("fills"), "warnings": ref("warnings"), "consoleUrl": str(),
			"workflowRules": array(str()), "references": array(object(obj{"id": str(), "title": str(), "source": str(), "purpose": str(),
				"path": str(), "lookedIn": array(str())}, "id", "title", "source"))},
			"kind", "text", "pending", "stateToken", "ackToken", "checkpointToken", "isComplete", "session", "workflow", "preferences", "nextCall", "fills", "warnings"),
		"blocked": object(obj{"kind": constant("blocked"), "text": str(), "blockers": obj{"type": "array", "items": ref("blocker"), "minItems": 1, "maxItems": outcome.MaxBlockers},
			"pending": ref("pending"), "stateToken": str(), "ackToken": str(), "checkpointToken": str(), "isComplete": constant2(false),
			"session": ref("session"), "workflow": ref("workflow"), "preferences": ref("preferences"), "nextCall": ref("nextCall"), "fills": ref("fills"),
			"warnings": ref("warnings"), "consoleUrl": str()},
			"kind", "text", "blockers", "pending", "stateToken", "ackToken", "isComplete", "session", "workflow", "preferences", "nextCall", "fills", "warnings"),
		"complete": object(obj{"kind": constant("complete"), "text": str(), "stateToken": str(), "isComplete": constant2(true),
			"session": ref("session"), "workflow": ref("workflow"), "preferences": ref("preferences"),
			"gapsRecorded": array(obj{"type": "object"}), "openGaps": obj{"type": "array", "items": obj{"type": "object"}, "maxItems": MaxOpenGaps},
			"openGapCount": integer(), "skipped": array(obj{"type": "object"}), "warnings": ref("warnings"), "consoleUrl": str()},
			"kind", "text", "stateToken", "isComplete", "session", "workflow", "preferences", "openGapCount", "warnings"),
		"workflows": object(obj{"kind": constant("workflows"), "text": str(), "workflows": array(object(obj{
			"id": str(), "name": str(), "description": str(), "version": str(), "kind": str(), "idStatus": str(), "source": obj{"type": "object"},
			"dialect": str(), "rewrites": obj{"type": "integer", "minimum": 1},
			"warnings": array(object(obj{"code": str(), "message": str(), "pointer": str(), "suggestedId": str(), "rewrite": str()}, "code", "message"))},
			"id", "name", "kind", "idStatus", "source")), "shadowed": array(obj{"type": "object"}), "problems": array(obj{"type": "object"}),
			"sourceWarnings": array(object(obj{"code": enum(catalog.SourceWarningCodes()), "source": obj{"type": "object"}, "lastSynced": str(), "message": str()},
				"code", "source", "message"))},
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

// when is schema o that, when its kind is kind, must also match then: a
// discriminated requirement, which a client compiles as one object.
func when(o obj, kind string, then obj) obj {
	o["if"] = object(obj{"kind": constant(kind)})
	o["then"] = then
	return o
}

// refs calls fn with the name of every definition v refers to.
func refs(v any, fn func(string)) {
	switch x := v.(type) {
	case obj:
		if r, ok := x["$ref"].(string); ok {
			fn(strings.TrimPrefix(r, "#/$defs/"))
		}
		for _, c := range x {
			refs(c, fn)
		}
	case []obj:
		for _, c := range x {
			refs(c, fn)
		}
	}
}

// collect adds definition name and every definition it refers to.
func collect(all obj, name string, used obj) {
	if _, done := used[name]; done {
		return
	}
	used[name] = all[name]
	refs(all[name], func(r string) { collect(all, r, used) })
}

// union is the schema of a result that is one of kinds, written so that a
// client compiles it cheaply (the official TypeScript SDK compiles every
// output schema at connect): one object whose properties are those of
// every kind, each written once (a property two kinds type differently is
// left to each kind's branch), and per kind an if/then requiring that
// kind's fields. It carries only the definitions those kinds use, and an
// $id naming the kinds, so a client that caches compiled schemas by $id
// compiles a union two tools share once.
func union(kinds ...string) json.RawMessage {
	all, used := defs(), obj{}
	seen := map[string][]obj{} // property → its schema in each kind that has it
	for _, k := range kinds {
		for name, p := range all[k].(obj)["properties"].(obj) {
			seen[name] = append(seen[name], p.(obj))
		}
	}
	props, consts := obj{}, []string{}
	for name, ps := range seen {
		if name != "kind" && agree(ps) && len(ps) > 0 {
			props[name] = ps[0]
		}
	}
	var branches []obj
	for _, k := range kinds {
		def := all[k].(obj)
		own := obj{}
		for name, p := range def["properties"].(obj) {
			if _, shared := props[name]; !shared && name != "kind" {
				own[name] = p
			}
		}
		kind := def["properties"].(obj)["kind"].(obj)["const"].(string)
		consts = append(consts, kind)
		then := obj{"required": def["required"]}
		if len(own) > 0 {
			then["properties"] = own
		}
		branches = append(branches, obj{"if": object(obj{"kind": constant(kind)}), "then": then})
	}
	props["kind"] = obj{"enum": consts}
	schema := obj{"$id": "urn:workrail:output:" + strings.Join(kinds, "+"), "type": "object", "required": []string{"kind", "text"},
		"properties": props, "allOf": branches}
	refs(schema, func(r string) { collect(all, r, used) })
	if len(used) > 0 {
		schema["$defs"] = used
	}
	b, err := json.Marshal(schema)
	if err != nil {
		panic("protocol: output schema: " + err.Error())
	}
	return b
}

// agree reports whether every schema in ps is the same.
func agree(ps []obj) bool {
	for _, p := range ps[1:] {
		if !reflect.DeepEqual(p, ps[0]) {
			return false
		}
	}
	return true
}
