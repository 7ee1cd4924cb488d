package outcome

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/workflow"
)

// held is one place of an output that still held WorkRail's template:
// its pointer from the call's arguments and, in an artifact, the
// artifact's kind.
type held struct {
	pointer string
	kind    string
}

// clean sets ev's notes and artifacts to what a sent, less what still
// holds WorkRail's template, and returns where each such place was.
// Notes that hold one are not taken at all. An artifact loses the
// members that hold one when they are optional in the template of its
// kind; it is taken out whole (a nil hole, so the pointers of the others
// stay those the agent sent) when a required one held it, when its kind
// has no template in this call, when it is a copy of an example an
// earlier release carried, or when nothing of it is left.
func (ev *Evaluation) clean(a Attempt) []held {
	texts := a.Ask.texts()
	var out []held
	ev.Notes = a.Notes
	if fill.IsTemplate(a.Notes, texts...) {
		ev.Notes = ""
		out = append(out, held{pointer: NotesPointer})
	}
	ev.Artifacts = make([]json.RawMessage, len(a.Artifacts))
	for i, art := range a.Artifacts {
		k := kindOf(art)
		ptr := artifactPointer(i)
		if earlierExample(k, art) {
			out = append(out, held{pointer: ptr, kind: k})
			continue
		}
		left, removed := fill.Strip(art, texts)
		ev.Artifacts[i] = left
		if len(removed) == 0 {
			continue
		}
		for _, r := range removed {
			out = append(out, held{pointer: ptr + r, kind: k})
		}
		if left == nil || fill.HoldsEarlier(art) || !onlyOptional(a.Ask, k, removed) {
			ev.Artifacts[i] = nil
		}
	}
	return out
}

// Kept is what an attempt keeps of the notes and artifacts it sent, where
// ask is what its call asked: the cleaning Judge does first, for a replay
// to compare what it was sent with what its attempt recorded.
func Kept(ask Ask, notes string, artifacts []json.RawMessage) (string, []json.RawMessage) {
	var ev Evaluation
	ev.clean(Attempt{Notes: notes, Artifacts: artifacts, Ask: ask})
	return ev.Notes, slices.DeleteFunc(ev.Artifacts, func(r json.RawMessage) bool { return r == nil })
}

// onlyOptional reports whether every place removed from an artifact of
// kind k is an optional slot of the template of that kind in this call.
func onlyOptional(ask Ask, k string, removed []string) bool {
	form, ok := ask.form(k)
	if !ok {
		return false
	}
	for _, r := range removed {
		i := slices.IndexFunc(form.Slots, func(s fill.Slot) bool { return samePlace(s.Pointer, r) })
		if i < 0 || form.Slots[i].Required {
			return false
		}
	}
	return true
}

// samePlace compares a slot's pointer with a removed one, any array
// index matching the template's one element.
func samePlace(slot, removed string) bool {
	a, b := strings.Split(slot, "/"), strings.Split(removed, "/")
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(isIndex(a[i]) && isIndex(b[i])) {
			return false
		}
	}
	return true
}

