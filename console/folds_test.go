package console

import (
	"reflect"
	"testing"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// A cached snapshot is handed out as a copy: changing what one caller got
// changes neither the cache nor what the next caller gets.
func TestCopySnapshotSharesNothingMutable(t *testing.T) {
	orig := run.Snapshot{
		V:            1,
		WorkflowHash: [32]byte{1},
		Position:     run.Position{Kind: run.Pending, Step: "s", Path: []run.Frame{{Index: 1}, {Index: 2, Iteration: 3}}},
		Context:      map[string]any{"a": map[string]any{"b": []any{1.0, "x", map[string]any{"c": true}}}, "d": []any{}},
		Preferences:  workflow.Preferences{Autonomy: workflow.Guided},
		Capabilities: map[workflow.Capability]event.CapabilityStatus{"delegation": event.CapabilityAvailable},
	}
	// Every field is set, so a field added to run.Snapshot fails here
	// until copySnapshot is checked for it.
	for i, v := 0, reflect.ValueOf(orig); i < v.NumField(); i++ {
		if v.Field(i).IsZero() {
			t.Fatalf("run.Snapshot.%s is not set in this test", v.Type().Field(i).Name)
		}
	}
	want := copySnapshot(orig)
	if !reflect.DeepEqual(want, orig) {
		t.Fatalf("copy differs:\n%#v\n%#v", want, orig)
	}
	c := copySnapshot(orig)
	c.Position.Path[0].Index = 9
	c.Context["a"].(map[string]any)["b"].([]any)[2].(map[string]any)["c"] = false
	c.Context["a"].(map[string]any)["b"].([]any)[0] = 2.0
	c.Context["e"] = 1.0
	c.Capabilities["delegation"] = event.CapabilityUnavailable
	if !reflect.DeepEqual(want, orig) {
		t.Fatalf("changing a copy changed the original:\n%#v", orig)
	}
}
