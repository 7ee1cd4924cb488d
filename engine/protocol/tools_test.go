package protocol_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// allTools turns every gated tool on.
var allTools = protocol.Features{CheckpointWorkflow: true, ResumeSession: true, StartSession: true}

func tool(t *testing.T, name protocol.ToolName) protocol.Tool {
	t.Helper()
	for _, tl := range protocol.Tools(allTools) {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return protocol.Tool{}
}

func schemaOf(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("schema is not a JSON object: %v\n%s", err, raw)
	}
	return m
}

// The tool surface is small and annotated (DESIGN §4): read-only list and
// inspect, idempotent continue and checkpoint.
func TestToolsSurface(t *testing.T) {
	type shape struct {
		Name                 protocol.ToolName
		ReadOnly, Idempotent bool
	}
	var got []shape
	for _, tl := range protocol.Tools(allTools) {
		got = append(got, shape{tl.Name, tl.ReadOnly, tl.Idempotent})
		if strings.TrimSpace(tl.Description) == "" {
			t.Errorf("%s has no description", tl.Name)
		}
	}
	want := []shape{
		{"list_workflows", true, true},
		{"inspect_workflow", true, true},
		{"start_workflow", false, false},
		{"continue_workflow", false, true},
		{"checkpoint_workflow", false, true},
		{"start_session", false, false},
		{"resume_session", true, true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tools %+v\nwant  %+v", got, want)
	}
}

// A gated tool is listed only when its flag is on; the core four always are.
func TestToolsGatedByFeatures(t *testing.T) {
	core := []protocol.ToolName{protocol.ToolList, protocol.ToolInspect, protocol.ToolStart, protocol.ToolContinue}
	tests := []struct {
		name string
		f    protocol.Features
		want []protocol.ToolName
	}{
		{"all off", protocol.Features{}, core},
		{"defaults", protocol.Features{CheckpointWorkflow: true, ResumeSession: true}, append(core[:4:4], protocol.ToolCheckpoint, protocol.ToolResume)},
		{"resume_session only", protocol.Features{ResumeSession: true}, append(core[:4:4], protocol.ToolResume)},
		{"start_session only", protocol.Features{StartSession: true}, append(core[:4:4], protocol.ToolStartSession)},
		{"checkpoint and start_session", protocol.Features{CheckpointWorkflow: true, StartSession: true},
			append(core[:4:4], protocol.ToolCheckpoint, protocol.ToolStartSession)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []protocol.ToolName
			for _, tl := range protocol.Tools(tt.f) {
				got = append(got, tl.Name)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tools %v; want %v", got, tt.want)
			}
		})
	}
}

// allowedKeys reads the keys a parser accepts from its UNKNOWN_KEY message.
func allowedKeys(t *testing.T, e *engine.Error, prefix string) []string {
	t.Helper()
	if e == nil || e.Code != engine.CodeUnknownKey {
		t.Fatalf("want UNKNOWN_KEY, got %v", e)
	}
	_, list, ok := strings.Cut(e.Message, "Allowed: ")
	if !ok {
		t.Fatalf("no allowed list in %q", e.Message)
	}
	var keys []string
	for _, q := range strings.Split(strings.TrimSuffix(list, "."), ", ") {
		keys = append(keys, strings.TrimPrefix(strings.Trim(q, `"`), prefix))
	}
	sort.Strings(keys)
	return keys
}

func propertyNames(t *testing.T, s map[string]any) []string {
	t.Helper()
	props, _ := s["properties"].(map[string]any)
	var names []string
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Each input schema declares exactly the keys its parser accepts, closed
// to others, and requires exactly what the parser requires.
func TestInputSchemasMatchTheParsers(t *testing.T) {
	tests := []struct {
		tool     protocol.ToolName
		parser   string
		required []string
	}{
		{protocol.ToolList, "list", nil},
		{protocol.ToolInspect, "inspect", []string{"workflowId"}},
		{protocol.ToolStart, "start", []string{"workflowId"}},
		{protocol.ToolContinue, "continue", []string{"stateToken"}},
		{protocol.ToolCheckpoint, "checkpoint", []string{"stateToken", "checkpointToken", "output"}},
		{protocol.ToolStartSession, "start_session", nil},
		{protocol.ToolResume, "resume", nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.tool), func(t *testing.T) {
			s := schemaOf(t, tool(t, tt.tool).Input)
			parse := parsers()[tt.parser]
			if s["type"] != "object" || s["additionalProperties"] != false {
				t.Errorf("schema is not a closed object: type %v, additionalProperties %v", s["type"], s["additionalProperties"])
			}
			names := propertyNames(t, s)
			if want := allowedKeys(t, parse([]byte(`{"zzzz":1}`)), ""); !reflect.DeepEqual(names, want) {
				t.Errorf("schema properties %v; the parser accepts %v", names, want)
			}
			var req []string
			if r, ok := s["required"].([]any); ok {
				for _, k := range r {
					req = append(req, k.(string))
				}
			}
			if !reflect.DeepEqual(req, tt.required) {
				t.Errorf("required %v; want %v", req, tt.required)
			}
			for _, k := range tt.required {
				if e := parse(withoutKey(t, tt.required, k)); e == nil || e.Details["pointer"] != "/"+k {
					t.Errorf("the parser does not require %s: %v", k, e)
				}
			}
		})
	}
}

