// Package outcome owns autonomy semantics: preferences and mode presets,
// the one reason model (ReasonCode) and the mode matrix that projects a
// reason either to a blocker or to a gap, the blockers' bounds and order,
// output contract validation, and capability and divergence observations.
// It is pure: the executor feeds it a step and what the agent sent.
package outcome

import (
	"fmt"
	"slices"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// ModeID is the closed set of mode presets: the one place their ids are
// spelled.
type ModeID string

// The presets.
const (
	ModeGuided         ModeID = "wr.modes.guided"
	ModeStopOnUserDeps ModeID = "wr.modes.full_auto_stop_on_user_deps"
	ModeNeverStop      ModeID = "wr.modes.full_auto_never_stop"
)

// Modes lists the presets in a fixed order.
func Modes() []ModeID { return []ModeID{ModeGuided, ModeStopOnUserDeps, ModeNeverStop} }

// Preset returns the locked preference values of a mode.
func Preset(m ModeID) (workflow.Preferences, bool) {
	switch m {
	case ModeGuided:
		return workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: workflow.Conservative}, true
	case ModeStopOnUserDeps:
		return workflow.Preferences{Autonomy: workflow.FullAutoStopOnUserDep, RiskPolicy: workflow.Balanced}, true
	case ModeNeverStop:
		return workflow.Preferences{Autonomy: workflow.FullAutoNeverStop, RiskPolicy: workflow.Conservative}, true
	}
	return workflow.Preferences{}, false
}

// Default is the built-in global default: guided and conservative.
func Default() workflow.Preferences {
	p, _ := Preset(ModeGuided)
	return p
}

// autonomyRank and riskRank place a value in its closed partial order;
// -1 for a value outside the set.
func autonomyRank(a workflow.Autonomy) int { return slices.Index(workflow.Autonomies(), a) }
func riskRank(r workflow.RiskPolicy) int   { return slices.Index(workflow.RiskPolicies(), r) }

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
	if p.Autonomy != "" && autonomyRank(p.Autonomy) < 0 {
		return engine.Errorf(engine.CodeInvalidInput, "%s/autonomy must be guided, full_auto_stop_on_user_deps or full_auto_never_stop, not %q", ptr, p.Autonomy).
			With("pointer", ptr+"/autonomy")
	}
	if p.RiskPolicy != "" && riskRank(p.RiskPolicy) < 0 {
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
		p, ok := Preset(mode)
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
	out := make([]string, len(Modes()))
	for i, m := range Modes() {
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
	if rec.Autonomy != "" && autonomyRank(eff.Autonomy) > autonomyRank(rec.Autonomy) {
		out = append(out, fmt.Sprintf("autonomy %s exceeds the recommended %s", eff.Autonomy, rec.Autonomy))
	}
	if rec.RiskPolicy != "" && riskRank(eff.RiskPolicy) > riskRank(rec.RiskPolicy) {
		out = append(out, fmt.Sprintf("riskPolicy %s exceeds the recommended %s", eff.RiskPolicy, rec.RiskPolicy))
	}
	return out
}
