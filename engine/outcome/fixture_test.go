package outcome_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

// MustFixture compiles testdata/evaluate.json: a workflow with a step of
// every kind Evaluate judges (required outputs, user-only dependencies, a
// required and a preferred capability, a loop with loop_control).
func MustFixture(tb testing.TB) compile.Compiled {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "evaluate.json"))
	if err != nil {
		tb.Fatal(err)
	}
	w, err := workflow.Parse(src)
	if err != nil {
		tb.Fatalf("parse fixture: %v", err)
	}
	c, err := compile.Compile(w)
	if err != nil {
		tb.Fatalf("compile fixture: %v", err)
	}
	return c
}

// MustStep returns the compiled step id of c.
func MustStep(tb testing.TB, c compile.Compiled, id workflow.StepID) *compile.Step {
	tb.Helper()
	s, ok := c.Step(id)
	if !ok {
		tb.Fatalf("fixture has no step %s", id)
	}
	return s
}

// arts turns literal JSON documents into artifacts.
func arts(docs ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(docs))
	for i, d := range docs {
		out[i] = json.RawMessage(d)
	}
	return out
}

// codes lists the reason codes of an evaluation, in order.
func codes(ev outcome.Evaluation) []outcome.ReasonCode {
	var out []outcome.ReasonCode
	for _, r := range ev.Reasons {
		out = append(out, r.Code)
	}
	return out
}

// noticeCodes lists the notice codes of an evaluation, in order.
func noticeCodes(ev outcome.Evaluation) []string {
	var out []string
	for _, n := range ev.Notices {
		out = append(out, string(n.Code))
	}
	return out
}

// nothingObserved is a branch that has not observed any capability yet.
var nothingObserved = map[workflow.Capability]event.CapabilityStatus{}

// evaluate judges the artifacts sent at step s of c, with notes, as an
// advance in guided mode judges them.
func evaluate(c compile.Compiled, s *compile.Step, artifacts []json.RawMessage, observed map[workflow.Capability]event.CapabilityStatus) outcome.Evaluation {
	need := outcome.UserNeed{Declared: s.UserDependency}
	return outcome.Judge(c, s, outcome.Attempt{Notes: "Did it.", Artifacts: artifacts, Ask: outcome.AskOf(c, s, workflow.Guided, need),
		Need: need, Observed: observed})
}