func TestNestedInputSchemasMatchTheParser(t *testing.T) {
	tests := []struct {
		tool       protocol.ToolName
		parser     string
		key, probe string
	}{
		{protocol.ToolContinue, "continue", "output", `{"stateToken":"s","output":{"zzzz":1}}`},
		{protocol.ToolContinue, "continue", "preferences", `{"stateToken":"s","preferences":{"zzzz":1}}`},
		{protocol.ToolCheckpoint, "checkpoint", "output", `{"stateToken":"s","checkpointToken":"c","output":{"zzzz":1}}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.tool)+" "+tt.key, func(t *testing.T) {
			props := schemaOf(t, tool(t, tt.tool).Input)["properties"].(map[string]any)
			s := props[tt.key].(map[string]any)
			if s["additionalProperties"] != false {
				t.Errorf("%s is open to other keys", tt.key)
			}
			e := parsers()[tt.parser]([]byte(tt.probe))
			if names, want := propertyNames(t, s), allowedKeys(t, e, tt.key+"."); !reflect.DeepEqual(names, want) {
				t.Errorf("schema properties %v; the parser accepts %v", names, want)
			}
		})
	}
}

// withoutKey is an argument object with every required key but left out.
func withoutKey(t *testing.T, required []string, left string) []byte {
	t.Helper()
	values := map[string]any{"output": map[string]any{"notesMarkdown": "n"}}
	args := map[string]any{}
	for _, k := range required {
		if k == left {
			continue
		}
		v, ok := values[k]
		if !ok {
			v = "x"
		}
		args[k] = v
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func enumOf(t *testing.T, s map[string]any, path ...string) []string {
	t.Helper()
	var cur any = s
	for _, p := range path {
		cur = cur.(map[string]any)[p]
	}
	var out []string
	for _, v := range cur.(map[string]any)["enum"].([]any) {
		out = append(out, v.(string))
	}
	return out
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func TestInputSchemaEnums(t *testing.T) {
	start := schemaOf(t, tool(t, protocol.ToolStart).Input)
	cont := schemaOf(t, tool(t, protocol.ToolContinue).Input)
	inspect := schemaOf(t, tool(t, protocol.ToolInspect).Input)
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"start mode", enumOf(t, start, "properties", "mode"), strs(outcome.Modes())},
		{"start autonomy", enumOf(t, start, "properties", "preferences", "properties", "autonomy"), []string{"guided", "full_auto_stop_on_user_deps", "full_auto_never_stop"}},
		{"start risk", enumOf(t, start, "properties", "preferences", "properties", "riskPolicy"), []string{"conservative", "balanced", "aggressive"}},
		{"continue autonomy", enumOf(t, cont, "properties", "preferences", "properties", "autonomy"), strs(workflow.Autonomies())},
		{"continue risk", enumOf(t, cont, "properties", "preferences", "properties", "riskPolicy"), strs(workflow.RiskPolicies())},
		{"inspect mode", enumOf(t, inspect, "properties", "mode"), []string{string(protocol.InspectMetadata), string(protocol.InspectPreview)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Errorf("enum %v; want %v", tt.got, tt.want)
			}
		})
	}
	for _, m := range enumOf(t, inspect, "properties", "mode") {
		if in, e := protocol.ParseInspect([]byte(`{"workflowId":"w","mode":"` + m + `"}`)); e != nil || string(in.Mode) != m {
			t.Errorf("the schema's mode %q is refused: %v", m, e)
		}
	}
}

// validate checks v against the subset of JSON Schema the output schemas
// use: $ref, allOf, if/then, const, enum, type, required, properties,
// additionalProperties, items, minItems, maxItems and maxLength.
func validate(root, s map[string]any, v any, at string) []string {
	if r, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(r, "#/$defs/")
		def, ok := root["$defs"].(map[string]any)[name].(map[string]any)
		if !ok {
			return []string{at + ": unresolved " + r}
		}
		return validate(root, def, v, at)
	}
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, at+": "+fmt.Sprintf(format, args...)) }
	for _, sub := range asList(s["allOf"]) {
		errs = append(errs, validate(root, sub.(map[string]any), v, at)...)
	}
	if cond, ok := s["if"].(map[string]any); ok && len(validate(root, cond, v, at)) == 0 {
		errs = append(errs, validate(root, s["then"].(map[string]any), v, at)...)
	}
	if c, ok := s["const"]; ok && !reflect.DeepEqual(c, v) {
		fail("%v is not %v", v, c)
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			found = found || reflect.DeepEqual(x, v)
		}
		if !found {
			fail("%v is not in %v", v, e)
		}
	}
	if m, ok := v.(map[string]any); ok {
		for _, r := range asList(s["required"]) {
			if _, ok := m[r.(string)]; !ok {
				fail("lacks required %q", r)
			}
		}
		if props, ok := s["properties"].(map[string]any); ok && s["type"] == nil {
			for k, x := range m {
				if p, ok := props[k].(map[string]any); ok {
					errs = append(errs, validate(root, p, x, at+"/"+k)...)
				}
			}
		}
	}
	switch typ, _ := s["type"].(string); typ {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			fail("not an object")
			break
		}
		props, _ := s["properties"].(map[string]any)
		for k, x := range m {
			if p, ok := props[k].(map[string]any); ok {
				errs = append(errs, validate(root, p, x, at+"/"+k)...)
			} else if s["additionalProperties"] == false {
				fail("has undeclared %q", k)
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			fail("not an array")
			break
		}
		if n, ok := s["minItems"].(float64); ok && float64(len(a)) < n {
			fail("%d items, fewer than %v", len(a), n)
		}
		if n, ok := s["maxItems"].(float64); ok && float64(len(a)) > n {
			fail("%d items, more than %v", len(a), n)
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range a {
				errs = append(errs, validate(root, items, x, fmt.Sprintf("%s/%d", at, i))...)
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			fail("not a string")
			break
		}
		if n, ok := s["maxLength"].(float64); ok && float64(utf8.RuneCountInString(str)) > n {
			fail("longer than %v", n)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			fail("not a boolean")
		}
	case "integer":
		if f, ok := v.(float64); !ok || f != float64(int64(f)) {
			fail("not an integer")
		}
	}
	return errs
}

func asList(v any) []any { l, _ := v.([]any); return l }

// dig is the object at path in m (nil when there is none).
func dig(m map[string]any, path ...string) map[string]any {
	for _, p := range path {
		m, _ = m[p].(map[string]any)
	}
	return m
}

// Every result shape matches its tool's declared output schema, so a
// client that validates structuredContent never rejects a real result.
func TestResultsMatchOutputSchemas(t *testing.T) {
	exec := []protocol.Result{}
	for _, c := range goldenCases() {
		exec = append(exec, c.result)
	}
	cat := testCatalog(t)
	entry := reviewEntry(t)
	notFound := protocol.NewError(engine.Errorf(engine.CodeWorkflowNotFound, "no workflow x"))
	tests := []struct {
		tool    protocol.ToolName
		kinds   []string
		results []protocol.Result
	}{
		{protocol.ToolList, []string{"workflows", "error"}, []protocol.Result{protocol.NewList(cat), protocol.NewList(cat), notFound}},
		{protocol.ToolInspect, []string{"inspection", "error"}, []protocol.Result{
			protocol.NewInspect(entry, protocol.InspectMetadata), protocol.NewInspect(entry, protocol.InspectPreview), notFound}},
		{protocol.ToolStart, []string{"step", "blocked", "complete", "error"}, exec},
		{protocol.ToolContinue, []string{"step", "blocked", "complete", "error"}, exec},
		{protocol.ToolCheckpoint, []string{"step", "error"}, checkpointResults()},
		{protocol.ToolStartSession, []string{"step", "error"}, checkpointResults()},
		{protocol.ToolResume, []string{"candidates", "error"}, []protocol.Result{resumeNone(), resumeSome(), notFound}},
	}
	for _, tt := range tests {
		t.Run(string(tt.tool), func(t *testing.T) {
			root := schemaOf(t, tool(t, tt.tool).Output)
			var kinds []string
			for _, k := range asList(dig(root, "properties", "kind")["enum"]) {
				kinds = append(kinds, k.(string))
			}
			for i, b := range asList(root["allOf"]) {
				if i >= len(kinds) || dig(b.(map[string]any), "if", "properties", "kind")["const"] != kinds[i] {
					t.Errorf("branch %d of allOf is not kind %v's: %v", i, kinds, b)
				}
			}
			if want := strings.ReplaceAll(strings.Join(tt.kinds, "+"), "inspection", "workflow"); !reflect.DeepEqual(kinds, strings.Split(want, "+")) {
				t.Errorf("kinds %v; want %v", kinds, tt.kinds)
			}
			if !reflect.DeepEqual(asList(root["required"]), []any{"kind", "text"}) {
				t.Errorf("required %v; want [kind text]", root["required"])
			}
			for name := range root["$defs"].(map[string]any) {
				if !strings.Contains(string(tool(t, tt.tool).Output), `"#/$defs/`+name+`"`) {
					t.Errorf("definition %q is carried but never used", name)
				}
			}
			for _, r := range tt.results {
				var v any
				if err := json.Unmarshal(mustJSON(t, r), &v); err != nil {
					t.Fatal(err)
				}
				if errs := validate(root, root, v, ""); len(errs) > 0 {
					t.Errorf("%s result does not match the schema:\n%s", r.ResultKind(), strings.Join(errs, "\n"))
				}
			}
		})
	}
}

// checkpointResults are the step and error results checkpoint_workflow
// and start_session answer with.
func checkpointResults() []protocol.Result {
	var out []protocol.Result
	for _, c := range goldenCases() {
		if k := c.result.ResultKind(); k == protocol.KindStep || k == protocol.KindError {
			out = append(out, c.result)
		}
	}
	return out
}

func TestErrorEnvelopeSchemaListsEveryCode(t *testing.T) {
	root := schemaOf(t, tool(t, protocol.ToolStart).Output)
	env := root["$defs"].(map[string]any)["envelope"].(map[string]any)
	got := enumOf(t, env, "properties", "code")
	if want := strs(engine.Codes()); !reflect.DeepEqual(got, want) {
		t.Errorf("codes %v; want %v", got, want)
	}
	for _, code := range engine.Codes() {
		var v any
		json.Unmarshal(mustJSON(t, protocol.NewError(engine.Errorf(code, "m"))), &v)
		if errs := validate(root, root, v, ""); len(errs) > 0 {
			t.Errorf("%s: %s", code, strings.Join(errs, "; "))
		}
	}
}

// The schema check above can fail: results broken in typical ways are
// rejected, by the union and by the definition of their kind.
func TestOutputSchemaRejectsBrokenResults(t *testing.T) {
	root := schemaOf(t, tool(t, protocol.ToolContinue).Output)
	step := protocol.NewStep(minimalView(), minimalPending(), protocol.Progress{Part: 1, Parts: 1})
	blocked := protocol.NewBlocked(minimalView(), minimalPending(), allBlockers[:1])
	tests := []struct {
		name   string
		result protocol.Result
		mutate func(m map[string]any)
		want   string // an error from the union or the branch of the result's kind
	}{
		{"step without nextCall", step, func(m map[string]any) { delete(m, "nextCall") }, `lacks required "nextCall"`},
		{"unknown kind", step, func(m map[string]any) { m["kind"] = "steps" }, "steps is not in [step blocked complete error]"},
		{"step that says complete", step, func(m map[string]any) { m["isComplete"] = true }, "true is not false"},
		{"text is not a string", step, func(m map[string]any) { m["text"] = 1.0 }, "/text: not a string"},
		{"blocked without blockers", blocked, func(m map[string]any) { m["blockers"] = []any{} }, "0 items, fewer than 1"},
		{"unknown blocker code", blocked, func(m map[string]any) {
			m["blockers"].([]any)[0].(map[string]any)["code"] = "NOPE"
		}, "/blockers/0/code: NOPE is not in"},
		{"unknown retry kind", protocol.NewError(engine.Errorf(engine.CodeInternal, "m")), func(m map[string]any) {
			m["error"].(map[string]any)["retry"] = map[string]any{"kind": "later"}
		}, "/error/retry/kind: later is not in"},
		{"retry after no time", protocol.NewError(engine.Errorf(engine.CodeInternal, "m")), func(m map[string]any) {
			m["error"].(map[string]any)["retry"] = map[string]any{"kind": "retryable_after_ms"}
		}, `/error/retry: lacks required "afterMs"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(mustJSON(t, tt.result), &m); err != nil {
				t.Fatal(err)
			}
			if errs := validate(root, root, m, ""); len(errs) > 0 {
				t.Fatalf("the unbroken result fails: %v", errs)
			}
			tt.mutate(m)
			errs := validate(root, root, m, "")
			if len(errs) == 0 {
				t.Error("the union accepts the broken result")
			}
			if !strings.Contains(strings.Join(errs, "\n"), tt.want) {
				t.Errorf("errors %v; want one with %q", errs, tt.want)
			}
		})
	}
}
