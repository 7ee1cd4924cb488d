// Package outcome owns autonomy semantics: preferences and mode presets,
// the one reason model (ReasonCode) and the mode matrix that projects a
// reason either to a blocker or to a gap, the blockers' bounds and order,
// output contract validation, and capability and divergence observations.
// It is pure: the executor feeds it a step and what the agent sent.
package outcome

import (
	"fmt"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// ModeID names a preset.
type ModeID string

// Presets maps each mode preset to its locked preference values.
var Presets = map[ModeID]workflow.Preferences{
	"wr.modes.guided":                      {Autonomy: workflow.Guided, RiskPolicy: workflow.Conservative},
	"wr.modes.full_auto_stop_on_user_deps": {Autonomy: workflow.FullAutoStopOnUserDep, RiskPolicy: workflow.Balanced},
	"wr.modes.full_auto_never_stop":        {Autonomy: workflow.FullAutoNeverStop, RiskPolicy: workflow.Conservative},
}

// ModeIDs lists the presets in a fixed order.
var ModeIDs = []ModeID{"wr.modes.guided", "wr.modes.full_auto_stop_on_user_deps", "wr.modes.full_auto_never_stop"}

// Default is the built-in global default.
var Default = workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: workflow.Conservative}

var (
	autonomyRank = map[workflow.Autonomy]int{workflow.Guided: 0, workflow.FullAutoStopOnUserDep: 1, workflow.FullAutoNeverStop: 2}
	riskRank     = map[workflow.RiskPolicy]int{workflow.Conservative: 0, workflow.Balanced: 1, workflow.Aggressive: 2}
)

// Apply overlays the set fields of delta on base.
func Apply(base, delta workflow.Preferences) workflow.Preferences {
	if delta.Autonomy != "" {
		base.Autonomy = delta.Autonomy
	}
	if delta.RiskPolicy != "" {
		base.RiskPolicy = delta.RiskPolicy
	}
	return base
}

// CheckPreferences validates a preference delta (closed sets).
func CheckPreferences(p workflow.Preferences, ptr string) *engine.Error {
	if _, ok := autonomyRank[p.Autonomy]; p.Autonomy != "" && !ok {
		return engine.Errorf(engine.CodeInvalidInput, "%s/autonomy must be guided, full_auto_stop_on_user_deps or full_auto_never_stop, not %q", ptr, p.Autonomy).
			With("pointer", ptr+"/autonomy")
	}
	if _, ok := riskRank[p.RiskPolicy]; p.RiskPolicy != "" && !ok {
		return engine.Errorf(engine.CodeInvalidInput, "%s/riskPolicy must be conservative, balanced or aggressive, not %q", ptr, p.RiskPolicy).
			With("pointer", ptr+"/riskPolicy")
	}
	return nil
}

// Resolve turns start_workflow's preferences or mode (at most one) into a
// delta over the session baseline.
func Resolve(prefs *workflow.Preferences, mode ModeID) (workflow.Preferences, *engine.Error) {
	switch {
	case prefs != nil && mode != "":
		return workflow.Preferences{}, engine.Errorf(engine.CodeInvalidInput, "send either preferences or mode, not both")
	case mode != "":
		p, ok := Presets[mode]
		if !ok {
			e := engine.Errorf(engine.CodeInvalidInput, "unknown mode %q; modes are %s", mode, modeList()).With("pointer", "/mode")
			if s := engine.Closest(string(mode), modeNames()); s != "" {
				e.Suggestions = []engine.Suggestion{{Path: "mode", DidYouMean: s}}
			}
			return workflow.Preferences{}, e
		}
		return p, nil
	case prefs != nil:
		return *prefs, CheckPreferences(*prefs, "/preferences")
	}
	return workflow.Preferences{}, nil
}

func modeNames() []string {
	out := make([]string, len(ModeIDs))
	for i, m := range ModeIDs {
		out[i] = string(m)
	}
	return out
}

func modeList() string { return strings.Join(modeNames(), ", ") }

// Exceeds says which of the effective preferences go beyond the workflow's
// recommendation, by the closed partial orders.
func Exceeds(eff workflow.Preferences, rec *workflow.Preferences) []string {
	if rec == nil {
		return nil
	}
	var out []string
	if rec.Autonomy != "" && autonomyRank[eff.Autonomy] > autonomyRank[rec.Autonomy] {
		out = append(out, fmt.Sprintf("autonomy %s exceeds the recommended %s", eff.Autonomy, rec.Autonomy))
	}
	if rec.RiskPolicy != "" && riskRank[eff.RiskPolicy] > riskRank[rec.RiskPolicy] {
		out = append(out, fmt.Sprintf("riskPolicy %s exceeds the recommended %s", eff.RiskPolicy, rec.RiskPolicy))
	}
	return out
}
