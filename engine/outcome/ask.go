package outcome

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/workflow"
)

// Ask is what the next call at a step asks the agent to write: its notes
// and the artifacts the step needs (templates: a marker wherever the
// agent, or the user through the agent, writes or decides). nextCall
// carries it; an attempt's output is checked against it, so that nothing
// of it is ever taken as an answer.
type Ask struct {
	Notes     fill.Slot
	Artifacts []fill.Artifact
}

// Slots lists every slot of the call, pointers from its arguments' root.
func (a Ask) Slots() []fill.Slot {
	out := []fill.Slot{a.Notes}
	for i, art := range a.Artifacts {
		out = append(out, fill.Under(artifactPointer(i), art.Slots)...)
	}
	return out
}

// Values are the artifacts as the call carries them.
func (a Ask) Values() []json.RawMessage {
	var out []json.RawMessage
	for _, art := range a.Artifacts {
		out = append(out, art.Value)
	}
	return out
}

// texts are every asks text an output is checked against: this call's,
// and the fixed ones WorkRail asks anywhere (an agent may unwrap a marker
// it was given at another step or in another mode).
func (a Ask) texts() []string {
	out := append(make([]string, 0, len(fixedAsks)+8), fixedAsks...)
	out = append(out, a.Notes.Asks)
	for _, art := range a.Artifacts {
		for _, s := range art.Slots {
			out = append(out, s.Asks)
		}
	}
	return out
}

// form is the template of the artifact kind k, if the call carries one.
func (a Ask) form(k string) (fill.Artifact, bool) {
	for _, art := range a.Artifacts {
		if art.Kind == k {
			return art, true
		}
	}
	return fill.Artifact{}, false
}

// What the fixed slots ask.
const (
	notesAsks        = "1-10 lines: what you did in this step and what you found"
	tsNotesAsks      = "10-30 lines: what you did in this step, what you found and what you decided, with the evidence"
	responseAsks     = "the user's answer, in their words (ask them and wait for it)"
	secretAsks       = "that the user provided it, never the secret itself"
	confirmationAsks = "the user's confirmation, in their words (ask them to confirm and wait for it)"
	choiceAsks       = "the option the user picked"
	summaryAsks      = "one line: why these ratings"
	CheckpointAsks   = "1-10 lines: what you did and found since the last response"
	NotesPointer     = "/output/notesMarkdown"
	artifactsPointer = "/output/artifacts"
)

var fixedAsks = []string{notesAsks, fill.Optional(notesAsks), tsNotesAsks, fill.Optional(tsNotesAsks), responseAsks, secretAsks, confirmationAsks, CheckpointAsks}

func artifactPointer(i int) string { return artifactsPointer + "/" + strconv.Itoa(i) }

// AskOf is what the next call at step s asks in autonomy a, where need is
// what the step needs of the user at this point: notes (required or not,
// as the step's policy says), the template of its required output
// contract, one per assessment it rates, and, where the mode stops for
// the user, the user's answer.
func AskOf(c compile.Compiled, s *compile.Step, a workflow.Autonomy, need UserNeed) Ask {
	asks := notesAsks
	if c.TSRules() { // the length the TypeScript WorkRail asks for
		asks = tsNotesAsks
	}
	ask := Ask{Notes: fill.Slot{Pointer: NotesPointer, Asks: asks, Required: NotesRequired(c, s)}}
	if !ask.Notes.Required {
		ask.Notes.Asks = fill.Optional(asks)
	}
	ask.Artifacts = append(ask.Artifacts, stepForms(c, s)...)
	if !need.None() && a != workflow.FullAutoNeverStop {
		ask.Artifacts = append(ask.Artifacts, UserResponseTemplate(need))
	}
	return ask
}

// NotesMarker is the marker nextCall carries as notes.
func (a Ask) NotesMarker() string { return fill.Marker(a.Notes.Asks) }

