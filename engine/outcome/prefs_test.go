package outcome_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

func TestApplyOverlaysOnlySetFields(t *testing.T) {
	base := workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: workflow.Conservative}
	cases := []struct {
		name  string
		delta workflow.Preferences
		want  workflow.Preferences
	}{
		{"empty delta keeps the base", workflow.Preferences{}, base},
		{"autonomy only", workflow.Preferences{Autonomy: workflow.FullAutoNeverStop},
			workflow.Preferences{Autonomy: workflow.FullAutoNeverStop, RiskPolicy: workflow.Conservative}},
		{"risk only", workflow.Preferences{RiskPolicy: workflow.Aggressive},
			workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: workflow.Aggressive}},
		{"both", workflow.Preferences{Autonomy: workflow.FullAutoStopOnUserDep, RiskPolicy: workflow.Balanced},
			workflow.Preferences{Autonomy: workflow.FullAutoStopOnUserDep, RiskPolicy: workflow.Balanced}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := outcome.Apply(base, tc.delta); got != tc.want {
				t.Fatalf("Apply = %+v; want %+v", got, tc.want)
			}
		})
	}
}

func TestCheckPreferences(t *testing.T) {
	cases := []struct {
		name    string
		p       workflow.Preferences
		pointer string // "" when valid
		names   string // what the message must quote
	}{
		{"empty", workflow.Preferences{}, "", ""},
		{"every value in the sets", workflow.Preferences{Autonomy: workflow.FullAutoNeverStop, RiskPolicy: workflow.Aggressive}, "", ""},
		{"unknown autonomy", workflow.Preferences{Autonomy: "autopilot"}, "/prefs/autonomy", `"autopilot"`},
		{"autonomy is case sensitive", workflow.Preferences{Autonomy: "Guided", RiskPolicy: workflow.Balanced}, "/prefs/autonomy", `"Guided"`},
		{"unknown risk", workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: "reckless"}, "/prefs/riskPolicy", `"reckless"`},
		{"both unknown reports autonomy first", workflow.Preferences{Autonomy: "x", RiskPolicy: "y"}, "/prefs/autonomy", `"x"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := outcome.CheckPreferences(tc.p, "/prefs")
			if tc.pointer == "" {
				if e != nil {
					t.Fatalf("CheckPreferences = %v; want valid", e)
				}
				return
			}
			if e == nil {
				t.Fatal("accepted a value outside the closed set")
			}
			if e.Code != engine.CodeInvalidInput || e.Details["pointer"] != tc.pointer || !strings.Contains(e.Message, tc.names) {
				t.Fatalf("error = %+v; want INVALID_INPUT at %s quoting %s", e, tc.pointer, tc.names)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	custom := workflow.Preferences{RiskPolicy: workflow.Balanced}
	cases := []struct {
		name       string
		prefs      *workflow.Preferences
		mode       outcome.ModeID
		want       workflow.Preferences
		pointer    string // set when an error is expected
		didYouMean string
	}{
		{name: "neither: no change", want: workflow.Preferences{}},
		{name: "guided preset", mode: "wr.modes.guided", want: workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: workflow.Conservative}},
		{name: "stop-on-deps preset", mode: "wr.modes.full_auto_stop_on_user_deps", want: workflow.Preferences{Autonomy: workflow.FullAutoStopOnUserDep, RiskPolicy: workflow.Balanced}},
		{name: "never-stop preset", mode: "wr.modes.full_auto_never_stop", want: workflow.Preferences{Autonomy: workflow.FullAutoNeverStop, RiskPolicy: workflow.Conservative}},
		{name: "preferences as sent", prefs: &custom, want: custom},
		{name: "empty preferences", prefs: &workflow.Preferences{}, want: workflow.Preferences{}},
		{name: "bad preferences", prefs: &workflow.Preferences{Autonomy: "autopilot"}, pointer: "/preferences/autonomy"},
		{name: "misspelt mode", mode: "wr.modes.full_auto_never_stp", pointer: "/mode", didYouMean: "wr.modes.full_auto_never_stop"},
		{name: "nothing like a mode", mode: "turbo", pointer: "/mode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, e := outcome.Resolve(tc.prefs, tc.mode)
			if tc.pointer == "" {
				if e != nil || got != tc.want {
					t.Fatalf("Resolve = %+v, %v; want %+v", got, e, tc.want)
				}
				return
			}
			if e == nil || e.Code != engine.CodeInvalidInput || e.Details["pointer"] != tc.pointer {
				t.Fatalf("error = %+v; want INVALID_INPUT at %s", e, tc.pointer)
			}
			var dym []string
			for _, s := range e.Suggestions {
				dym = append(dym, s.DidYouMean)
			}
			var want []string
			if tc.didYouMean != "" {
				want = []string{tc.didYouMean}
			}
			if !reflect.DeepEqual(dym, want) {
				t.Fatalf("suggestions = %v; want %v", dym, want)
			}
		})
	}
}

// An unknown mode's error lists every mode so the agent can pick one.
func TestUnknownModeListsTheModes(t *testing.T) {
	_, e := outcome.Resolve(nil, "turbo")
	for _, m := range []string{"wr.modes.guided", "wr.modes.full_auto_stop_on_user_deps", "wr.modes.full_auto_never_stop"} {
		if !strings.Contains(e.Message, m) {
			t.Errorf("message %q does not list %s", e.Message, m)
		}
	}
}

func TestExceedsMessages(t *testing.T) {
	cases := []struct {
		name string
		eff  workflow.Preferences
		rec  *workflow.Preferences
		want []string
	}{
		{"no recommendation", workflow.Preferences{Autonomy: workflow.FullAutoNeverStop, RiskPolicy: workflow.Aggressive}, nil, nil},
		{"empty recommendation", workflow.Preferences{Autonomy: workflow.FullAutoNeverStop, RiskPolicy: workflow.Aggressive}, &workflow.Preferences{}, nil},
		{"below the recommendation", workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: workflow.Conservative},
			&workflow.Preferences{Autonomy: workflow.FullAutoNeverStop, RiskPolicy: workflow.Aggressive}, nil},
		{"autonomy over", workflow.Preferences{Autonomy: workflow.FullAutoStopOnUserDep, RiskPolicy: workflow.Aggressive},
			&workflow.Preferences{Autonomy: workflow.Guided},
			[]string{"autonomy full_auto_stop_on_user_deps exceeds the recommended guided"}},
		{"both over", workflow.Preferences{Autonomy: workflow.FullAutoNeverStop, RiskPolicy: workflow.Balanced},
			&workflow.Preferences{Autonomy: workflow.FullAutoStopOnUserDep, RiskPolicy: workflow.Conservative},
			[]string{"autonomy full_auto_never_stop exceeds the recommended full_auto_stop_on_user_deps",
				"riskPolicy balanced exceeds the recommended conservative"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := outcome.Exceeds(tc.eff, tc.rec); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Exceeds = %q; want %q", got, tc.want)
			}
		})
	}
}
