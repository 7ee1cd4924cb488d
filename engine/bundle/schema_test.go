package bundle_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

func compiledSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	s, err := bundle.CompiledSchema()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, b []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(v)
}

// The published schema accepts the bundles WorkRail writes: plain,
// redacted, and one exported from an imported session.
func TestSchemaAcceptsRealBundles(t *testing.T) {
	s := compiledSchema(t)
	plain := sample(t)
	st := memstore.New()
	x := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	rep, err := x.Import(plain, false)
	if err != nil {
		t.Fatal(err)
	}
	imported, err := x.Export(rep.Session, bundle.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	redacted, err := x.Export(rep.Session, bundle.ExportOptions{RedactNotes: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(imported, []byte(`"importedFrom"`)) {
		t.Fatal("the export of an imported session does not say where it came from")
	}
	for name, b := range map[string][]byte{"plain": plain, "imported": imported, "redacted": redacted} {
		if err := validate(t, s, b); err != nil {
			t.Errorf("%s bundle: %v", name, err)
		}
	}
}

// The schema can fail: it refuses what Read refuses for its shape.
func TestSchemaRefusesBrokenBundles(t *testing.T) {
	s := compiledSchema(t)
	good := sample(t)
	for name, edit := range map[string]func(m map[string]any){
		"unknown top-level field": func(m map[string]any) { m["x"] = 1 },
		"unknown event field":     func(m map[string]any) { m["events"].([]any)[0].(map[string]any)["x"] = 1 },
		"unknown payload field":   func(m map[string]any) { m["events"].([]any)[1].(map[string]any)["data"].(map[string]any)["x"] = 1 },
		"unknown snapshot field": func(m map[string]any) {
			for _, v := range m["snapshots"].(map[string]any) {
				v.(map[string]any)["x"] = 1
			}
		},
		"version 3":                  func(m map[string]any) { m["bundleSchemaVersion"] = 3 },
		"version 1 with a redaction": func(m map[string]any) { m["bundleSchemaVersion"] = 1 },
		"no redaction":               func(m map[string]any) { delete(m["session"].(map[string]any), "redaction") },
		"an unknown redaction":       func(m map[string]any) { m["session"].(map[string]any)["redaction"] = "some" },
		"a bad digest":               func(m map[string]any) { m["manifest"].(map[string]any)["chainHead"] = "sha256:00" },
		"a missing part":             func(m map[string]any) { delete(m, "runs") },
		"an unknown kind":            func(m map[string]any) { m["events"].([]any)[0].(map[string]any)["kind"] = "session_deleted" },
		"a bad node id":              func(m map[string]any) { m["runs"].([]any)[0].(map[string]any)["rootNodeId"] = "node_0" },
		"an unknown edge": func(m map[string]any) {
			m["runs"].([]any)[0].(map[string]any)["edges"].([]any)[0].(map[string]any)["edgeKind"] = "jump"
		},
		"no events":          func(m map[string]any) { m["events"] = []any{} },
		"redacted as string": func(m map[string]any) { m["session"].(map[string]any)["redacted"] = "yes" },
	} {
		b := generic(t, good, edit)
		if err := validate(t, s, b); err == nil {
			t.Errorf("%s: the schema accepts it", name)
		}
	}
}

// schemaDoc is the schema as generic JSON.
func schemaDoc(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(bundle.Schema(), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// at walks a path of keys (and "items", "additionalProperties") down the
// schema.
func at(t *testing.T, m map[string]any, path string) map[string]any {
	t.Helper()
	cur := m
	for _, k := range strings.Split(path, "/") {
		next, ok := cur[k].(map[string]any)
		if !ok {
			t.Fatalf("schema has no %s (at %s)", path, k)
		}
		cur = next
	}
	return cur
}

// jsonNames are the JSON keys a Go struct writes.
func jsonNames(typ reflect.Type) []string {
	var out []string
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Every object of the schema lists exactly the keys its Go type writes,
// so the schema cannot drift from the format.
func TestSchemaPropertiesMatchTheGoTypes(t *testing.T) {
	doc := schemaDoc(t)
	tp := reflect.TypeFor[bundle.Bundle]
	for path, typ := range map[string]reflect.Type{
		"":                                       tp(),
		"$defs/session":                          reflect.TypeFor[bundle.Session](),
		"$defs/importSource":                     reflect.TypeFor[event.ImportSource](),
		"$defs/observation":                      reflect.TypeFor[bundle.Observation](),
		"$defs/run":                              reflect.TypeFor[bundle.Run](),
		"$defs/node":                             reflect.TypeFor[bundle.Node](),
		"$defs/edge":                             reflect.TypeFor[bundle.Edge](),
		"$defs/output":                           reflect.TypeFor[bundle.Output](),
		"$defs/gap":                              reflect.TypeFor[project.GapState](),
		"$defs/gap/properties/resolutions/items": reflect.TypeFor[project.Resolution](),
		"$defs/preference":                       reflect.TypeFor[bundle.Preference](),
		"$defs/preferences":                      reflect.TypeFor[workflow.Preferences](),
		"$defs/manifest":                         reflect.TypeFor[bundle.Manifest](),
		"$defs/manifest/properties/parts":        reflect.TypeFor[bundle.Parts](),
		"$defs/snapshot":                         reflect.TypeFor[run.Snapshot](),
		"$defs/snapshot/properties/position":     reflect.TypeFor[run.Position](),
		"$defs/snapshot/properties/position/properties/path/items": reflect.TypeFor[run.Frame](),
		"$defs/event":                                                     reflect.TypeFor[event.Event](),
		"$defs/sessionCreated":                                            reflect.TypeFor[event.SessionCreatedData](),
		"$defs/observationRecorded":                                       reflect.TypeFor[event.ObservationRecordedData](),
		"$defs/runStarted":                                                reflect.TypeFor[event.RunStartedData](),
		"$defs/nodeCreated":                                               reflect.TypeFor[event.NodeCreatedData](),
		"$defs/edgeCreated":                                               reflect.TypeFor[event.EdgeCreatedData](),
		"$defs/nodeOutputAppended":                                        reflect.TypeFor[event.NodeOutputAppendedData](),
		"$defs/preferencesChanged":                                        reflect.TypeFor[event.PreferencesChangedData](),
		"$defs/capabilityObserved":                                        reflect.TypeFor[event.CapabilityObservedData](),
		"$defs/gapRecorded":                                               reflect.TypeFor[event.GapRecordedData](),
		"$defs/divergenceRecorded":                                        reflect.TypeFor[event.DivergenceRecordedData](),
		"$defs/decisionTraceAppended":                                     reflect.TypeFor[event.DecisionTraceAppendedData](),
		"$defs/advanceRecorded":                                           reflect.TypeFor[event.AdvanceRecordedData](),
		"$defs/advanceRecorded/properties/skipped/items":                  reflect.TypeFor[event.Skip](),
		"$defs/advanceRecorded/properties/loopExits/items":                reflect.TypeFor[event.LoopExit](),
		"$defs/advanceRecorded/properties/notices/items":                  reflect.TypeFor[event.Notice](),
		"$defs/advanceRecorded/properties/fork":                           reflect.TypeFor[event.Fork](),
		"$defs/advanceRecorded/properties/fork/properties/siblings/items": reflect.TypeFor[event.Branch](),
		"$defs/advanceRecorded/properties/fork/properties/downstream":     reflect.TypeFor[event.Recap](),
		"$defs/advanceRecorded/properties/fork/properties/downstream/properties/entries/items": reflect.TypeFor[event.RecapEntry](),
		"$defs/advanceRecorded/properties/blockers/items":                                      reflect.TypeFor[event.Blocker](),
		"$defs/advanceRecorded/properties/blockers/items/properties/pointer":                   reflect.TypeFor[event.Pointer](),
	} {
		obj := doc
		if path != "" {
			obj = at(t, doc, path)
		}
		props, _ := obj["properties"].(map[string]any)
		var got []string
		for k := range props {
			got = append(got, k)
		}
		slices.Sort(got)
		if want := jsonNames(typ); !slices.Equal(got, want) {
			t.Errorf("schema %q has keys %v; %s writes %v", path, got, typ, want)
		}
		if obj["additionalProperties"] != false {
			t.Errorf("schema %q allows unknown keys", path)
		}
	}
}

// The schema's closed sets are the Go closed sets: every enum of the
// schema is one the Go types own, and every event kind has its payload.
func TestSchemaEnumsMatchTheClosedSets(t *testing.T) {
	doc := schemaDoc(t)
	want := map[string][]string{
		"$defs/event/properties/kind":                                                        toStrings(event.Kinds()),
		"properties/bundleSchemaVersion":                                                     {"1", fmt.Sprint(bundle.SchemaVersion)},
		"$defs/session/properties/redaction":                                                 toStrings(bundle.Redactions()),
		"$defs/nodeKind":                                                                     toStrings(event.NodeKinds()),
		"$defs/edgeKind":                                                                     toStrings(event.EdgeKinds()),
		"$defs/observation/properties/key":                                                   toStrings(event.ObservationKeys()),
		"$defs/observationRecorded/properties/key":                                           toStrings(event.ObservationKeys()),
		"$defs/capabilityStatus":                                                             toStrings(event.CapabilityStatuses()),
		"$defs/capabilityObserved/properties/capability":                                     toStrings(workflow.Capabilities()),
		"$defs/capabilityObserved/properties/provenance":                                     toStrings(event.Provenances()),
		"$defs/snapshot/properties/capabilities/propertyNames":                               toStrings(workflow.Capabilities()),
		"$defs/snapshot/properties/position/properties/kind":                                 toStrings(run.PositionKinds()),
		"$defs/gapRecorded/properties/reason":                                                toStrings(event.GapReasons()),
		"$defs/gapRecorded/properties/severity":                                              toStrings(event.GapSeverities()),
		"$defs/divergenceRecorded/properties/reason":                                         toStrings(event.DivergenceReasons()),
		"$defs/decisionTraceAppended/properties/traceKind":                                   toStrings(event.TraceKinds()),
		"$defs/advanceRecorded/properties/outcome":                                           toStrings(event.Outcomes()),
		"$defs/advanceRecorded/properties/skipped/items/properties/reason":                   toStrings(event.SkipReasons()),
		"$defs/advanceRecorded/properties/loopExits/items/properties/reason":                 toStrings(event.ExitReasons()),
		"$defs/advanceRecorded/properties/blockers/items/properties/pointer/properties/kind": toStrings(event.PointerKinds()),
		"$defs/event/properties/origin":                                                      {string(event.OriginConsole)}, // the agent's is the absent one
		"$defs/run/properties/status":                                                        toStrings(project.RunStatuses()),
		"$defs/preferences/properties/autonomy":                                              toStrings(workflow.Autonomies()),
		"$defs/preferences/properties/riskPolicy":                                            toStrings(workflow.RiskPolicies()),
	}
	got := map[string][]string{}
	enums(doc, "", got)
	for path, values := range got {
		if _, ok := want[path]; !ok {
			t.Errorf("%s: enum %v is held to no Go closed set", path, values)
		}
	}
	for path, w := range want {
		if g := got[path]; !slices.Equal(g, sorted(w)) {
			t.Errorf("%s: %v; want %v", path, g, sorted(w))
		}
	}
	var payloads []string
	for _, c := range at(t, doc, "$defs/event")["allOf"].([]any) {
		payloads = append(payloads, at(t, c.(map[string]any), "if/properties/kind")["const"].(string))
	}
	if kinds := sorted(toStrings(event.Kinds())); !slices.Equal(sorted(payloads), kinds) {
		t.Errorf("the schema describes the payloads of kinds %v; the kinds are %v", sorted(payloads), kinds)
	}
}

// enums collects every enum under v, sorted, by its path from the
// schema's root.
func enums(v any, path string, into map[string][]string) {
	child := func(k string) string {
		if path == "" {
			return k
		}
		return path + "/" + k
	}
	switch x := v.(type) {
	case map[string]any:
		if values, ok := x["enum"].([]any); ok {
			var out []string
			for _, e := range values {
				out = append(out, fmt.Sprint(e))
			}
			into[path] = sorted(out)
		}
		for k, c := range x {
			enums(c, child(k), into)
		}
	case []any:
		for i, c := range x {
			enums(c, child(strconv.Itoa(i)), into)
		}
	}
}

func sorted(xs []string) []string { return slices.Sorted(slices.Values(xs)) }

func toStrings[S ~string](xs []S) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}