// stepForms are the templates of the artifacts step s requires whatever
// the mode: they depend on the pinned workflow and the step only, so they
// are built once per pinned workflow and step.
func stepForms(c compile.Compiled, s *compile.Step) []fill.Artifact {
	pinned := c.Hash != engine.WorkflowHash{}
	k := stepKey{c.Hash, s.ID}
	if v, ok := forms.Load(k); ok && pinned {
		return v.([]fill.Artifact)
	}
	var out []fill.Artifact
	if t, ok := contractTemplate(c, s); ok {
		out = append(out, t)
	}
	for _, ref := range s.AssessmentRefs {
		out = append(out, AssessmentTemplate(c, s, ref))
	}
	if pinned {
		forms.Store(k, out)
	}
	return out
}

var forms sync.Map // stepKey → []fill.Artifact

// contractTemplate is the template of step s's required output: its
// contract pack's, about the probed capability on a probe step.
func contractTemplate(c compile.Compiled, s *compile.Step) (fill.Artifact, bool) {
	if s.Output == nil || s.Output.ContractRef == "" {
		return fill.Artifact{}, false
	}
	t := compile.Template(s.Output.ContractRef, packOf(c, s.Output.ContractRef))
	if s.Probe == "" {
		return t, true
	}
	return t.With("/capability", string(s.Probe)), true
}

// UserResponseTemplate is the wr.user_response artifact the agent sends
// with the user's answer to what the step needs of them: the answer (or
// confirmation) in the user's words, and the option they picked when the
// dependency lists options.
func UserResponseTemplate(need UserNeed) fill.Artifact {
	d := need.Dependency()
	asks := responseAsks
	switch {
	case d.Reason == workflow.NeedsUserSecretOrToken:
		asks = secretAsks
	case need.Declared == nil:
		asks = confirmationAsks
	}
	slots := []fill.Slot{{Pointer: "/response", Asks: asks, Required: true}}
	v := `{"kind":"` + UserResponseKind + `","response":` + quote(fill.Marker(asks))
	if len(d.Options) > 0 {
		choice := fill.Optional(choiceAsks + ": one of " + strings.Join(d.Options, " | "))
		slots = append(slots, fill.Slot{Pointer: "/choice", Asks: choice, Options: d.Options})
		v += `,"choice":` + quote(fill.Marker(choice))
	}
	return fill.Artifact{Kind: UserResponseKind, Value: json.RawMessage(v + "}"), Slots: slots}
}

// UserNeed is what a step needs of the user at one point: the user-only
// dependency it declares, its confirmation (requireConfirmation, set or
// its condition holding), or both.
type UserNeed struct {
	Declared *workflow.UserDependency
	Confirm  bool
	// Title is the step's title as the agent reads it.
	Title string
}

// None reports whether the step needs nothing of the user.
func (n UserNeed) None() bool { return n.Declared == nil && !n.Confirm }

// Dependency is the need as the one dependency the step shows, blocks on
// and records a gap for: the declared one, also asking for confirmation
// when the step does; else the approval a confirmation is. Nil when the
// step needs nothing of the user.
func (n UserNeed) Dependency() *workflow.UserDependency {
	switch {
	case n.Declared != nil && n.Confirm:
		d := *n.Declared
		d.RequestedFromUser = strings.TrimSuffix(d.RequestedFromUser, ".") + "; and their confirmation of \"" + n.Title + "\" before the workflow goes on"
		return &d
	case n.Declared != nil:
		return n.Declared
	case n.Confirm:
		return &workflow.UserDependency{Reason: workflow.NeedsUserApproval,
			Summary:           "the workflow asks the user to confirm \"" + n.Title + "\" before it goes on",
			RequestedFromUser: ConfirmationRequest(n.Title),
			WhyUserOnly:       "the workflow asks for the user's confirmation at this step"}
	}
	return nil
}

// ConfirmationRequest is what the dependency a confirmation is asks of
// the user, at the step titled title.
func ConfirmationRequest(title string) string {
	return "their confirmation of \"" + title + "\" before you continue"
}
