package workflow_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/workflow"
)

// TestOperatorsAreTheConditionKeys: Operators() lists exactly the keys a
// condition object may carry besides var, so nothing built from it (the
// checker's message, the editor's builtins) misses one.
func TestOperatorsAreTheConditionKeys(t *testing.T) {
	var keys []string
	ct := reflect.TypeFor[workflow.Condition]()
	for i := range ct.NumField() {
		name, _, _ := strings.Cut(ct.Field(i).Tag.Get("json"), ",")
		if name != "var" {
			keys = append(keys, name)
		}
	}
	var ops []string
	for _, op := range workflow.Operators() {
		ops = append(ops, string(op))
	}
	slices.Sort(keys)
	slices.Sort(ops)
	if !slices.Equal(keys, ops) {
		t.Fatalf("Operators() = %v; the condition's keys are %v", ops, keys)
	}
}
