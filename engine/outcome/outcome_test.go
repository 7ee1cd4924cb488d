package outcome_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

// The seed's mode table (000, "Core rule"), line by line: each reason under
// each autonomy either blocks or records a critical gap and continues.
func TestModeMatrixMirrorsTheSeed(t *testing.T) {
	const (
		G = workflow.Guided
		S = workflow.FullAutoStopOnUserDep
		N = workflow.FullAutoNeverStop
	)
	table := []struct {
		reason outcome.ReasonCode
		want   map[workflow.Autonomy]outcome.Action
	}{
		{outcome.UserOnlyDependency, map[workflow.Autonomy]outcome.Action{G: outcome.Block, S: outcome.Block, N: outcome.Record}},
		{outcome.NonAssumableChoice, map[workflow.Autonomy]outcome.Action{G: outcome.Block, S: outcome.Block, N: outcome.Record}},
		{outcome.MissingRequiredOutput, map[workflow.Autonomy]outcome.Action{G: outcome.Block, S: outcome.Block, N: outcome.Record}},
		{outcome.InvalidRequiredOutput, map[workflow.Autonomy]outcome.Action{G: outcome.Block, S: outcome.Block, N: outcome.Record}},
		{outcome.RequiredCapabilityUnknown, map[workflow.Autonomy]outcome.Action{G: outcome.Block, S: outcome.Block, N: outcome.Record}},
		{outcome.RequiredCapabilityUnavailable, map[workflow.Autonomy]outcome.Action{G: outcome.Block, S: outcome.Block, N: outcome.Record}},
		{outcome.MissingNotes, map[workflow.Autonomy]outcome.Action{G: outcome.Block, S: outcome.Block, N: outcome.Record}},
		{outcome.NotesCriteriaUnmet, map[workflow.Autonomy]outcome.Action{G: outcome.Block, S: outcome.Block, N: outcome.Record}},
		{outcome.AssessmentFollowupRequired, map[workflow.Autonomy]outcome.Action{G: outcome.Block, S: outcome.Block, N: outcome.Record}},
	}
	if len(table) != len(outcome.ReasonCodes()) {
		t.Fatalf("the table covers %d reasons; the closed set has %d", len(table), len(outcome.ReasonCodes()))
	}
	dep := &workflow.UserDependency{Reason: workflow.NeedsUserChoice, ChoiceKind: workflow.ScopeBoundary, Summary: "s", RequestedFromUser: "r"}
	for _, row := range table {
		for a, want := range row.want {
			t.Run(fmt.Sprintf("%s/%s", row.reason, a), func(t *testing.T) {
				if got := outcome.Matrix(a, row.reason); got != want {
					t.Fatalf("Matrix = %s; want %s", got, want)
				}
				d := outcome.Decide(a, []outcome.Reason{{Code: row.reason, Step: "s", Dependency: dep, ContractRef: "wr.contracts.gaps", Capability: "web_browsing",
					Followup: &outcome.Followup{Assessment: "a", Dimension: "d", Level: "low", Guidance: "g"}}})
				blocked, recorded := len(d.Blockers) == 1, len(d.Gaps) == 1
				if blocked != (want == outcome.Block) || recorded != (want == outcome.Record) {
					t.Fatalf("Decide = %+v", d)
				}
				if recorded && d.Gaps[0].Severity != event.SeverityCritical {
					t.Fatalf("never-stop gap severity %s; want critical", d.Gaps[0].Severity)
				}
			})
		}
	}
}

func TestBlockersAreOrderedAndBounded(t *testing.T) {
	var reasons []outcome.Reason
	for i := 0; i < 14; i++ {
		reasons = append(reasons, outcome.Reason{Code: outcome.InvalidRequiredOutput, Step: "s", ContractRef: workflow.ContractRef(fmt.Sprintf("c%02d", 13-i)),
			Detail: strings.Repeat("é", 400)})
	}
	reasons = append(reasons, outcome.Reason{Code: outcome.MissingRequiredOutput, Step: "s", ContractRef: "z"})
	a := outcome.Decide(workflow.Guided, reasons)
	b := outcome.Decide(workflow.Guided, append([]outcome.Reason{reasons[len(reasons)-1]}, reasons[:len(reasons)-1]...))
	if !reflect.DeepEqual(a, b) {
		t.Fatal("blocker order depends on the order reasons were found")
	}
	if len(a.Blockers) != outcome.MaxBlockers {
		t.Fatalf("%d blockers; want the bound %d", len(a.Blockers), outcome.MaxBlockers)
	}
	if a.Blockers[0].Code != event.BlockInvalidRequiredOutput || a.Blockers[0].Pointer.ContractRef != "c00" {
		t.Fatalf("first blocker %+v; want INVALID_REQUIRED_OUTPUT sorted by contractRef", a.Blockers[0])
	}
	for _, bl := range a.Blockers {
		if len(bl.Message) > outcome.MaxMessageBytes || len(bl.SuggestedFix) > outcome.MaxSuggestedFixBytes || !json.Valid([]byte(`"`+bl.Message+`"`)) {
			t.Fatalf("blocker out of bounds: message %d bytes, fix %d bytes", len(bl.Message), len(bl.SuggestedFix))
		}
	}
}

func TestPresetsAndResolve(t *testing.T) {
	want := map[outcome.ModeID]workflow.Preferences{
		"wr.modes.guided":                      {Autonomy: "guided", RiskPolicy: "conservative"},
		"wr.modes.full_auto_stop_on_user_deps": {Autonomy: "full_auto_stop_on_user_deps", RiskPolicy: "balanced"},
		"wr.modes.full_auto_never_stop":        {Autonomy: "full_auto_never_stop", RiskPolicy: "conservative"},
	}
	got := map[outcome.ModeID]workflow.Preferences{}
	for _, m := range outcome.Modes() {
		got[m], _ = outcome.Preset(m)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("presets = %v", got)
	}
	if _, ok := outcome.Preset("wr.modes.reckless"); ok {
		t.Fatal("a mode outside the closed set has a preset")
	}
	if _, e := outcome.Resolve(&workflow.Preferences{Autonomy: "guided"}, "wr.modes.guided"); e == nil {
		t.Fatal("preferences and mode together were accepted")
	}
	if _, e := outcome.Resolve(nil, "wr.modes.guidd"); e == nil || e.Suggestions[0].DidYouMean != "wr.modes.guided" {
		t.Fatalf("unknown mode: %v", e)
	}
	if _, e := outcome.Resolve(&workflow.Preferences{RiskPolicy: "reckless"}, ""); e == nil {
		t.Fatal("a risk policy outside the closed set was accepted")
	}
}

func TestExceedsFollowsThePartialOrders(t *testing.T) {
	rec := &workflow.Preferences{Autonomy: workflow.FullAutoStopOnUserDep, RiskPolicy: workflow.Balanced}
	cases := []struct {
		p    workflow.Preferences
		want int
	}{
		{workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: workflow.Conservative}, 0},
		{workflow.Preferences{Autonomy: workflow.FullAutoStopOnUserDep, RiskPolicy: workflow.Balanced}, 0},
		{workflow.Preferences{Autonomy: workflow.FullAutoNeverStop, RiskPolicy: workflow.Balanced}, 1},
		{workflow.Preferences{Autonomy: workflow.FullAutoNeverStop, RiskPolicy: workflow.Aggressive}, 2},
	}
	for _, c := range cases {
		if got := outcome.Exceeds(c.p, rec); len(got) != c.want {
			t.Errorf("Exceeds(%v) = %v; want %d warnings", c.p, got, c.want)
		}
	}
}