func isIndex(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// earlierExample reports whether art is, member for member, the example
// of WorkRail's contract pack of kind k: what earlier releases put in
// nextCall, with plausible values an agent copying it never chose.
func earlierExample(k string, art json.RawMessage) bool {
	p, ok := compile.Pack(workflow.ContractRef(k))
	// A copy holds the example's longest text: anything else is not one,
	// and costs no decode.
	if !ok || !bytes.Contains(art, longestText(workflow.ContractRef(k), p.Example)) {
		return false
	}
	var a, b any
	return json.Unmarshal(art, &a) == nil && json.Unmarshal(p.Example, &b) == nil && reflect.DeepEqual(a, b)
}

// longestText is the longest string value of the example of WorkRail's
// pack ref, as it reads in JSON (the examples are plain ASCII), found
// once per pack.
func longestText(ref workflow.ContractRef, example json.RawMessage) []byte {
	if v, ok := longest.Load(ref); ok {
		return v.([]byte)
	}
	var best string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if len(x) > len(best) {
				best = x
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	var v any
	json.Unmarshal(example, &v)
	walk(v)
	longest.Store(ref, []byte(best))
	return []byte(best)
}

var longest sync.Map // pack ref → its example's longest string value

// explain names, on each reason, the places left unfilled that it stands
// for (the notes for a notes reason, the user's answer for a user
// dependency, the artifacts of the contract a required output asks),
// and tells the others in one notice: they were optional, or of a kind
// nothing required, and nothing of them was recorded.
func (ev *Evaluation) explain(c compile.Compiled, hs []held) {
	told := make([]bool, len(hs))
	for i := range ev.Reasons {
		r := &ev.Reasons[i]
		for j, h := range hs {
			if concerns(c, *r, h) {
				r.Unfilled = append(r.Unfilled, h.pointer)
				told[j] = true
			}
		}
	}
	var rest []string
	for j, h := range hs {
		if !told[j] {
			rest = append(rest, h.pointer)
		}
	}
	if len(rest) > 0 {
		ev.note(event.NoticeTemplateUnfilled, fmt.Sprintf("%s still held WorkRail's template (<<fill: …>>): nothing of it was recorded. Write what each marker asks for, or leave an optional one out.",
			strings.Join(rest, ", ")))
	}
}

// concerns reports whether the place h was left unfilled where reason r
// needed it.
func concerns(c compile.Compiled, r Reason, h held) bool {
	switch r.Code {
	case MissingNotes, NotesCriteriaUnmet:
		return h.pointer == NotesPointer
	case UserOnlyDependency, NonAssumableChoice:
		return h.kind == UserResponseKind
	case MissingRequiredOutput, InvalidRequiredOutput:
		return h.pointer != NotesPointer && slices.Contains(kindsOf(c, r.ContractRef), h.kind)
	case RequiredCapabilityUnknown, RequiredCapabilityUnavailable:
		return h.kind == string(workflow.ContractCapabilityObservation)
	}
	return false
}

// kindsOf lists the artifact kinds that answer contract ref.
func kindsOf(c compile.Compiled, ref workflow.ContractRef) []string {
	kinds := append([]string{string(ref)}, packOf(c, ref).Kinds...)
	if ref == workflow.ContractLoopControl {
		kinds = append(kinds, LoopControlKind)
	}
	return kinds
}

// anywhere are the artifact kinds WorkRail reads at any step.
var anywhere = []string{string(workflow.ContractWorkflowDivergence), string(workflow.ContractGaps),
	string(workflow.ContractCapabilityObservation), string(workflow.ContractLoopControl), LoopControlKind}

// unexpected tells of each artifact of a kind step s does not ask for
// (its required output's kinds, wr.assessment when it rates, the user's
// answer when it needs one) and WorkRail does not read anywhere: it is
// recorded as sent, and the notice names the kinds the step expects.
func (ev *Evaluation) unexpected(c compile.Compiled, s *compile.Step, need UserNeed, artifacts []json.RawMessage) {
	var expected []string
	if s.Output != nil && s.Output.ContractRef != "" {
		expected = append(expected, kindsOf(c, s.Output.ContractRef)...)
	}
	if len(s.AssessmentRefs) > 0 {
		expected = append(expected, workflow.AssessmentKind)
	}
	if !need.None() {
		expected = append(expected, UserResponseKind)
	}
	for i, a := range artifacts {
		if a == nil {
			continue
		}
		k := kindOf(a)
		if slices.Contains(expected, k) || slices.Contains(anywhere, k) || k == string(workflow.ContractAssessment) && len(s.AssessmentRefs) > 0 {
			continue
		}
		what := fmt.Sprintf("of kind %q", k)
		if k == "" {
			what = "without a kind"
		}
		asks := "This step asks for no artifact of its own"
		if len(expected) > 0 {
			asks = "This step asks for " + strings.Join(expected, ", ")
		}
		ev.note(event.NoticeArtifactKindUnexpected, fmt.Sprintf("%s is an artifact %s: it is recorded as sent, but nothing reads it. %s; WorkRail reads %s at any step.",
			artifactPointer(i), what, asks, strings.Join(anywhere[:4], ", ")))
	}
}
